//! Keys as io.toml writes them (`ctrl-r`, `alt-p`, `f5`, `esc`, `g`), read into
//! crossterm's key events, and when two events are the same key. Pure.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The same key: letters compared without case, Control and Alt alone counted.
pub(super) fn same(a: &KeyEvent, b: &KeyEvent) -> bool {
    let mods = |k: &KeyEvent| k.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
    let code = |k: &KeyEvent| match k.code {
        KeyCode::Char(c) => KeyCode::Char(c.to_ascii_lowercase()),
        KeyCode::BackTab => KeyCode::BackTab,
        other => other,
    };
    code(a) == code(b) && mods(a) == mods(b)
}

/// Read `ctrl-r`, `alt-p`, `f5`, `esc`, `enter`, `tab`, `backtab`, `up`, `/`, `g`.
pub fn parse_key(text: &str) -> Option<KeyEvent> {
    let lower = text.trim().to_ascii_lowercase();
    let mut mods = KeyModifiers::NONE;
    let mut rest = lower.as_str();
    loop {
        if let Some(r) = rest.strip_prefix("ctrl-") {
            mods |= KeyModifiers::CONTROL;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("alt-") {
            mods |= KeyModifiers::ALT;
            rest = r;
        } else {
            break;
        }
    }
    let code = match rest {
        "esc" => KeyCode::Esc,
        "enter" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "space" => KeyCode::Char(' '),
        f if f.starts_with('f') && f.len() > 1 => {
            KeyCode::F(f[1..].parse().ok().filter(|n| (1..=12).contains(n))?)
        }
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next()?),
        _ => return None,
    };
    Some(KeyEvent::new(code, mods))
}
