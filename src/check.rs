//! `check-sources`: each distinct URL a run cited is fetched from this machine,
//! under the boundary `http_get` has — the `[policy]` net rules, every resolved
//! address checked (no loopback, private or link-local address unless a rule names
//! the host), the connection pinned to those addresses, a size cap and a timeout,
//! at most four at a time. Redirects are followed on the same host only, each hop
//! a new request decided, resolved and checked on its own, credentials never sent
//! (`check::fetch`). Each citation's quoted text, whitespace- and case-normalised,
//! is looked for in the page's text (decoded by the charset it declares; HTML read by the standard's tokenizer, in
//! time linear in its size, within the same time limit as the fetch). One verdict a
//! citation: `found`, `not_found`, `no_quote`, `unreachable` or `not_allowed`,
//! the redirects followed named in its detail. Where the vendor quoted nothing,
//! the verdict stays `no_quote` and an `overlap` beside it says how much of the
//! claim's wording the page holds (`core::claims::overlap`: a hint, not proof). Opt-in, after the fact: a run's
//! outcome never depends on it.

use std::collections::HashMap;

use futures_util::StreamExt;

mod charset;
mod fetch;
mod limits;
mod text;

use crate::core::claims::{claim_wording, overlap};
use crate::core::error::{Error, Result};
use crate::core::id::RunId;
use crate::core::policy::Policy;
use crate::core::record::{canonical_link, wikipedia_redirect};
use crate::core::verdict::Verdict;
use crate::store::verdicts::VerdictRow;
use crate::store::{CitationRow, Store};
use fetch::{Fetched, Page, fetch};
pub use limits::Limits;

/// What a fetched page is for the verdicts.
enum Read {
    Text(String),
    NotText(String),
    Unreachable(String),
    NotAllowed(String),
}

/// Check every citation of `run_id` and record the verdicts; an unknown run is an
/// error naming it, and then nothing is recorded.
pub async fn check_run(
    store: &Store,
    run_id: RunId,
    policy: &Policy,
    limits: Limits,
) -> Result<Vec<VerdictRow>> {
    if store.run(run_id)?.is_none() {
        return Err(Error::refused(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        )));
    }
    let citations = store.citations(run_id)?;
    let wordings = wordings(store, run_id)?;
    // Each URL once, with the citations that cite it.
    let mut by_url: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, c) in citations.iter().enumerate() {
        by_url.entry(c.url.clone()).or_default().push(i);
    }
    // Each URL's verdicts are made as soon as its page arrives, and the page is
    // dropped then: what is kept grows with the citations, not with the pages.
    let done: Vec<Vec<(usize, VerdictRow)>> = futures_util::stream::iter(by_url)
        .map(|(url, cites)| check_url(url, cites, &citations, &wordings, policy, limits))
        .buffer_unordered(limits.parallel.max(1))
        .collect()
        .await;
    let mut done: Vec<(usize, VerdictRow)> = done.into_iter().flatten().collect();
    done.sort_by_key(|(i, _)| *i);
    let mut rows: Vec<VerdictRow> = done.into_iter().map(|(_, r)| r).collect();
    let at = store.record_verdicts(run_id, &rows)?;
    for r in &mut rows {
        r.checked_at.clone_from(&at);
    }
    Ok(rows)
}

/// What each citation (by step and URL) was cited for: the wording of every
/// claim of that step that names it (`core::claims::claim_wording`).
type Wordings = HashMap<(u32, String), Vec<String>>;

fn wordings(store: &Store, run_id: RunId) -> Result<Wordings> {
    let steps = store.steps(run_id)?;
    let mut out: Wordings = HashMap::new();
    for c in store.claims(run_id)? {
        let Some(step) = steps.iter().find(|s| s.step == c.step) else {
            continue;
        };
        let wording = claim_wording(&step.text, &c.claim);
        for url in &c.claim.urls {
            out.entry((c.step, url.clone()))
                .or_default()
                .push(wording.clone());
        }
    }
    Ok(out)
}

/// Fetch one URL, read its page as text, and give the verdicts of the citations
/// (`cites`, indices into `citations`) that cite it.
async fn check_url(
    url: String,
    cites: Vec<usize>,
    citations: &[CitationRow],
    wordings: &Wordings,
    policy: &Policy,
    limits: Limits,
) -> Vec<(usize, VerdictRow)> {
    // One limit for the whole check of the URL: fetching and reading it.
    let deadline = tokio::time::Instant::now() + limits.timeout;
    let Fetched { page, mut hops } = fetch(&url, policy, limits, deadline).await;
    let (read, canonical) = match page {
        Page::NotAllowed(why) => (Read::NotAllowed(why), None),
        Page::Unreachable(why) => (Read::Unreachable(why), None),
        Page::NotText(what) => (Read::NotText(what), None),
        Page::Body(bytes, kind) => {
            let reading = tokio::task::spawn_blocking(move || page_text(&bytes, kind.as_deref()));
            match tokio::time::timeout_at(deadline, reading).await {
                Ok(Ok(read)) => read,
                Ok(Err(e)) => (
                    Read::Unreachable(format!("the page could not be read: {e}")),
                    None,
                ),
                Err(_) => (
                    Read::Unreachable(format!(
                        "the page could not be read as text within {} s",
                        limits.timeout.as_secs()
                    )),
                    None,
                ),
            }
        }
    };
    // A Wikipedia redirect title is served without an HTTP redirect: its
    // page's canonical link names the article it led to, a hop of its own.
    let last = hops.last().cloned().unwrap_or_else(|| url.clone());
    if let Some(article) = canonical.and_then(|c| wikipedia_redirect(&last, &c)) {
        hops.push(article);
    }
    cites
        .into_iter()
        .filter_map(|i| {
            let c = citations.get(i)?;
            let claimed = wordings.get(&(c.step, c.url.clone()));
            Some((i, verdict(c, claimed, &read, &hops)))
        })
        .collect()
}

