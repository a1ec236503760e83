//! A run's sources as a document to hand on: Markdown numbered references (title,
//! URL, the step, the quoted text when the vendor gave one, the day recorded), CSV
//! with a header row and RFC 4180 quoting (the `csv` crate's writer), or a JSON
//! array of objects. Pure: rows in, text out.
//!
//! A title, a quote and even a URL are whatever a web page or a vendor said, so
//! each format is made safe for where it is opened: JSON carries the stored text
//! exactly (its escaping is the reader's contract); a CSV cell that a spreadsheet
//! would read as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage
//! return) gets a leading `'`, as OWASP's CSV-injection guidance says; Markdown
//! links only http(s) URLs, escapes HTML and Markdown-active characters in all
//! text (so a quoted `<script>` or `![x](…)` shows as written and does nothing),
//! and drops control characters (NUL, ESC, …).

use std::str::FromStr;

use serde::Serialize;

use crate::core::error::{Error, Result};
use crate::core::id::RunId;
use crate::core::inert::{csv_cell as cell, markdown as inert};
use crate::store::CitationRow;

/// What `citations --format` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Numbered references.
    Markdown,
    /// A header row, then one row a citation.
    Csv,
    /// An array of objects.
    Json,
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Format> {
        match s {
            "markdown" | "md" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            other => Err(Error::refused(format!(
                "unknown export format \"{other}\"; use one of: markdown, csv, json"
            ))),
        }
    }
}

/// One exported citation.
#[derive(Debug, Serialize)]
struct Entry<'a> {
    n: usize,
    run_id: RunId,
    step: u32,
    url: &'a str,
    title: Option<&'a str>,
    cited_text: Option<&'a str>,
    recorded_at: Option<&'a str>,
}

/// `rows` (a run's citations, each with when its step was recorded) as `format`.
pub fn export(
    run: RunId,
    rows: &[(CitationRow, Option<String>)],
    format: Format,
) -> Result<String> {
    let entries: Vec<Entry<'_>> = rows
        .iter()
        .enumerate()
        .map(|(i, (c, at))| Entry {
            n: i + 1,
            run_id: c.run_id,
            step: c.step,
            url: &c.url,
            title: c.title.as_deref(),
            cited_text: c.cited_text.as_deref(),
            recorded_at: at.as_deref(),
        })
        .collect();
    match format {
        Format::Json => serde_json::to_string_pretty(&entries)
            .map_err(|e| Error::export("cannot write the sources as JSON", e)),
        Format::Csv => csv(&entries),
        Format::Markdown => Ok(markdown(run, &entries)),
    }
}

const HEADER: [&str; 7] = [
    "n",
    "run_id",
    "step",
    "url",
    "title",
    "cited_text",
    "recorded_at",
];

fn csv(entries: &[Entry<'_>]) -> Result<String> {
    let fail = |e: ::csv::Error| Error::export("cannot write the sources as CSV", e);
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER).map_err(fail)?;
    for e in entries {
        let text = |t: Option<&str>| t.map(cell).unwrap_or_default();
        w.write_record([
            e.n.to_string(),
            e.run_id.to_string(),
            e.step.to_string(),
            cell(e.url),
            text(e.title),
            text(e.cited_text),
            text(e.recorded_at),
        ])
        .map_err(fail)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::export("cannot write the sources as CSV", e.into_error()))?;
    String::from_utf8(bytes).map_err(|e| Error::export("the CSV is not UTF-8", e))
}

