//! Reading an eval's question file in bounded time and memory: only a regular
//! file is read (a FIFO, a device or a directory is refused before it is
//! opened, and the opened file is checked again, opened without waiting for a
//! writer); a file over `MAX_FILE_BYTES` is refused from its size; a line is
//! read into a buffer of at most `MAX_LINE_BYTES` (and a little), so a line
//! over it is refused naming it without being held whole. Each line is checked
//! by `core::eval::QuestionSet` as it is read.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::core::error::{Error, Result};
use crate::core::eval::{
    MAX_FILE_BYTES, MAX_LINE_BYTES, Question, QuestionSet, file_too_large, line_too_long,
};

/// The questions of the JSON Lines file at `path`, checked; a config error
/// naming the file (and the line) otherwise.
pub fn read_questions(path: &Path) -> Result<Vec<Question>> {
    let origin = path.display().to_string();
    let unreadable = |e: std::io::Error| Error::config(format!("{origin}: cannot be read: {e}"));
    regular(&origin, &std::fs::metadata(path).map_err(unreadable)?)?;
    let file = open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    regular(&origin, &meta)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(file_too_large(&origin, meta.len()));
    }
    let mut reader = BufReader::new(file.take(MAX_FILE_BYTES + 1));
    let mut set = QuestionSet::new(&origin);
    let mut line = Vec::new();
    let mut read: u64 = 0;
    for n in 1.. {
        line.clear();
        // The newline and a carriage return beyond the limit are still a line
        // within it.
        let got = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 3)
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::config(format!("{origin}:{n}: cannot be read: {e}")))?;
        if got == 0 {
            break;
        }
        read += got as u64;
        if read > MAX_FILE_BYTES {
            // It grew while it was read.
            return Err(file_too_large(&origin, read));
        }
        let ended = line.last() == Some(&b'\n');
        if ended {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        if line.len() > MAX_LINE_BYTES {
            return Err(line_too_long(&origin, n));
        }
        let text = std::str::from_utf8(&line).map_err(|e| {
            Error::config(format!(
                "{origin}:{n}: not UTF-8 ({e}); save the file as UTF-8"
            ))
        })?;
        set.line(n, text)?;
    }
    set.finish()
}

/// Refused unless `meta` is a regular file's, naming what it is.
fn regular(origin: &str, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::config(format!(
        "{origin} is not a regular file ({}); give a JSON Lines file, one question a line",
        kind(meta)
    )))
}

/// What a file that is not a regular one is.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    if meta.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// `path` opened for reading without waiting: a FIFO put in its place after it
/// was checked opens at once (and is then refused) instead of blocking until a
/// writer comes.
fn open(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_with_lf_or_crlf_and_the_last_needs_no_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.jsonl");
        std::fs::write(
            &path,
            "{\"id\":\"a\",\"question\":\"x?\"}\r\n{\"id\":\"b\",\"question\":\"y?\"}",
        )
        .unwrap();
        let qs = read_questions(&path).unwrap();
        assert_eq!(
            qs.iter().map(|q| q.id.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        // A line exactly at the limit is read; one byte more is refused.
        let at_limit = |extra: usize| {
            let pad = MAX_LINE_BYTES - "{\"id\":\"a\",\"question\":\"x?\"}".len() + extra;
            format!("{{\"id\":\"a\",\"question\":\"x?\"}}{}\n", " ".repeat(pad))
        };
        std::fs::write(&path, at_limit(0)).unwrap();
        assert_eq!(read_questions(&path).unwrap().len(), 1);
        std::fs::write(&path, at_limit(1)).unwrap();
        let e = read_questions(&path).unwrap_err().to_string();
        assert!(
            e.contains("set.jsonl:1: the line is longer than 1 MiB"),
            "{e}"
        );
        std::fs::write(&path, [b'{', 0xff, b'}']).unwrap();
        let e = read_questions(&path).unwrap_err().to_string();
        assert!(e.contains("set.jsonl:1: not UTF-8"), "{e}");
    }
}
