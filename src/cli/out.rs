//! Writing to stdout without panicking: `println!` panics when the reader has gone
//! (`io-harness runs | head -1` closes the pipe), so every listing goes through
//! here, and a closed pipe ends the output quietly, as Unix tools do.

use std::io::{ErrorKind, Write};

use io_harness::{Error, Result};

/// Write `text` to stdout and flush. A closed pipe is the reader saying it has
/// enough: not an error. Any other write error is reported.
pub fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
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
