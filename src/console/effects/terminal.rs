//! The real terminal: raw mode, the alternate screen and mouse capture on the way
//! in; all three undone on every way out — a normal quit, an error (the guard's
//! `Drop`) and a panic on any thread (the hook, which then exits) — so the shell
//! is never left in raw mode.

use std::io::{Stdout, stdout};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The terminal while the console owns it; dropping it gives the terminal back.
pub struct Guard {
    /// The ratatui terminal.
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
}

/// Take the terminal over.
pub fn enter() -> std::io::Result<Guard> {
    let previous = std::panic::take_hook();
    // A panic on any thread (the UI's, a run task's) gives the terminal back,
    // reports, and ends the process: a console drawing on a restored terminal, or
    // a UI waiting on a task that died, is worse than an exit. Runs in flight stay
    // in the store as unfinished, resumable from their last checkpoint.
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
        std::process::exit(101);
    }));
    enable_raw_mode()?;
    // From here on a failure must undo what was done, which the guard does.
    let mut guard = Guard {
        terminal: Terminal::new(CrosstermBackend::new(stdout()))?,
    };
    // A plain clear: ratatui's `clear` asks the terminal where its cursor is,
    // which some terminals (and multiplexers) never answer.
    execute!(
        stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        Clear(ClearType::All)
    )?;
    guard.terminal.hide_cursor()?;
    Ok(guard)
}

/// Give the terminal back; safe to call more than once.
pub fn restore() {
    let _ = execute!(stdout(), DisableMouseCapture, LeaveAlternateScreen);
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), crossterm::cursor::Show);
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}