/// The text a quote is looked for in, normalised: the page decoded by the
/// charset it declares, HTML read as text (at most as many bytes as the page
/// has), other text as it stands.
fn page_text(bytes: &[u8], kind: Option<&str>) -> (Read, Option<String>) {
    let html = kind.is_none_or(|t| t.contains("html"));
    let encoding = charset::encoding_of(bytes, kind, html);
    // NUL bytes are text only in UTF-16, which says so.
    if encoding.is_ascii_compatible() && bytes.contains(&0) {
        let why = "the page's bytes are not text (NUL bytes in them)";
        return (Read::NotText(why.into()), None);
    }
    let text = charset::decode(bytes, encoding);
    // An HTML page's canonical link (a Wikipedia redirect title's article).
    let canonical = html.then(|| canonical_link(&text)).flatten();
    let read = Read::Text(normalise(&if html {
        text::html_text(&text, text.len())
    } else {
        text.into_owned()
    }));
    (read, canonical)
}

fn verdict(
    c: &CitationRow,
    claimed: Option<&Vec<String>>,
    read: &Read,
    hops: &[String],
) -> VerdictRow {
    // Where the vendor quoted nothing: how much of the claim's wording the page has.
    let overlap = match read {
        Read::Text(text) if quote(c).is_none() => claimed
            .into_iter()
            .flatten()
            .filter_map(|w| overlap(w, text))
            .reduce(f64::max),
        _ => None,
    };
    let (verdict, detail) = match read {
        Read::NotAllowed(why) => (Verdict::NotAllowed, Some(why.clone())),
        Read::Unreachable(why) => (Verdict::Unreachable, Some(why.clone())),
        Read::NotText(what) => match quote(c) {
            None => (
                Verdict::NoQuote,
                Some(format!(
                    "the vendor quoted nothing; the page was reachable ({what})"
                )),
            ),
            Some(_) => (
                Verdict::Unreachable,
                Some(format!(
                    "reached, but {what}: the quote could not be looked for"
                )),
            ),
        },
        Read::Text(text) => match quote(c) {
            None => (
                Verdict::NoQuote,
                Some(match overlap {
                    Some(o) => format!(
                        "the vendor quoted nothing; the page was reachable and holds {:.0}% of the claim's content words (a lexical overlap: a hint, not proof)",
                        o * 100.0
                    ),
                    None => "the vendor quoted nothing; the page was reachable".to_string(),
                }),
            ),
            Some(quote) if text.contains(&normalise(quote)) => (Verdict::Found, None),
            Some(quote) => (
                Verdict::NotFound,
                Some(format!("not on the page: {:?}", normalise(quote))),
            ),
        },
    };
    let detail = match (detail, hops.is_empty()) {
        (detail, true) => detail,
        (None, false) => Some(format!("redirected: {}", hops.join(" -> "))),
        (Some(d), false) => Some(format!("{d}; redirected: {}", hops.join(" -> "))),
    };
    // Where a redirecting link led, kept beside the link as cited — only where
    // it was followed: a target the policy refused was never reached.
    let followed = !matches!(read, Read::NotAllowed(_));
    let resolved_url = hops
        .last()
        .filter(|last| followed && **last != c.url)
        .cloned();
    VerdictRow {
        run_id: c.run_id,
        step: c.step,
        url: c.url.clone(),
        verdict,
        detail,
        overlap,
        checked_at: String::new(),
        resolved_url,
    }
}

/// The citation's quoted text, unless it is blank.
fn quote(c: &CitationRow) -> Option<&str> {
    c.cited_text.as_deref().filter(|q| !q.trim().is_empty())
}

/// Lower case, every run of white space one space. Built in one string: a page
/// of a million words is not first a million strings.
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        // A word at a time, so a final sigma still lowers as a final sigma.
        out.push_str(&word.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn normalising_lowers_each_word_and_joins_them_with_one_space() {
        let text = "  The  QUICK\tbrown\n\nFOX — ΟΔΟΣ  İstanbul ";
        let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        assert_eq!(normalise(text), words.join(" "));
        assert_eq!(normalise("ΟΔΟΣ"), "οδος");
        assert_eq!(normalise(" \n "), "");
    }
}
