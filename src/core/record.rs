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
//! - **a Wikipedia article** has one identity whichever of its URL forms is
//!   cited (`wikipedia`): the mobile host (`en.m.wikipedia.org`) is the
//!   desktop one, `http` is `https`, `/w/index.php?title=T` is `/wiki/T`, and
//!   the title is read as MediaWiki reads it — percent-decoded, a space is
//!   `_`, the first letter upper case — then written in one encoding. A title
//!   that redirects (`/wiki/USA`) is another URL until `check-sources` fetched
//!   it and recorded the page's canonical link as where it led (`resolved_url`).
//! - **domain**: the identity's host with a leading `www.` folded
//!   (`www.docs.rs` is `docs.rs`) and Wikipedia's mobile host folded into its
//!   desktop one; `None` without a host.
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

/// Query parameters that say who sent the reader, not which page, are dropped:
/// every one named with this prefix (`utm_source`, `utm_medium`, …) …
pub const TRACKING_PREFIX: &str = "utm_";

/// … and these, by name.
pub const TRACKING_PARAMETERS: [&str; 8] = [
    "gclid", "fbclid", "msclkid", "dclid", "yclid", "mc_cid", "mc_eid", "igshid",
];

/// Whether a query parameter is a tracking one (`TRACKING_PREFIX`,
/// `TRACKING_PARAMETERS`).
pub fn is_tracking(key: &str) -> bool {
    key.starts_with(TRACKING_PREFIX) || TRACKING_PARAMETERS.contains(&key)
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
    wikipedia(&mut u);
    u.to_string()
}

/// A Wikipedia host's desktop form (`en.m.wikipedia.org` → `en.wikipedia.org`);
/// `None` for a host that is not a Wikipedia language's.
fn wikipedia_host(host: &str) -> Option<String> {
    let lang = host.strip_suffix(".wikipedia.org")?;
    let lang = lang.strip_suffix(".m").unwrap_or(lang);
    (!lang.is_empty() && !lang.contains('.')).then(|| format!("{lang}.wikipedia.org"))
}

/// A Wikipedia article's URL in its one form (see the module); other URLs as
/// they are.
fn wikipedia(u: &mut url::Url) {
    let Some(host) = u.host_str().and_then(wikipedia_host) else {
        return;
    };
    let title = match u.path().strip_prefix("/wiki/") {
        Some(t) if u.query().is_none() => Some(t.to_string()),
        Some(_) => None,
        None if u.path() == "/w/index.php" => {
            let pairs: Vec<(String, String)> = u.query_pairs().into_owned().collect();
            match pairs.as_slice() {
                [(k, t)] if k == "title" => Some(t.replace(' ', "_")),
                _ => None,
            }
        }
        None => None,
    };
    let _ = u.set_host(Some(&host));
    if u.scheme() == "http" {
        let _ = u.set_scheme("https");
    }
    let Some(title) = title.filter(|t| !t.is_empty()) else {
        return;
    };
    let decoded = percent_decoded(&title).replace(' ', "_");
    let mut chars = decoded.chars();
    let title: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return,
    };
    u.set_query(None);
    u.set_path(&format!("/wiki/{title}"));
}

/// The `href` of an HTML page's `<link rel="canonical">` (the first), with
/// `&amp;` read as `&`; `None` without one. Only the page's first 256 KiB are
/// looked at (the link is in its head).
pub fn canonical_link(html: &str) -> Option<String> {
    let head = html.get(..html.len().min(256 << 10)).unwrap_or(html);
    let lower = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("<link") {
        let start = from + i;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        from = end;
        let rel = attribute(tag, "rel").unwrap_or_default();
        if !rel.split_ascii_whitespace().any(|r| r == "canonical") {
            continue;
        }
        // The value as written (case kept), at the offset found in the lowered tag.
        let at = tag.find("href")?;
        let written = &head[start + at..end];
        return attribute(written, "href").map(|h| h.replace("&amp;", "&"));
    }
    None
}

/// The value of attribute `name` in the start of a tag (`tag` from `name`'s
/// first occurrence on), quoted or not.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(name)?;
    let rest = tag[at + name.len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let value = match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].split(q).next()?,
        _ => rest
            .split(|c: char| c.is_ascii_whitespace() || c == '/')
            .next()?,
    };
    Some(value.to_string())
}

