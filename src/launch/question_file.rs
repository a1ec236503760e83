//! Reading an eval's question file in bounded time and memory: only a regular
//! file is read (a FIFO, a device or a directory is refused before it is
//! opened, and the opened file is checked again, opened without waiting for a
//! writer); a file over `MAX_FILE_BYTES` is refused from its size; no line is
//! held longer than `MAX_LINE_BYTES` (and a little) — a line over it is
//! refused naming it without being held whole, whatever the file's format.
//!
//! The file is io-harness's own JSON Lines or one of the published sets
//! (`core::eval::set`), recognised from its first line (or named with `--set`):
//! JSON Lines are read a line at a time, each checked by
//! `core::eval::QuestionSet` (or, for SealQA converted from Parquet, by
//! `SetRows::json_row`); a CSV or TSV file a row at a time by the `csv` crate
//! (RFC 4180 quoting; a quoted field may span lines), each row checked by
//! `SetRows`. The file's SHA-256 is taken as it is read: the eval's revision.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use crate::core::error::{Error, Result};
use crate::core::eval::{
    MAX_FILE_BYTES, MAX_LINE_BYTES, Question, QuestionSet, SetName, SetRows, file_too_large,
    line_too_long,
};

/// A question file read: the set it is, every question it holds (in order),
/// its SHA-256 (hex) as read.
#[derive(Debug, Clone, PartialEq)]
pub struct SetFile {
    /// The set it is.
    pub set: SetName,
    /// Its questions, all of them.
    pub questions: Vec<Question>,
    /// The SHA-256 of its bytes, hex.
    pub revision: String,
}

/// The questions of the JSON Lines file at `path`, checked; a config error
/// naming the file (and the line) otherwise. A published set's file is read
/// as `read_set` reads it.
pub fn read_questions(path: &Path) -> Result<Vec<Question>> {
    read_set(path, None).map(|f| f.questions)
}

/// The question file at `path`: the set `set` names, or the one its first
/// line is; its questions checked, its SHA-256. A config error naming the
/// file, the line and the field otherwise.
pub fn read_set(path: &Path, set: Option<SetName>) -> Result<SetFile> {
    let origin = path.display().to_string();
    let unreadable = |e: std::io::Error| Error::config(format!("{origin}: cannot be read: {e}"));
    regular(&origin, &std::fs::metadata(path).map_err(unreadable)?)?;
    let file = open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    regular(&origin, &meta)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(file_too_large(&origin, meta.len()));
    }
    read_from(file.take(MAX_FILE_BYTES + 1), &origin, set)
}

/// A question file's bytes held in memory (the demo's bundled sample), read
/// as `read_set` reads a file; `origin` names it in errors and reports.
pub fn read_set_bytes(bytes: &[u8], origin: &str, set: Option<SetName>) -> Result<SetFile> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(file_too_large(origin, bytes.len() as u64));
    }
    read_from(bytes, origin, set)
}

