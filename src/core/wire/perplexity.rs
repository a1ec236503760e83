//! What Perplexity's two wires share (`perplexity_agent`, `perplexity_sonar`):
//! how its answers cite — `[n]` markers in the text, each naming one source of
//! the list the answer came with (Sonar's `citations`, the Agent API's
//! `search_results` by `id`) — its `<think>` blocks, its own cost in dollars, and
//! the domain filter it takes (`search_domain_filter`, a blocked domain written
//! with a leading `-`).
//!
//! The sources and the markers do not always pair one to one: a source may be
//! cited by no marker, and a marker may name no source. Every source is kept as
//! a citation; those a marker names carry the sentence that cites them as their
//! cited text, and each marker is a claim over that sentence — so which sources
//! the answer cited, and for what, is told apart from what the search merely
//! found. Pure: no I/O.

use serde_json::Value;

use std::collections::{HashMap, HashSet};

use crate::core::completion::{Citation, Claim, ClaimSet};
use crate::core::web::WebAccess;

/// One source an answer came with: its URL, its title where given, and the
/// number its `[n]` markers name it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Source {
    /// What `[n]` names it by (Sonar: its 1-based place; the Agent API: its `id`).
    pub n: u64,
    /// Where it is.
    pub url: String,
    /// Its title, where the vendor gave one.
    pub title: Option<String>,
}

/// `search_domain_filter`: the allow-list as written, or the block-list each
/// with a leading `-` (the vendor takes one or the other, never both).
pub(crate) fn domain_filter(web: &WebAccess) -> Vec<String> {
    let (allowed, blocked) = web.vendor_filter();
    if allowed.is_empty() {
        blocked.into_iter().map(|h| format!("-{h}")).collect()
    } else {
        allowed
    }
}

