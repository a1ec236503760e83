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

#[cfg(test)]
mod tests {
    use super::*;

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
