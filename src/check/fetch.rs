//! One cited URL fetched under `http_get`'s boundary, redirects followed by hand:
//! every hop is a new request — its URL parsed and normalised by the URL standard
//! (`2130706433`, `0x7f000001` and `0177.0.0.1` are `127.0.0.1`), its credentials
//! (userinfo) dropped, its host and port decided against the `[policy]` net rules,
//! its addresses resolved, checked and pinned (`run::net`) — on the first host
//! only, at most `MAX_REDIRECTS` of them, each recorded for the verdict's detail.

use crate::core::host::{net_target, normalise_host};
use crate::core::policy::{Act, Effect, Policy};
use crate::run::net::{pinned_client, resolve_checked};

use super::Limits;

/// Redirects followed before a check gives up on a URL.
pub(super) const MAX_REDIRECTS: usize = 5;

/// What fetching one URL gave.
#[derive(Debug, Clone)]
pub(super) enum Page {
    /// The page's bytes and its content type, when it said one (lowercase).
    Body(Vec<u8>, Option<String>),
    /// Reached, but not text a quote could be looked for in (a PDF, an image).
    NotText(String),
    Unreachable(String),
    NotAllowed(String),
}

/// A fetch: the page and the URLs requested, the first one included, when a
/// redirect was followed (for the verdict's detail).
pub(super) struct Fetched {
    pub(super) page: Page,
    pub(super) hops: Vec<String>,
}

/// Fetch `raw` (connect to last byte, every hop) by `deadline`.
pub(super) async fn fetch(
    raw: &str,
    policy: &Policy,
    limits: Limits,
    deadline: tokio::time::Instant,
) -> Fetched {
    let mut hops = Vec::new();
    let page =
        match tokio::time::timeout_at(deadline, follow(raw, policy, limits.max_bytes, &mut hops))
            .await
        {
            Ok(page) => page,
            Err(_) => Page::Unreachable(format!(
                "no whole answer within {} s",
                limits.timeout.as_secs()
            )),
        };
    if hops.len() < 2 {
        hops.clear();
    }
    Fetched { page, hops }
}

/// The URL, parsed, http(s), its credentials dropped.
fn parse(raw: &str) -> Result<url::Url, Page> {
    let mut url = match url::Url::parse(raw) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => u,
        Ok(u) => {
            return Err(Page::Unreachable(format!(
                "not an http(s) URL ({}); nothing was fetched",
                u.scheme()
            )));
        }
        Err(e) => {
            return Err(Page::Unreachable(format!(
                "not a URL ({e}); nothing was fetched"
            )));
        }
    };
    strip_credentials(&mut url);
    Ok(url)
}

/// Userinfo is never sent (reqwest would turn it into `Authorization: Basic`).
fn strip_credentials(url: &mut url::Url) {
    // Both fail only for a URL without a host, which is refused before a request.
    let _ = url.set_username("");
    let _ = url.set_password(None);
}

/// GET `raw`, following redirects on its host, each hop decided and checked
/// anew; `hops` gets every URL requested.
async fn follow(raw: &str, policy: &Policy, max: usize, hops: &mut Vec<String>) -> Page {
    let mut url = match parse(raw) {
        Ok(u) => u,
        Err(page) => return page,
    };
    let Some((first, _)) = net_target(&url) else {
        return Page::Unreachable("the URL has no host; nothing was fetched".to_string());
    };
    hops.push(url.to_string());
    for hop in 0..=MAX_REDIRECTS {
        let response = match request(&url, policy).await {
            Ok(r) => r,
            Err(page) => return page,
        };
        let status = response.status();
        if !status.is_redirection() {
            return body(response, max).await;
        }
        let Some(mut next) = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .and_then(|l| url.join(l).ok())
        else {
            return Page::Unreachable(format!("HTTP {} redirect to nowhere", status.as_u16()));
        };
        strip_credentials(&mut next);
        let same_host = matches!(next.scheme(), "http" | "https")
            && next.host_str().map(normalise_host).as_deref() == Some(first.as_str());
        // Google's grounding redirect leads to another host by design: it is
        // followed there, every hop still decided against the policy (its host
        // and the target's must both be allowed), resolved and checked anew.
        let google =
            crate::core::link::google_redirect(raw) && matches!(next.scheme(), "http" | "https");
        if !same_host && !google {
            return Page::Unreachable(format!(
                "HTTP {} redirect to another host ({next}), not followed",
                status.as_u16()
            ));
        }
        if hop == MAX_REDIRECTS {
            break;
        }
        hops.push(next.to_string());
        url = next;
    }
    Page::Unreachable(format!("more than {MAX_REDIRECTS} redirects"))
}

/// One request: its host and port decided against the policy, its addresses
/// resolved, checked and pinned.
async fn request(url: &url::Url, policy: &Policy) -> Result<reqwest::Response, Page> {
    let (Some(host), Some((name, port))) = (url.host_str(), net_target(url)) else {
        return Err(Page::Unreachable(
            "the URL has no host; nothing was fetched".to_string(),
        ));
    };
    // Decided on the host as a host (`example.com.` is `example.com`).
    let target = format!("{name}:{port}");
    let decision = policy.decide(Act::Net, &target);
    let rule = decision.rule.as_ref().map(|r| r.entry());
    match decision.effect {
        Effect::Allow => {}
        Effect::Deny => {
            return Err(Page::NotAllowed(format!(
                "denied by {}",
                rule.unwrap_or_else(|| "the policy".into())
            )));
        }
        Effect::Ask => {
            return Err(Page::NotAllowed(format!(
                "{} asks, and a check has nobody to ask: add \"net:{target}\" to [policy] allow in io.toml",
                rule.unwrap_or_else(|| "the policy".into())
            )));
        }
    }
    let named = policy.names(Act::Net, &target);
    let addrs = match resolve_checked(host, port, named).await {
        Ok(a) => a,
        Err(why) if why.starts_with("refused") => return Err(Page::NotAllowed(why)),
        Err(why) => return Err(Page::Unreachable(why)),
    };
    let client = pinned_client(host, &addrs).map_err(Page::Unreachable)?;
    client
        .get(url.clone())
        .send()
        .await
        .map_err(|e| Page::Unreachable(format!("GET failed: {e}")))
}

/// The body of a final answer, at most `max` bytes.
async fn body(mut response: reqwest::Response, max: usize) -> Page {
    let status = response.status();
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
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if bytes.len() + chunk.len() > max {
                    return Page::Unreachable(format!(
                        "the page is larger than {max} bytes; not read past them"
                    ));
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => return Page::Unreachable(format!("the page was cut off: {e}")),
        }
    }
    Page::Body(bytes, kind)
}

/// A content type whose body is text as it stands: `text/*`, XML, JSON.
fn textual(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.contains("xml")
        || content_type.contains("json")
}
