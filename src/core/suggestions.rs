//! Google Search suggestions: the `searchEntryPoint.renderedContent` Google sends
//! with a grounded Gemini answer, which its terms ask an application to show
//! beside it. The HTML is stored as sent; this reads the suggested queries and
//! their links out of it for a terminal, which cannot draw HTML. Google's chips
//! are `<a class="chip" href="https://www.google.com/search?q=…">query</a>`:
//! every anchor with an http(s) `href` and some text is one suggestion. Pure;
//! linear in the HTML (the regex crate's automata, a set for repeats).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// One suggested search: what it says and where it leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The query as the chip shows it.
    pub query: String,
    /// The link Google gave it (a Google search).
    pub url: String,
}

static ANCHOR: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"(?is)<a\b[^>]*?\bhref\s*=\s*["']([^"']*)["'][^>]*>(.*?)</a\s*>"#).ok()
});

static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?s)<[^>]*>").ok());

/// The suggestions in Google's rendered HTML, in order, each once (a link seen
/// before is found in a set, so 50,000 chips cost what their bytes do).
pub fn suggestions(html: &str) -> Vec<Suggestion> {
    let (Some(anchor), Some(tag)) = (ANCHOR.as_ref(), TAG.as_ref()) else {
        return Vec::new();
    };
    let mut out: Vec<Suggestion> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for c in anchor.captures_iter(html) {
        let url = entities(&c[1]);
        let query = entities(tag.replace_all(&c[2], "").trim());
        let query = crate::core::text::one_line(&query);
        let web = url.starts_with("https://") || url.starts_with("http://");
        if web && !query.is_empty() && seen.insert(url.clone()) {
            out.push(Suggestion { query, url });
        }
    }
    out
}

/// The character references HTML attributes and text use most.
fn entities(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn chips_become_suggestions_and_the_rest_is_left() {
        let html = r#"<style>.chip{color:red}</style><div class="carousel"><a class="chip" href="https://www.google.com/search?q=io-harness+crate&amp;client=app">io-harness <b>crate</b></a><a class="chip" href="javascript:alert(1)">bad</a><a href="https://www.google.com/search?q=x"></a><a class="chip" href="https://www.google.com/search?q=io-harness+crate&amp;client=app">again</a></div>"#;
        assert_eq!(
            suggestions(html),
            vec![Suggestion {
                query: "io-harness crate".into(),
                url: "https://www.google.com/search?q=io-harness+crate&client=app".into(),
            }]
        );
        assert!(suggestions("no links here").is_empty());
    }
}
