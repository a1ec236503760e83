//! `check-sources`: each distinct URL a run cited is fetched from this machine,
//! under the boundary `http_get` has — the `[policy]` net rules, every resolved
//! address checked (no loopback, private or link-local address unless a rule names
//! the host), the connection pinned to those addresses, no redirect to another host,
//! a size cap and a timeout, at most four at a time — and each citation's quoted
//! text, whitespace- and case-normalised, is looked for in the page's text (HTML
//! read with a real parser). One verdict a citation: `found`, `not_found`,
//! `no_quote`, `unreachable` or `not_allowed`. Opt-in, after the fact: a run's
//! outcome never depends on it.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;

use crate::core::event::RunId;
use crate::core::host::net_target;
use crate::core::policy::{Act, Effect, Policy};
use crate::error::{Error, Result};
use crate::run::net::{pinned_client, resolve_checked};
use crate::store::checks::CheckRow;
use crate::store::{CitationRow, Store};

/// How a check may fetch.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The largest page read, in bytes.
    pub max_bytes: usize,
    /// Connect to last byte, one page.
    pub timeout: Duration,
    /// Pages fetched at once.
    pub parallel: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 5 << 20,
            timeout: Duration::from_secs(20),
            parallel: 4,
        }
    }
}

/// What fetching one URL gave.
#[derive(Debug, Clone)]
enum Page {
    Text(String),
    /// Reached, but not text a quote could be looked for in (a PDF, an image).
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
) -> Result<Vec<CheckRow>> {
    if store.run(run_id)?.is_none() {
        return Err(Error::config(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        )));
    }
    let citations = store.citations(run_id)?;
    let mut urls: Vec<String> = citations.iter().map(|c| c.url.clone()).collect();
    urls.sort();
    urls.dedup();
    let pages: HashMap<String, Page> = futures_util::stream::iter(urls)
        .map(|url| async move {
            let page = fetch(&url, policy, limits).await;
            (url, page)
        })
        .buffer_unordered(limits.parallel.max(1))
        .collect()
        .await;
    let mut rows: Vec<CheckRow> = citations.iter().map(|c| verdict(c, &pages)).collect();
    let at = store.record_checks(run_id, &rows)?;
    for r in &mut rows {
        r.checked_at.clone_from(&at);
    }
    Ok(rows)
}

fn verdict(c: &CitationRow, pages: &HashMap<String, Page>) -> CheckRow {
    let (verdict, detail) = match pages.get(&c.url) {
        Some(Page::NotAllowed(why)) => ("not_allowed", Some(why.clone())),
        Some(Page::Unreachable(why)) => ("unreachable", Some(why.clone())),
        None => ("unreachable", Some("not fetched".to_string())),
        Some(Page::NotText(what)) => match quote(c) {
            None => (
                "no_quote",
                Some(format!(
                    "the vendor quoted nothing; the page was reachable ({what})"
                )),
            ),
            Some(_) => (
                "unreachable",
                Some(format!(
                    "reached, but {what}: the quote could not be looked for"
                )),
            ),
        },
        Some(Page::Text(text)) => match quote(c) {
            None => (
                "no_quote",
                Some("the vendor quoted nothing; the page was reachable".to_string()),
            ),
            Some(quote) if normalise(text).contains(&normalise(quote)) => ("found", None),
            Some(quote) => (
                "not_found",
                Some(format!("not on the page: {:?}", normalise(quote))),
            ),
        },
    };
    CheckRow {
        step: c.step,
        url: c.url.clone(),
        verdict: verdict.to_string(),
        detail,
        checked_at: String::new(),
    }
}

/// The citation's quoted text, unless it is blank.
fn quote(c: &CitationRow) -> Option<&str> {
    c.cited_text.as_deref().filter(|q| !q.trim().is_empty())
}

