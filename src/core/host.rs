//! Hosts compared as hosts. Everywhere a host meets a `net` rule or a `[web]`
//! domain list — the policy's matching, the projected and stated domain lists,
//! `http_get`, `check-sources` — both sides go through `normalise_host` first, so
//! `Example.COM.`, `bücher.example` and `2130706433` are the hosts `example.com`,
//! `xn--bcher-kva.example` and `127.0.0.1` a rule names, not ways around it.
//! Pure: string work by the URL standard's host parser, no lookup.

/// The host as rules and lists compare it: one trailing dot removed, then the URL
/// standard's host parser — lowercase, IDNA to ASCII (punycode), an IPv4 address
/// in any number form (`2130706433`, `0x7f000001`, `0177.0.0.1`) written dotted,
/// an IPv6 address in brackets and compressed. `*` stays `*`, and a `*.` prefix
/// is kept in front of its normalised domain. A host the parser refuses is
/// lowercased as written (it can then only match itself).
pub fn normalise_host(host: &str) -> String {
    if host == "*" {
        return host.to_string();
    }
    if let Some(domain) = host.strip_prefix("*.") {
        return format!("*.{}", normalise_host(domain));
    }
    let bare = host.strip_suffix('.').unwrap_or(host);
    let bracketed = bare.contains(':') && !bare.starts_with('[');
    let parsed = if bracketed {
        url::Host::parse(&format!("[{bare}]"))
    } else {
        url::Host::parse(bare)
    };
    match parsed {
        Ok(h) => h.to_string(),
        Err(_) => bare.to_ascii_lowercase(),
    }
}

/// Where an http(s) URL connects, as a `net` rule is decided on it: its host
/// normalised and its port (the scheme's when none is written), or `None` when
/// the URL has no host.
pub fn net_target(url: &url::Url) -> Option<(String, u16)> {
    let host = url.host_str()?;
    let port = url.port_or_known_default().unwrap_or(443);
    Some((normalise_host(host), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_normalised_as_the_url_standard_reads_them() {
        for (written, host) in [
            ("Example.COM.", "example.com"),
            ("example.com", "example.com"),
            ("bücher.example", "xn--bcher-kva.example"),
            ("BÜCHER.example.", "xn--bcher-kva.example"),
            ("2130706433", "127.0.0.1"),
            ("0x7f000001", "127.0.0.1"),
            ("0177.0.0.1", "127.0.0.1"),
            ("127.0.0.1.", "127.0.0.1"),
            ("[::1]", "[::1]"),
            ("::1", "[::1]"),
            ("[0:0::1]", "[::1]"),
            ("*", "*"),
            ("*.Example.ORG.", "*.example.org"),
            ("*.bücher.example", "*.xn--bcher-kva.example"),
            ("bad host", "bad host"),
        ] {
            assert_eq!(normalise_host(written), host, "{written}");
        }
    }

    #[test]
    fn a_url_connects_to_its_normalised_host_and_port() {
        let t = |s: &str| net_target(&url::Url::parse(s).unwrap());
        assert_eq!(t("http://Example.com./x"), Some(("example.com".into(), 80)));
        assert_eq!(
            t("https://a.example.org./"),
            Some(("a.example.org".into(), 443))
        );
        assert_eq!(
            t("http://2130706433:18002/"),
            Some(("127.0.0.1".into(), 18002))
        );
        assert_eq!(t("http://[::1]/"), Some(("[::1]".into(), 80)));
        assert_eq!(t("data:text/plain,x"), None);
    }
}
