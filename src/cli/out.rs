//! Writing to stdout and stderr, the one way every command prints. `println!`
//! panics when the reader has gone (`io-harness runs | head -1` closes the pipe),
//! so every listing goes through here, and a closed pipe ends the output quietly,
//! as Unix tools do. On a terminal, control characters in what is printed (a
//! vendor's text, a query, a citation's URL or title) are shown written out
//! (`core::text::visible`), so nothing a vendor says can clear the screen or set
//! the clipboard; piped or redirected, the text is exact, and `--json` is JSON
//! either way (`json`: serde escapes the C0 controls, and DEL and C1 are escaped
//! here).

use std::borrow::Cow;
use std::io::{ErrorKind, IsTerminal, Write};

use io_harness::core::text::{json_visible, visible};
use io_harness::{Error, Result};

/// `text` as it goes to a stream: written out where it is a terminal.
fn shown(text: &str, terminal: bool) -> Cow<'_, str> {
    if terminal {
        visible(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// Write `text` to stdout and flush. A closed pipe is the reader saying it has
/// enough: not an error. Any other write error is reported.
pub fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    let text = shown(text, stdout.is_terminal());
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io("stdout", e)),
    }
}

/// `print` with a newline.
pub fn line(text: &str) -> Result<()> {
    print(&format!("{text}\n"))
}

/// JSON text and a newline: DEL and the C1 controls serde leaves raw inside
/// strings are escaped as JSON escapes them (`core::text::json_visible`), so the
/// value is the same and the bytes are the same on a terminal as in a pipe.
pub fn json(text: &str) -> Result<()> {
    line(&json_visible(text))
}

/// One line on stderr (progress, events, the reason a command failed). Nothing
/// to do when stderr is gone: what it said is in the store or the exit code.
pub fn note(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let text = shown(text, stderr.is_terminal());
    let _ = writeln!(stderr, "{text}");
}