fn markdown(run: RunId, entries: &[Entry<'_>]) -> String {
    let mut out = format!("# Sources of run {run}\n\n");
    if entries.is_empty() {
        out.push_str("No citations were recorded.\n");
    }
    for e in entries {
        let title = e.title.filter(|t| !t.trim().is_empty());
        // The store's own timestamp; anything else there is left out.
        let day = e
            .recorded_at
            .and_then(|d| d.get(..10))
            .filter(|d| d.chars().all(|c| c.is_ascii_digit() || c == '-'));
        match web_link(e.url) {
            Some(url) => out.push_str(&format!(
                "{}. [{}](<{}>)",
                e.n,
                inert(title.unwrap_or(e.url)),
                destination(&url)
            )),
            // Not a web link: shown as text, never linked.
            None => {
                out.push_str(&format!("{}. ", e.n));
                if let Some(t) = title {
                    out.push_str(&format!("{} — ", inert(t)));
                }
                out.push_str(&format!("{} (not linked)", inert(e.url)));
            }
        }
        out.push_str(&format!(" — step {}", e.step));
        if let Some(day) = day {
            out.push_str(&format!(", recorded {day}"));
        }
        out.push('\n');
        if let Some(q) = e.cited_text.filter(|q| !q.trim().is_empty()) {
            out.push_str(&format!("   > {}\n", inert(q)));
        }
    }
    out
}

/// The URL to link to, when it is an http(s) one (as the URL parser writes it).
fn web_link(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    matches!(parsed.scheme(), "http" | "https").then(|| parsed.to_string())
}

/// A URL as a `<…>` link destination, which may hold no `<`, `>`, space or line
/// break: those percent-encoded (the URL parser has already encoded most).
fn destination(url: &str) -> String {
    url.chars()
        .filter(|c| !c.is_control())
        .map(|ch| match ch {
            '<' => "%3C".to_string(),
            '>' => "%3E".to_string(),
            ' ' => "%20".to_string(),
            '\\' => "%5C".to_string(),
            ch => ch.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<(CitationRow, Option<String>)> {
        vec![
            (
                CitationRow {
                    run_id: RunId(7),
                    step: 1,
                    url: "https://docs.rs/a".into(),
                    title: Some("A, \"quoted\"".into()),
                    cited_text: Some("line one\nline two".into()),
                },
                Some("2026-12-04T01:02:03.000Z".into()),
            ),
            (
                CitationRow {
                    run_id: RunId(7),
                    step: 2,
                    url: "https://crates.io/b".into(),
                    title: None,
                    cited_text: None,
                },
                None,
            ),
        ]
    }

    #[test]
    fn csv_has_a_header_and_quotes_as_rfc_4180_says() {
        let text = export(RunId(7), &rows(), Format::Csv).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("n,run_id,step,url,title,cited_text,recorded_at")
        );
        assert!(
            text.contains("\"A, \"\"quoted\"\"\",\"line one\nline two\""),
            "{text}"
        );
        assert!(text.ends_with("2,7,2,https://crates.io/b,,,\n"), "{text}");
    }

    #[test]
    fn markdown_numbers_the_references_with_their_quotes_and_days() {
        let text = export(RunId(7), &rows(), Format::Markdown).unwrap();
        assert_eq!(
            text,
            "# Sources of run 7\n\n1. [A, \"quoted\"](<https://docs.rs/a>) — step 1, recorded 2026-12-04\n   > line one line two\n2. [https://crates.io/b](<https://crates.io/b>) — step 2\n"
        );
    }

    #[test]
    fn a_title_or_url_cannot_break_the_markdown_link() {
        let (mut c, at) = rows().remove(0);
        c.title = Some("[PDF] a ] b \\ c".into());
        c.url = "https://x.test/a b<c>".into();
        let text = export(RunId(7), &[(c, at)], Format::Markdown).unwrap();
        assert!(
            text.contains("1. [\\[PDF\\] a \\] b \\\\ c](<https://x.test/a%20b%3Cc%3E>) — step 1"),
            "{text}"
        );
    }

    #[test]
    fn json_is_an_array_of_objects_and_a_wrong_format_is_named() {
        let v: serde_json::Value =
            serde_json::from_str(&export(RunId(7), &rows(), Format::Json).unwrap()).unwrap();
        assert_eq!(v[0]["url"], "https://docs.rs/a");
        assert_eq!(v[1]["title"], serde_json::Value::Null);
        assert_eq!(
            "xml".parse::<Format>().unwrap_err().to_string(),
            "unknown export format \"xml\"; use one of: markdown, csv, json"
        );
    }

    #[test]
    fn only_web_urls_are_linked() {
        assert_eq!(
            web_link("HTTPS://X.test/a").as_deref(),
            Some("https://x.test/a")
        );
        for not in [
            "javascript:alert(1)",
            "JavaScript:x",
            "data:text/html,<b>",
            "file:///etc/passwd",
            "/relative",
            "x",
        ] {
            assert_eq!(web_link(not), None, "{not}");
        }
    }

    #[test]
    fn a_url_that_is_not_a_web_link_is_shown_not_linked() {
        let (mut c, at) = rows().remove(0);
        c.url = "javascript:alert(1)".into();
        c.title = Some("click".into());
        c.cited_text = Some("<b>x</b>".into());
        let text = export(RunId(7), &[(c, at)], Format::Markdown).unwrap();
        assert_eq!(
            text,
            "# Sources of run 7\n\n1. click — javascript:alert\\(1\\) (not linked) — step 1, recorded 2026-12-04\n   > &lt;b&gt;x&lt;/b&gt;\n"
        );
    }
}
