//! What a run's record means, defined once: its **final answer**, the **URLs
//! it cited**, a URL's **identity** (when two cited links are the same page)
//! and its **domain**. Claims, compare, eval, search hits, exports and the
//! Sources pane all read these, so no view can call a link new that another
//! merged, or grade an answer another did not show.
//!
//! - **final answer**: the text of the last step that has any (a step that
//!   only called tools says nothing); none when no step said anything.
//! - **cited URLs**: each citation's URL, in order, where `check-sources`
//!   followed it to another page (a Google grounding redirect, under the
//!   policy) the page it led to instead; a redirect the policy did not let it
//!   follow stays the redirect.
//! - **identity**: the URL standard's parse (scheme and host lowercased, the
//!   host to ASCII by IDNA, an IP address in its one form, the scheme's default
//!   port dropped), a host's trailing dot dropped, the fragment dropped, the
//!   tracking parameters below dropped (the rest kept in order), and a path's
//!   trailing `/` dropped (`/a/` is `/a`; the root stays `/`). Text that does
//!   not parse as a URL is its own identity, trimmed.
//! - **domain**: the identity's host with a leading `www.` folded
//!   (`www.docs.rs` is `docs.rs`); `None` without a host.
//!
//! Pure: string work, no lookup.

use std::collections::HashMap;

use crate::core::host::normalise_host;

/// The final answer among `steps` (in order): the last whose `text` is not
/// blank.
pub fn final_answer<T>(steps: &[T], text: impl Fn(&T) -> &str) -> Option<&T> {
    steps.iter().rev().find(|s| !text(s).trim().is_empty())
}

/// The URLs a run cited, in order (duplicates kept): each as cited, or where a
/// check followed it (`followed`: the cited URL to the page it led to) that page.
pub fn cited_urls<'a>(
    cited: impl IntoIterator<Item = &'a str>,
    followed: &HashMap<String, String>,
) -> Vec<String> {
    cited
        .into_iter()
        .map(|u| followed.get(u).cloned().unwrap_or_else(|| u.to_string()))
        .collect()
}

/// Query parameters that say who sent the reader, not which page: dropped.
/// `utm_*` by prefix, the rest by name.
pub const TRACKING_PARAMETERS: [&str; 9] = [
    "utm_", "gclid", "fbclid", "msclkid", "dclid", "yclid", "mc_cid", "mc_eid", "igshid",
];

/// Whether a query parameter is one of `TRACKING_PARAMETERS`.
pub fn is_tracking(key: &str) -> bool {
    key.starts_with("utm_") || TRACKING_PARAMETERS[1..].contains(&key)
}

/// The URL as two links to the same page both become (see the module).
pub fn identity(raw: &str) -> String {
    let raw = raw.trim();
    let Ok(mut u) = url::Url::parse(raw) else {
        return raw.to_string();
    };
    u.set_fragment(None);
    if let Some(host) = u.host_str().filter(|h| h.ends_with('.')) {
        let bare = host.trim_end_matches('.').to_string();
        // A host the parser accepted once is accepted without its dot.
        let _ = u.set_host(Some(&bare));
    }
    if u.query().is_some() {
        let kept: Vec<(String, String)> = u
            .query_pairs()
            .filter(|(k, _)| !is_tracking(k))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            u.set_query(None);
        } else if u.query_pairs().any(|(k, _)| is_tracking(&k)) {
            u.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    let path = u.path().to_string();
    if path.len() > 1 && path.ends_with('/') {
        u.set_path(path.trim_end_matches('/'));
    }
    u.to_string()
}

/// The URL's host as rules compare it (`core::host::normalise_host`); `None`
/// when it has none.
pub fn host(raw: &str) -> Option<String> {
    let u = url::Url::parse(raw.trim()).ok()?;
    u.host_str().filter(|h| !h.is_empty()).map(normalise_host)
}

/// The domain a page is on: its host with a leading `www.` folded.
pub fn domain(raw: &str) -> Option<String> {
    let host = host(raw)?;
    Some(match host.strip_prefix("www.") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => host,
    })
}

/// Whether `raw`'s domain is `want` or a subdomain of it (`want` as written
/// by an operator: lowercased and `www.` folded the same way).
pub fn on_domain(raw: &str, want: &str) -> bool {
    let want = domain(&format!("http://{}/", want.trim())).unwrap_or_default();
    domain(raw).is_some_and(|d| d == want || d.ends_with(&format!(".{want}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_page_has_one_identity() {
        for (a, b) in [
            ("https://Docs.RS/a#top", "https://docs.rs/a"),
            ("https://docs.rs:443/a/", "https://docs.rs/a"),
            ("https://docs.rs./a", "https://docs.rs/a"),
            (
                "https://crates.io/crates/x?utm_source=openai",
                "https://crates.io/crates/x",
            ),
            (
                "https://e.com/p?id=3&utm_medium=x&gclid=9",
                "https://e.com/p?id=3",
            ),
            ("https://bücher.example/", "https://xn--bcher-kva.example/"),
            ("  https://e.com/  ", "https://e.com/"),
        ] {
            assert_eq!(identity(a), identity(b), "{a} vs {b}");
        }
        assert_ne!(
            identity("https://e.com/a?id=1"),
            identity("https://e.com/a?id=2")
        );
        assert_ne!(identity("https://www.e.com/a"), identity("https://e.com/a"));
        assert_eq!(identity("not a url"), "not a url");
        assert_eq!(
            identity("https://e.com/p?a=1&b=2"),
            "https://e.com/p?a=1&b=2"
        );
    }

    #[test]
    fn a_domain_folds_www_and_nothing_else() {
        assert_eq!(domain("https://www.docs.rs/x"), Some("docs.rs".into()));
        assert_eq!(domain("https://WWW.Docs.rs./x"), Some("docs.rs".into()));
        assert_eq!(domain("https://api.docs.rs/x"), Some("api.docs.rs".into()));
        assert_eq!(domain("mailto:a@b.c"), None);
        assert!(on_domain("https://www.docs.rs/x", "docs.rs"));
        assert!(on_domain("https://api.docs.rs/x", "www.docs.rs"));
        assert!(!on_domain("https://evildocs.rs/x", "docs.rs"));
    }
}