/// Lower case, every run of white space one space.
fn normalise(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

async fn fetch(raw: &str, policy: &Policy, limits: Limits) -> Page {
    let url = match url::Url::parse(raw) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => u,
        Ok(u) => {
            return Page::Unreachable(format!(
                "not an http(s) URL ({}); nothing was fetched",
                u.scheme()
            ));
        }
        Err(e) => return Page::Unreachable(format!("not a URL ({e}); nothing was fetched")),
    };
    let Some(host) = url.host_str().map(str::to_string) else {
        return Page::Unreachable("the URL has no host; nothing was fetched".to_string());
    };
    let Some((name, port)) = net_target(&url) else {
        return Page::Unreachable("the URL has no host; nothing was fetched".to_string());
    };
    // Decided on the host as a host (`example.com.` is `example.com`).
    let target = format!("{name}:{port}");
    let decision = policy.decide(Act::Net, &target);
    let rule = decision.rule.as_ref().map(|r| r.entry());
    match decision.effect {
        Effect::Allow => {}
        Effect::Deny => {
            return Page::NotAllowed(format!(
                "denied by {}",
                rule.unwrap_or_else(|| "the policy".into())
            ));
        }
        Effect::Ask => {
            return Page::NotAllowed(format!(
                "{} asks, and a check has nobody to ask: add \"net:{target}\" to [policy] allow in io.toml",
                rule.unwrap_or_else(|| "the policy".into())
            ));
        }
    }
    let named = policy.names(Act::Net, &target);
    let addrs = match resolve_checked(&host, port, named).await {
        Ok(a) => a,
        Err(why) if why.starts_with("refused") => return Page::NotAllowed(why),
        Err(why) => return Page::Unreachable(why),
    };
    let client = match pinned_client(&host, &addrs) {
        Ok(c) => c,
        Err(why) => return Page::Unreachable(why),
    };
    match tokio::time::timeout(limits.timeout, read(&client, url, &host, limits.max_bytes)).await {
        Ok(page) => page,
        Err(_) => Page::Unreachable(format!(
            "no whole answer within {} s",
            limits.timeout.as_secs()
        )),
    }
}

/// GET the page, following up to three redirects on the same host, reading at
/// most `max` bytes.
async fn read(client: &reqwest::Client, mut url: url::Url, host: &str, max: usize) -> Page {
    for _ in 0..4 {
        let response = match client.get(url.clone()).send().await {
            Ok(r) => r,
            Err(e) => return Page::Unreachable(format!("GET failed: {e}")),
        };
        let status = response.status();
        if status.is_redirection() {
            let to = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .and_then(|l| url.join(l).ok());
            match to {
                Some(next) if next.host_str() == Some(host) => {
                    url = next;
                    continue;
                }
                Some(next) => {
                    return Page::Unreachable(format!(
                        "HTTP {} redirect to another host ({next}), not followed",
                        status.as_u16()
                    ));
                }
                None => {
                    return Page::Unreachable(format!(
                        "HTTP {} redirect to nowhere",
                        status.as_u16()
                    ));
                }
            }
        }
        if !status.is_success() {
            return Page::Unreachable(format!("HTTP {}", status.as_u16()));
        }
        let kind = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(|t| t.to_ascii_lowercase());
        let html = kind.as_deref().is_none_or(|t| t.contains("html"));
        if let Some(t) = kind.as_deref().filter(|t| !html && !textual(t)) {
            return Page::NotText(format!("the page is {t}, not text or HTML"));
        }
        let mut body = Vec::new();
        let mut response = response;
        loop {
            match response.chunk().await {
                Ok(Some(bytes)) => {
                    if body.len() + bytes.len() > max {
                        return Page::Unreachable(format!(
                            "the page is larger than {max} bytes; not read past them"
                        ));
                    }
                    body.extend_from_slice(&bytes);
                }
                Ok(None) => break,
                Err(e) => return Page::Unreachable(format!("the page was cut off: {e}")),
            }
        }
        if body.contains(&0) {
            return Page::NotText("the page's bytes are not text (NUL bytes in them)".into());
        }
        let text = String::from_utf8_lossy(&body);
        return Page::Text(if html {
            html_text(&text)
        } else {
            text.into_owned()
        });
    }
    Page::Unreachable("more than three redirects".to_string())
}

/// A content type whose body is text as it stands: `text/*`, XML, JSON.
fn textual(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.contains("xml")
        || content_type.contains("json")
}

/// The text of an HTML document, read by a real parser (scripts and styles left
/// out): what a reader sees, for the quote to be looked for in.
fn html_text(html: &str) -> String {
    let doc = scraper::Html::parse_document(html);
    let mut out = String::new();
    for node in doc.root_element().descendants() {
        if let Some(text) = node.value().as_text() {
            let hidden = node
                .ancestors()
                .filter_map(|a| a.value().as_element())
                .any(|e| matches!(e.name(), "script" | "style" | "noscript" | "template"));
            if !hidden {
                out.push_str(text);
                out.push(' ');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_read_as_text_without_scripts_and_quotes_are_normalised() {
        let text = html_text(
            "<html><head><script>var quote = 'not this';</script></head><body><p>Release\n  <b>0.22.0</b> is   out</p></body></html>",
        );
        assert!(normalise(&text).contains(&normalise("release 0.22.0 IS out")));
        assert!(!text.contains("not this"));
        // Not HTML at all: still read, as text.
        assert!(html_text("plain words, no tags").contains("plain words"));
    }
}