/// The questions read from `inner` (see `read_set`).
fn read_from(inner: impl Read, origin: &str, set: Option<SetName>) -> Result<SetFile> {
    let origin = origin.to_string();
    let digest = Rc::new(RefCell::new(ring::digest::Context::new(
        &ring::digest::SHA256,
    )));
    let bound = Bounded {
        inner,
        digest: digest.clone(),
        read: 0,
        line: 1,
        in_line: 0,
        over: Rc::new(Cell::new(None)),
    };
    let over = bound.over.clone();
    let mut reader = BufReader::new(bound);
    let failed = |n: u64, e: std::io::Error| match over.get() {
        Some(Over::Line(line)) => {
            line_too_long(&origin, usize::try_from(line).unwrap_or(usize::MAX))
        }
        Some(Over::File(bytes)) => file_too_large(&origin, bytes),
        None => Error::config(format!("{origin}:{n}: cannot be read: {e}")),
    };
    let mut first = Vec::new();
    reader
        .read_until(b'\n', &mut first)
        .map_err(|e| failed(1, e))?;
    if first.starts_with(b"PAR1") {
        return Err(Error::config(format!(
            "{origin}: a Parquet file (SealQA is published so); eval reads its rows as JSON Lines — convert it once with `{PARQUET_TO_JSONL}`, then give the .jsonl file"
        )));
    }
    let head = String::from_utf8_lossy(&first);
    let head = head.trim_start_matches('\u{feff}').trim_start();
    let json = head.is_empty() || head.starts_with('{');
    let set = match set {
        Some(s) => s,
        None if json => json_set(head),
        // Named from the header once it is parsed (`table`).
        None => SetName::Own,
    };
    let questions = if json {
        let chained = BufReader::new(std::io::Cursor::new(first).chain(reader));
        json_lines(chained, &origin, set, &failed)?
    } else {
        let delimiter = if head.contains('\t') { b'\t' } else { b',' };
        let chained = std::io::Cursor::new(first).chain(reader);
        table(chained, &origin, set, delimiter, &failed)?
    };
    let revision = crate::core::eval::browsecomp::hex(digest.borrow().clone().finish().as_ref());
    Ok(SetFile {
        set: questions.0,
        questions: questions.1,
        revision,
    })
}

/// The one command that turns a Parquet file (SealQA's) into the JSON Lines
/// eval reads (pyarrow only).
pub const PARQUET_TO_JSONL: &str = "python3 -c \"import json,sys,pyarrow.parquet as pq; [print(json.dumps(r,ensure_ascii=False,default=str)) for r in pq.read_table(sys.argv[1]).to_pylist()]\" seal-0.parquet > seal-0.jsonl";

/// The set a JSON Lines file is, from its first line: SealQA converted from
/// Parquet (a `question` and an `answer`, no `id`), else io-harness's own.
fn json_set(first: &str) -> SetName {
    match serde_json::from_str::<serde_json::Value>(first.trim()) {
        Ok(serde_json::Value::Object(o))
            if !o.contains_key("id") && o.contains_key("question") && o.contains_key("answer") =>
        {
            SetName::SealQa
        }
        _ => SetName::Own,
    }
}

type Failed<'a> = &'a dyn Fn(u64, std::io::Error) -> Error;

/// The questions of a JSON Lines file, a line at a time.
fn json_lines(
    mut reader: impl BufRead,
    origin: &str,
    set: SetName,
    failed: Failed<'_>,
) -> Result<(SetName, Vec<Question>)> {
    let mut own = QuestionSet::new(origin);
    let mut sealqa = match set {
        SetName::Own => None,
        SetName::SealQa => Some(SetRows::new(
            SetName::SealQa,
            origin,
            &["question", "answer"],
        )?),
        other => {
            return Err(Error::config(format!(
                "{origin}: --set {other} reads the published {other} file, a table; this file is JSON Lines (its first line is a JSON object)"
            )));
        }
    };
    let mut line = Vec::new();
    for n in 1u64.. {
        line.clear();
        let got = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| failed(n, e))?;
        if got == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        let at = usize::try_from(n).unwrap_or(usize::MAX);
        if line.len() > MAX_LINE_BYTES {
            return Err(line_too_long(origin, at));
        }
        let text = std::str::from_utf8(&line).map_err(|e| {
            Error::config(format!(
                "{origin}:{n}: not UTF-8 ({e}); save the file as UTF-8"
            ))
        })?;
        match &mut sealqa {
            Some(rows) => {
                let text = if n == 1 {
                    text.trim_start_matches('\u{feff}')
                } else {
                    text
                };
                if text.trim().is_empty() {
                    return Err(Error::config(format!(
                        "{origin}:{n}: the line is empty; every line is one question (remove the empty line)"
                    )));
                }
                rows.json_row(n, text)?;
            }
            None => own.line(at, text)?,
        }
    }
    match sealqa {
        Some(rows) => Ok((SetName::SealQa, rows.finish()?)),
        None => Ok((SetName::Own, own.finish()?)),
    }
}

