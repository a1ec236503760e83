//! Turning any config mistake into one line an operator can act on, naming the
//! file, the line, the table and the key, and what is expected there:
//! `io.toml:7: `max_uses` in [web]: -1 is not allowed; expected a whole number from 1 to 10000`.
//!
//! Generic by construction: the key and table come from the document's own spans
//! (`toml::de::DeTable`), not from a list of known keys, so a key added later gets
//! the same message shape without touching this file. Serde's wording (`expected
//! u32`, `invalid type: string "yes"`) is translated into words, not passed on.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::locate::{Problem, Seg, line_of};
use crate::core::error::Error;

impl From<usize> for Seg {
    fn from(i: usize) -> Self {
        Seg::Index(i)
    }
}

/// Every key of a document with where its key and value sit.
struct Entry {
    path: Vec<Seg>,
    key: Range<usize>,
    value: Range<usize>,
    /// TOML's name for the value's type (`datetime`, `integer`, …).
    kind: &'static str,
}

/// The document's key spans, for naming what an offset or a path points at.
pub(crate) struct Spans {
    entries: Vec<Entry>,
}

impl Spans {
    /// Index a document; a document that does not parse indexes what it can.
    pub(crate) fn of(text: &str) -> Spans {
        let (table, _) = DeTable::parse_recoverable(text);
        let mut entries = Vec::new();
        walk_table(table.get_ref(), &mut Vec::new(), &mut entries);
        Spans { entries }
    }

    /// The path of the innermost key whose key or value holds `offset`.
    fn at(&self, offset: usize) -> Option<&Entry> {
        self.entries
            .iter()
            .filter(|e| e.key.contains(&offset) || e.value.contains(&offset))
            .max_by_key(|e| (e.path.len(), std::cmp::Reverse(e.value.len())))
    }

    /// Where a path's key is written.
    fn find(&self, path: &[Seg]) -> Option<&Entry> {
        self.entries.iter().find(|e| e.path == path)
    }
}

fn walk_table(table: &DeTable<'_>, path: &mut Vec<Seg>, out: &mut Vec<Entry>) {
    for (key, value) in table.iter() {
        let seg = Seg::Key(key.get_ref().to_string());
        enter(seg, key.span(), value, path, out);
    }
}

fn walk_value(value: &DeValue<'_>, path: &mut Vec<Seg>, out: &mut Vec<Entry>) {
    match value {
        DeValue::Table(t) => walk_table(t, path, out),
        DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                enter(Seg::Index(i), item.span(), item, path, out);
            }
        }
        _ => {}
    }
}

/// One key (or array item) of a document: its entry, then what it holds.
fn enter(
    seg: Seg,
    key: Range<usize>,
    value: &Spanned<DeValue<'_>>,
    path: &mut Vec<Seg>,
    out: &mut Vec<Entry>,
) {
    path.push(seg);
    out.push(Entry {
        path: path.clone(),
        key,
        value: value.span(),
        kind: value.get_ref().type_str(),
    });
    walk_value(value.get_ref(), path, out);
    path.pop();
}

/// `[web]`, `[providers.anthropic]`, `[[agent]] #2`, `[prices."m-1"]`, or "the top
/// level": the table that holds the last key of `path`.
pub(crate) fn table_name(path: &[Seg]) -> String {
    let parent = &path[..path.len().saturating_sub(1)];
    if parent.is_empty() {
        return "the top level".to_string();
    }
    let mut name = String::new();
    let mut entry = None;
    for seg in parent {
        match seg {
            Seg::Key(k) => {
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(&bare_or_quoted(k));
            }
            Seg::Index(i) => entry = Some(*i),
        }
    }
    match entry {
        Some(i) => format!("[[{name}]] #{}", i + 1),
        None => format!("[{name}]"),
    }
}