/// Where a cited Wikipedia article led when its page's canonical link names
/// another article of the same Wikipedia (a redirect title such as
/// `/wiki/USA`, served as `United_States`): that article's identity; `None`
/// for any other page, or when the canonical link is the cited article itself.
pub fn wikipedia_redirect(cited: &str, canonical: &str) -> Option<String> {
    let (from, to) = (identity(cited), identity(canonical));
    let article = |u: &str| {
        let parsed = url::Url::parse(u).ok()?;
        let host = parsed.host_str().and_then(wikipedia_host)?;
        parsed.path().starts_with("/wiki/").then_some(host)
    };
    let (a, b) = (article(&from)?, article(&to)?);
    (a == b && from != to).then_some(to)
}

/// `%XX` sequences decoded; the result read as UTF-8 (a sequence that is not
/// is kept as written).
fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'%'));
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
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
    if let Some(desktop) = wikipedia_host(&host) {
        return Some(desktop);
    }
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
        assert_eq!(
            identity("HTTPS://Crates.io/crates/io-harness/?utm_source=openai#x"),
            "https://crates.io/crates/io-harness"
        );
        assert_eq!(identity("https://a.com/?q=1&utm_x=2"), "https://a.com/?q=1");
        assert!(is_tracking("utm_campaign") && is_tracking("gclid") && !is_tracking("utm"));
    }

    /// Every form a Wikipedia article is cited in is one page; another
    /// article, another language or a page that is not an article is not.
    #[test]
    fn a_wikipedia_article_has_one_identity_in_every_form() {
        let one = "https://en.wikipedia.org/wiki/Nobody%27s_Example_Album";
        for form in [
            "https://en.wikipedia.org/wiki/Nobody's_Example_Album",
            "https://en.m.wikipedia.org/wiki/Nobody's_Example_Album",
            "http://en.wikipedia.org/wiki/Nobody%27s_Example_Album",
            "https://en.wikipedia.org/wiki/Nobody's Example Album",
            "https://en.wikipedia.org/wiki/Nobody%27s%20Example%20Album#History",
            "https://en.wikipedia.org/wiki/nobody's_Example_Album",
            "https://en.wikipedia.org/w/index.php?title=Nobody's_Example_Album",
            "https://EN.M.Wikipedia.org/wiki/Nobody's_Example_Album/",
        ] {
            assert_eq!(identity(form), identity(one), "{form}");
        }
        assert_eq!(
            identity(one),
            "https://en.wikipedia.org/wiki/Nobody's_Example_Album"
        );
        // Non-ASCII titles in one encoding, whichever was cited.
        assert_eq!(
            identity("https://de.m.wikipedia.org/wiki/Kölner_Dom"),
            identity("https://de.wikipedia.org/wiki/K%C3%B6lner_Dom")
        );
        for other in [
            "https://en.wikipedia.org/wiki/Nobody's_Other_Album",
            "https://fr.wikipedia.org/wiki/Nobody's_Example_Album",
            "https://en.wikipedia.org/w/index.php?title=Nobody's_Example_Album&oldid=7",
            "https://en.wikipedia.org/wiki/Nobody's_Example_album",
        ] {
            assert_ne!(identity(other), identity(one), "{other}");
        }
        assert_eq!(
            domain("https://en.m.wikipedia.org/wiki/X"),
            Some("en.wikipedia.org".into())
        );
        assert_eq!(
            domain("https://wikipedia.org/"),
            Some("wikipedia.org".into())
        );
    }

    /// A redirect title is the article its page's canonical link names, once
    /// a check read the page; any other page's canonical link changes nothing.
    #[test]
    fn a_wikipedia_redirect_is_read_from_the_pages_canonical_link() {
        let page = "<html><head><LINK rel=\"canonical\" href=\"https://en.wikipedia.org/wiki/United_States\"/></head>";
        let canonical = canonical_link(page).expect("a canonical link");
        assert_eq!(canonical, "https://en.wikipedia.org/wiki/United_States");
        assert_eq!(
            wikipedia_redirect("https://en.m.wikipedia.org/wiki/USA", &canonical),
            Some("https://en.wikipedia.org/wiki/United_States".into())
        );
        // The article itself, in another form: no redirect.
        assert_eq!(
            wikipedia_redirect("https://en.wikipedia.org/wiki/United%20States", &canonical),
            None
        );
        // Not Wikipedia, or another language's: not followed.
        assert_eq!(
            wikipedia_redirect("https://example.org/usa", &canonical),
            None
        );
        assert_eq!(
            wikipedia_redirect("https://de.wikipedia.org/wiki/USA", &canonical),
            None
        );
        assert_eq!(canonical_link("<link rel=stylesheet href=a.css><p>x"), None);
        assert_eq!(
            canonical_link("<link href='https://a.org/?x=1&amp;y=2' rel='canonical'>"),
            Some("https://a.org/?x=1&y=2".into())
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