/// The questions of a CSV or TSV file, a row at a time: its header names the
/// set unless `set` does.
fn table(
    reader: impl Read,
    origin: &str,
    set: SetName,
    delimiter: u8,
    failed: Failed<'_>,
) -> Result<(SetName, Vec<Question>)> {
    let mut csv = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(reader);
    let mut record = ::csv::StringRecord::new();
    let mut rows: Option<SetRows> = None;
    loop {
        let more = csv.read_record(&mut record).map_err(|e| {
            let line = e.position().map_or(1, |p| p.line());
            match e.into_kind() {
                ::csv::ErrorKind::Io(io) => failed(line, io),
                ::csv::ErrorKind::Utf8 { err, .. } => Error::config(format!(
                    "{origin}:{line}: not UTF-8 ({err}); save the file as UTF-8"
                )),
                other => Error::config(format!("{origin}:{line}: not a CSV row: {other:?}")),
            }
        })?;
        if !more {
            break;
        }
        let line = record.position().map_or(1, ::csv::Position::line);
        let cells: Vec<&str> = record.iter().collect();
        match &mut rows {
            Some(r) => r.row(line, &cells)?,
            None => {
                let named = match set {
                    SetName::Own => header_set(origin, &cells)?,
                    s => s,
                };
                rows = Some(SetRows::new(named, origin, &cells)?);
            }
        }
    }
    let rows = rows.ok_or_else(|| Error::config(format!("{origin}: the file is empty")))?;
    Ok((rows.set(), rows.finish()?))
}

/// The set a header names; refused naming what was found.
fn header_set(origin: &str, cells: &[&str]) -> Result<SetName> {
    let cleaned: Vec<&str> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == 0 {
                c.trim_start_matches('\u{feff}')
            } else {
                c
            }
            .trim()
        })
        .collect();
    SetName::of_header(&cleaned).ok_or_else(|| {
        let shown: String = cleaned.join(",").chars().take(120).collect();
        Error::config(format!(
            "{origin}:1: the header `{shown}` is not one of the sets eval reads (simpleqa, simpleqa-verified, frames, sealqa, deepsearchqa, browsecomp), and the file is not JSON Lines; name the set with --set NAME, or give one JSON object a line"
        ))
    })
}

/// What stopped a read: a line longer than the limit (its number), or a
/// file that grew past its limit while read (the bytes read).
#[derive(Debug, Clone, Copy)]
enum Over {
    Line(u64),
    File(u64),
}

/// The file as read: every byte into the digest, the file's limit kept (it
/// may grow while read), and no line longer than `MAX_LINE_BYTES` and its
/// line ending — a read that would pass either fails, saying which (`over`).
struct Bounded<R> {
    inner: R,
    digest: Rc<RefCell<ring::digest::Context>>,
    read: u64,
    line: u64,
    in_line: usize,
    over: Rc<Cell<Option<Over>>>,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        self.read += n as u64;
        if self.read > MAX_FILE_BYTES {
            self.over.set(Some(Over::File(self.read)));
            return Err(std::io::Error::other("the file grew past its limit"));
        }
        self.digest.borrow_mut().update(got);
        for &b in got {
            if b == b'\n' {
                self.line += 1;
                self.in_line = 0;
            } else {
                self.in_line += 1;
                if self.in_line > MAX_LINE_BYTES + 1 {
                    self.over.set(Some(Over::Line(self.line)));
                    return Err(std::io::Error::other("a line is over its limit"));
                }
            }
        }
        Ok(n)
    }
}

/// Refused unless `meta` is a regular file's, naming what it is.
fn regular(origin: &str, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::config(format!(
        "{origin} is not a regular file ({}); give a question file (JSON Lines, or a published set's CSV or TSV)",
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