fn bare_or_quoted(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

/// "`key` in [table]" for a path.
pub(crate) fn subject(path: &[Seg]) -> String {
    let key = match path.last() {
        Some(Seg::Key(k)) => k.clone(),
        Some(Seg::Index(i)) => format!("entry {}", i + 1),
        None => return "the file".to_string(),
    };
    // An array element is named through its array's key.
    if let (Some(Seg::Index(i)), Some(Seg::Key(k))) = (
        path.last(),
        path.len().checked_sub(2).and_then(|n| path.get(n)),
    ) {
        return format!(
            "entry {} of `{k}` in {}",
            i + 1,
            table_name(&path[..path.len() - 1])
        );
    }
    format!("`{key}` in {}", table_name(path))
}

/// The error for the first problem in file order.
pub(crate) fn first_problem(problems: Vec<Problem>, text: &str, origin: &str) -> Option<Error> {
    let spans = Spans::of(text);
    problems
        .into_iter()
        .map(|p| {
            let line = spans
                .find(&p.path)
                .or_else(|| spans.find(&p.path[..p.path.len().saturating_sub(1)]))
                .map(|e| line_of(text, e.key.start));
            (line, p)
        })
        .min_by_key(|(line, _)| line.unwrap_or(usize::MAX))
        .map(|(line, p)| {
            let at = line.map(|l| format!(":{l}")).unwrap_or_default();
            Error::config(format!("{origin}{at}: {}: {}", subject(&p.path), p.message))
        })
}

/// The error for a document toml or serde refused.
pub(crate) fn describe(e: &toml::de::Error, text: &str, origin: &str) -> Error {
    let spans = Spans::of(text);
    let offset = e.span().map(|s| s.start);
    let at = offset
        .map(|o| format!(":{}", line_of(text, o)))
        .unwrap_or_default();
    let message = e.message().trim().replace('\n', " ");
    let entry = offset.and_then(|o| spans.at(o));
    let path: Vec<Seg> = entry.map(|e| e.path.clone()).unwrap_or_default();
    // Where the offset is on a key (not its value), the message is about the key.
    let on_key =
        matches!((entry, offset), (Some(e), Some(o)) if e.key.contains(&o) && e.key != e.value);
    let tidy = if let Some(rest) = message.strip_prefix("unknown field ") {
        let (key, expected) = rest.split_once(", expected").unwrap_or((rest, ""));
        let expected = expected
            .trim_start_matches(" one of")
            .trim()
            .replace(" or ", ", ")
            .replace('`', "");
        let table = table_name(&path);
        if expected.is_empty() || expected == "nothing" {
            format!("unknown key {key} in {table}; it takes no keys here")
        } else {
            format!("unknown key {key} in {table}; expected one of: {expected}")
        }
    } else if let Some(rest) = message.strip_prefix("unknown variant ") {
        let (name, expected) = rest.split_once(", expected").unwrap_or((rest, ""));
        let expected = expected
            .trim_start_matches(" one of")
            .trim()
            .replace('`', "");
        if on_key {
            format!(
                "unknown name {name} in {}; expected one of: {expected}",
                table_name(&path)
            )
        } else {
            format!(
                "{}: unknown name {name}; expected one of: {expected}",
                subject(&path)
            )
        }
    } else if let Some(rest) = message.strip_prefix("missing field ") {
        let field = rest.trim().trim_matches('`');
        let mut missing = path.clone();
        missing.push(Seg::Key(field.to_string()));
        format!(
            "{}: is missing; expected it to be set, since {} requires it",
            subject(&missing),
            table_name(&missing)
        )
    } else if let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
    {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        // A TOML date deserializes as a map; say what was written.
        let found = match entry {
            Some(e) if e.kind == "datetime" => format!(
                "a date or time, {}",
                text.get(e.value.clone()).unwrap_or_default()
            ),
            _ => found.replace('`', ""),
        };
        let expected = super::ranges::range_for(&path)
            .map_or_else(|| expected_words(expected), |r| r.expected());
        format!("{}: found {found}; expected {expected}", subject(&path))
    } else if message == "wanted string or table" {
        // A name (an enum) given a number, a list or a boolean: valid TOML of
        // the wrong type.
        let found = entry.map_or_else(String::new, |e| {
            let written = text.get(e.value.clone()).unwrap_or_default();
            format!(" {}", written.lines().next().unwrap_or_default())
        });
        let kind = entry.map_or("value", |e| e.kind);
        format!(
            "{}: found {kind}{found}; expected a string in quotes",
            subject(&path)
        )
    } else if message.starts_with("duplicate key") {
        set_twice(e, text, offset)
    } else {
        not_toml(text, offset, &message)
    };
    Error::config(format!("{origin}{at}: {tidy}"))
}

/// A key set twice, or a table defined twice, at `offset`.
fn set_twice(e: &toml::de::Error, text: &str, offset: Option<usize>) -> String {
    let key = e
        .span()
        .and_then(|s| text.get(s))
        .map(|k| k.trim().trim_matches('"').to_string())
        .unwrap_or_default();
    let header = offset.is_some_and(|o| line_starts_with_bracket(text, o));
    let mut dup = path_of_header_above(text, offset.unwrap_or(0));
    if header {
        let name = table_name(&[dup, vec![Seg::Key(String::new())]].concat());
        format!("the table {name} is defined twice; keep one and put all its keys there")
    } else {
        dup.push(Seg::Key(key));
        format!(
            "{}: is set twice (or also defined as a table); keep one",
            subject(&dup)
        )
    }
}

/// A syntax error at `offset`: the key is whatever the line assigns, if anything.
fn not_toml(text: &str, offset: Option<usize>, message: &str) -> String {
    let line_key = offset.and_then(|o| key_on_line(text, o));
    let mut here = path_of_header_above(text, offset.unwrap_or(0));
    let who = match line_key {
        Some(k) => {
            here.push(Seg::Key(k));
            subject(&here)
        }
        None => format!(
            "in {}",
            table_name(&[here, vec![Seg::Key(String::new())]].concat())
        ),
    };
    format!(
        "{who}: this is not valid TOML ({message}); expected `key = value` with strings in quotes"
    )
}

/// The words for serde's "expected …".
fn expected_words(expected: &str) -> String {
    let e = expected.trim();
    match e {
        "u8" | "u16" | "u32" | "u64" | "usize" => {
            let max: u64 = match e {
                "u8" => u8::MAX.into(),
                "u16" => u16::MAX.into(),
                "u32" => u32::MAX.into(),
                // TOML integers are signed 64-bit.
                _ => i64::MAX as u64,
            };
            format!("a whole number from 0 to {max}")
        }
        "i64" | "i32" => "a whole number".to_string(),
        "f64" | "f32" => "a number such as 3.0".to_string(),
        "a boolean" => "true or false (no quotes)".to_string(),
        "a string" => "a string in quotes".to_string(),
        "a sequence" => "a list, such as [\"a\", \"b\"]".to_string(),
        "a map" => "a table".to_string(),
        other if other.starts_with("struct ") => "a table".to_string(),
        other if other.starts_with("a borrowed string") => "a string in quotes".to_string(),
        other => other.replace('`', ""),
    }
}

fn line_starts_with_bracket(text: &str, offset: usize) -> bool {
    let start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |n| n + 1);
    text[start..].trim_start().starts_with('[')
}

/// The key a line assigns (`key = …`), from the line holding `offset`.
fn key_on_line(text: &str, offset: usize) -> Option<String> {
    let start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |n| n + 1);
    let line = text[start..].lines().next()?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty() && !key.starts_with('[') && !key.contains(char::is_whitespace))
        .then(|| key.to_string())
}

/// The path of the nearest `[table]` header at or above `offset`.
fn path_of_header_above(text: &str, offset: usize) -> Vec<Seg> {
    let start = offset.min(text.len());
    let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
    text[..end]
        .lines()
        .rev()
        .find_map(|l| {
            let t = l.trim();
            t.starts_with('[').then(|| {
                t.trim_start_matches('[')
                    .split(']')
                    .next()
                    .unwrap_or_default()
                    .split('.')
                    .map(|k| Seg::Key(k.trim().trim_matches('"').to_string()))
                    .collect()
            })
        })
        .unwrap_or_default()
}
