//! Which links the console hands to the desktop opener: a citation's URL comes
//! from the vendor, and an opener given `file:///etc/passwd`, `javascript:…`, a
//! word starting with `--` or a local script path would open a file, run a
//! handler or read a flag. Only an http(s) URL with a host is opened, as parsed
//! and written back (percent-encoded, nothing a shell or a terminal reads).

/// The URL to open, or why it is not opened (words for the status line).
pub fn openable(raw: &str) -> Result<String, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("this is not a URL ({e})"))?;
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(format!("this is a {other}: URL")),
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("it has no host".to_string());
    }
    Ok(url.to_string())
}

/// The host of Google's grounding redirects: a Gemini citation's URI is a link
/// through it, not the page (its title is often only the page's domain).
pub const GOOGLE_REDIRECT_HOST: &str = "vertexaisearch.cloud.google.com";

/// Whether a cited URL is one of Google's grounding redirects.
pub fn google_redirect(raw: &str) -> bool {
    url::Url::parse(raw).is_ok_and(|u| {
        u.host_str() == Some(GOOGLE_REDIRECT_HOST)
            && u.path().starts_with("/grounding-api-redirect/")
    })
}

/// How a cited link is shown: as it is, or — a Google redirect — by its title
/// (often only the domain the redirect leads to) and the redirect's host, so a
/// reader does not take the redirect for the page.
pub fn shown(url: &str, title: Option<&str>) -> String {
    if google_redirect(url) {
        let title = title.filter(|t| !t.trim().is_empty()).unwrap_or("untitled");
        format!("{title} · via Google redirect ({GOOGLE_REDIRECT_HOST})")
    } else {
        url.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_google_redirect_is_shown_by_its_title_and_the_redirect() {
        let r = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ";
        assert!(google_redirect(r));
        assert_eq!(
            shown(r, Some("crates.io")),
            "crates.io · via Google redirect (vertexaisearch.cloud.google.com)"
        );
        assert_eq!(
            shown("https://crates.io/x", Some("t")),
            "https://crates.io/x"
        );
        assert!(!google_redirect(
            "https://vertexaisearch.cloud.google.com/other"
        ));
        assert!(!google_redirect(
            "https://evil.test/grounding-api-redirect/x"
        ));
    }

    #[test]
    fn only_http_and_https_with_a_host() {
        assert_eq!(
            openable("https://docs.rs/a b"),
            Ok("https://docs.rs/a%20b".into())
        );
        assert_eq!(
            openable("file:///etc/passwd"),
            Err("this is a file: URL".into())
        );
        assert_eq!(
            openable("--help"),
            Err("this is not a URL (relative URL without a base)".into())
        );
    }
}
