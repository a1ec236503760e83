//! Turning a toml error into one line an operator can act on:
//! `io.toml:7: unknown key `blocked_domain` in [web]; expected one of: …`.

use crate::error::Error;

/// The 1-based line of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The table a byte offset sits in, from the nearest header above it.
fn table_at(text: &str, offset: usize) -> String {
    // Up to the end of the offending line, so a header that holds the error counts.
    let start = offset.min(text.len());
    let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
    let before = &text[..end];
    before
        .lines()
        .rev()
        .find_map(|l| {
            let t = l.trim();
            t.starts_with('[').then(|| {
                t.trim_start_matches('[')
                    .split(']')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            })
        })
        .map_or_else(|| "the top level".to_string(), |t| format!("[{t}]"))
}

pub(crate) fn describe(e: &toml::de::Error, text: &str, origin: &str) -> Error {
    let offset = e.span().map(|s| s.start);
    let at = offset
        .map(|o| format!(":{}", line_of(text, o)))
        .unwrap_or_default();
    let table = offset
        .map(|o| table_at(text, o))
        .unwrap_or_else(|| "the file".into());
    let message = e.message().trim().replace('\n', " ");
    let tidy = if let Some(rest) = message.strip_prefix("unknown field ") {
        let (key, expected) = rest.split_once(", expected").unwrap_or((rest, ""));
        let expected = expected
            .trim_start_matches(" one of")
            .trim()
            .replace('`', "");
        if expected.is_empty() {
            format!("unknown key {key} in {table}")
        } else {
            format!("unknown key {key} in {table}; expected one of: {expected}")
        }
    } else if let Some(rest) = message.strip_prefix("unknown variant ") {
        let (name, expected) = rest.split_once(", expected").unwrap_or((rest, ""));
        format!(
            "unknown name {name} in {table}; expected{}",
            expected.replace('`', "")
        )
    } else {
        format!("{message} (in {table})")
    };
    Error::config(format!("{origin}{at}: {tidy}"))
}