/// The answer without its `<think>` blocks (a reasoning model's chain of
/// thought, inline in the content): those stay in the answer's blocks, apart
/// from the answer. An unclosed block runs to the end.
pub(crate) fn without_think(text: String) -> String {
    if !text.contains("<think>") {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(open) = rest.find("<think>") {
        out.push_str(&rest[..open]);
        rest = match rest[open..].find("</think>") {
            Some(close) => &rest[open + close + "</think>".len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out.trim_start().to_string()
}

/// The `[n]` markers of `text`: for each run of adjacent markers (`[2][3]`),
/// where the run starts and the numbers in it.
fn markers(text: &str) -> Vec<(usize, Vec<u64>)> {
    let bytes = text.as_bytes();
    let mut out: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut run_end = None;
    let mut i = 0;
    // Each `[` found by `str::find` (a fast search), not byte by byte.
    while let Some(k) = text.get(i..).and_then(|rest| rest.find('[')) {
        i += k;
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let close = i + 1 + digits;
        let number = (digits > 0 && digits < 5 && bytes.get(close) == Some(&b']'))
            .then(|| text[i + 1..close].parse::<u64>().ok())
            .flatten();
        let Some(n) = number else {
            i += 1;
            continue;
        };
        match out.last_mut() {
            Some((_, ns)) if run_end == Some(i) => ns.push(n),
            _ => out.push((i, vec![n])),
        }
        i = close + 1;
        run_end = Some(i);
    }
    out
}

/// The claims of the answer's markers: each run of markers claims the sentence
/// before it (back to the previous marker, a line break or the end of a
/// sentence) and the markers themselves (so a sentence splitter that parts
/// `sources.[2][3]` after the full stop finds the markers cited too), for the
/// sources its numbers name; numbers naming no source are passed over.
pub(crate) fn claims(set: &mut ClaimSet, text: &str, sources: &[Source]) {
    // A number's source found by a map, not a scan, past a few: as many markers
    // as sources cost time in proportion to them, not to their product.
    let by_n: Option<HashMap<u64, &str>> = (sources.len() > SCANNED).then(|| {
        let mut m = HashMap::with_capacity(sources.len());
        for s in sources {
            m.entry(s.n).or_insert(s.url.as_str());
        }
        m
    });
    let url_of = |n: u64| match &by_n {
        Some(m) => m.get(&n).copied(),
        None => sources.iter().find(|s| s.n == n).map(|s| s.url.as_str()),
    };
    let mut last_end = 0;
    for (at, numbers) in markers(text) {
        let start = sentence_start(text, last_end, at);
        let end = text[at..]
            .find(|c: char| c != '[' && c != ']' && !c.is_ascii_digit())
            .map_or(text.len(), |k| at + k);
        for n in numbers {
            if let Some(url) = url_of(n) {
                if at > start {
                    set.add(text, start, end, url);
                }
            }
        }
        last_end = end;
    }
}

/// How many sources are scanned before a map or a set finds them (a scan of a
/// few is cheaper than hashing them).
pub(crate) const SCANNED: usize = 16;

/// A claimed span without its markers: the sentence that cites.
pub(crate) fn without_markers(span: &str) -> &str {
    let mut s = span.trim_end();
    while let Some(rest) = s.strip_suffix(']') {
        let digits = rest.len() - rest.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        match rest[..rest.len() - digits].strip_suffix('[') {
            Some(before) if digits > 0 => s = before.trim_end(),
            _ => break,
        }
    }
    s
}

/// Where the sentence ending at `at` begins: after the last sentence end (`. `,
/// `! `, `? `) or line break between `from` and `at`, leading white space
/// skipped; the sentence's own closing mark (`types.[7]`) is not its start.
fn sentence_start(text: &str, from: usize, at: usize) -> usize {
    let from = from.min(at);
    let piece = &text[from..at];
    let body = piece.trim_end_matches(['.', '!', '?', ' ']);
    // A mark ends a sentence where white space and a word not in lower case
    // follow it (`U.S. data` goes on; `sources. Recent` does not).
    let ends = |k: usize| {
        let after = &body[k + 1..];
        let next = after.trim_start();
        after.starts_with(char::is_whitespace) && !next.starts_with(char::is_lowercase)
    };
    // The last line break, or mark that ends a sentence, in one pass back (the
    // four are ASCII: no byte of a longer character is one of them).
    let cut = body
        .bytes()
        .enumerate()
        .rev()
        .find(|&(k, b)| b == b'\n' || (matches!(b, b'.' | b'!' | b'?') && ends(k)))
        .map_or(0, |(k, _)| k + 1);
    let lead = body[cut..].len() - body[cut..].trim_start().len();
    from + cut + lead
}

/// Every source as a citation, in order, each URL once; a source a marker names
/// carries the first span that cites it as its cited text.
pub(crate) fn citations(text: &str, sources: Vec<Source>, claims: &[Claim]) -> Vec<Citation> {
    // The URLs already listed by a set past a few. A source's first claim is
    // a scan of the claims' links, which the caps hold to `MAX_CITATIONS`.
    let many = sources.len() > SCANNED;
    let mut seen: HashSet<String> = HashSet::new();
    let mut out: Vec<Citation> = Vec::new();
    for s in sources {
        let listed = if many {
            !seen.insert(s.url.clone())
        } else {
            out.iter().any(|c| c.url == s.url)
        };
        if listed {
            continue;
        }
        let cited = claims
            .iter()
            .find(|c| c.urls.contains(&s.url))
            .map(|c| without_markers(c.text(text)).to_string())
            .filter(|t| !t.is_empty());
        out.push(Citation {
            url: s.url,
            title: s.title.filter(|t| !t.trim().is_empty()),
            cited_text: cited,
        });
    }
    out
}

/// A cost in US dollars as millionths: `None` for anything that is not a
/// finite, non-negative amount.
pub(crate) fn micro_usd(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_f64)
        .filter(|c| c.is_finite() && *c >= 0.0 && *c < 1e9)
        .map(|c| (c * 1e6).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: u64, url: &str) -> Source {
        Source {
            n,
            url: url.into(),
            title: None,
        }
    }

    #[test]
    fn a_marker_claims_its_sentence_and_a_run_names_each_source() {
        let text = "First fact.[1] Second fact, twice cited.[2][3]\n- a list item[9]";
        let sources = [source(1, "a"), source(2, "b"), source(3, "c")];
        let mut set = ClaimSet::new(10);
        claims(&mut set, text, &sources);
        let (claims, cut) = set.finish();
        assert_eq!(cut, 0);
        let spans: Vec<(&str, Vec<String>)> = claims
            .iter()
            .map(|c| (without_markers(c.text(text)), c.urls.clone()))
            .collect();
        assert_eq!(
            spans,
            [
                ("First fact.", vec!["a".to_string()]),
                ("Second fact, twice cited.", vec!["b".into(), "c".into()]),
            ]
        );
        assert_eq!(claims[1].text(text), "Second fact, twice cited.[2][3]");
        let cites = citations(text, sources.to_vec(), &claims);
        assert_eq!(cites.len(), 3);
        assert_eq!(
            cites[2].cited_text.as_deref(),
            Some("Second fact, twice cited.")
        );
    }

    #[test]
    fn think_blocks_are_kept_apart_and_brackets_that_are_not_markers_stay() {
        assert_eq!(
            without_think("<think>why</think>\n\nAnswer [x].".into()),
            "Answer [x]."
        );
        assert_eq!(without_think("no thoughts".into()), "no thoughts");
        assert_eq!(without_think("Answer<think>cut off".into()), "Answer");
        assert!(markers("a [link](u) and [2024 ] and []").is_empty());
    }
}
