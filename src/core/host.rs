//! Hosts compared as hosts. Everywhere a host meets a `net` rule or a `[web]`
//! domain list — the policy's matching, the projected and stated domain lists,
//! `http_get`, `check-sources` — both sides go through `normalise_host` first, so
//! `Example.COM.`, `bücher.example` and `2130706433` are the hosts `example.com`,
//! `xn--bcher-kva.example` and `127.0.0.1` a rule names, not ways around it.
//! An IPv6 address that carries an IPv4 one (`embedded_v4`: mapped, compatible,
//! NAT64) is that IPv4 address, so `[::ffff:5db8:d822]` meets a rule on
//! `93.184.216.34`, and the loopback check (`run::net`) sees the same address.
//! Pure: string work by the URL standard's host parser, no lookup.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The host as rules and lists compare it: one trailing dot removed, then the URL
/// standard's host parser — lowercase, IDNA to ASCII (punycode), an IPv4 address
/// in any number form (`2130706433`, `0x7f000001`, `0177.0.0.1`) written dotted,
/// an IPv6 address in brackets and compressed. `*` stays `*`, and a `*.` prefix
/// is kept in front of its normalised domain. An IPv6 address that embeds an
/// IPv4 one is written as the IPv4 address (`[::ffff:7f00:1]` is `127.0.0.1`).
/// A host the parser refuses is lowercased as written (it can then only match
/// itself).
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
        Ok(url::Host::Ipv6(v6)) => match embedded_v4(v6) {
            Some(v4) => v4.to_string(),
            None => format!("[{v6}]"),
        },
        Ok(h) => h.to_string(),
        Err(_) => bare.to_ascii_lowercase(),
    }
}

/// The IPv4 address an IPv6 one stands for, where it is an IPv4 address in
/// IPv6's clothing: IPv4-mapped `::ffff:a.b.c.d` (what a dual-stack socket
/// connects to as IPv4), IPv4-compatible `::a.b.c.d` (deprecated, still routed
/// by some stacks; `::` and `::1` are IPv6's own unspecified and loopback
/// addresses, not 0.0.0.0 and 0.0.0.1) and NAT64's well-known prefix
/// `64:ff9b::/96` (RFC 6052: a translator connects it to the IPv4 address).
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let o = ip.octets();
    let tail = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(tail),
        [0, 0, 0, 0, 0, 0, 0, 0 | 1] => None,
        [0, 0, 0, 0, 0, 0, _, _] => Some(tail),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(tail),
        _ => None,
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
            // An IPv6 address embedding an IPv4 one is the IPv4 address.
            ("[::ffff:93.184.216.34]", "93.184.216.34"),
            ("[::ffff:5db8:d822]", "93.184.216.34"),
            ("::FFFF:5DB8:D822", "93.184.216.34"),
            ("[::93.184.216.34]", "93.184.216.34"),
            ("[64:ff9b::5db8:d822]", "93.184.216.34"),
            ("[64:ff9b::127.0.0.1]", "127.0.0.1"),
            ("[::ffff:7f00:1]", "127.0.0.1"),
            // IPv6's own: unspecified, loopback, and a prefix next to NAT64's.
            ("[::]", "[::]"),
            ("[::ffff:0:5db8:d822]", "[::ffff:0:5db8:d822]"),
            ("[64:ff9b:1::5db8:d822]", "[64:ff9b:1::5db8:d822]"),
            ("[2606:4700::1111]", "[2606:4700::1111]"),
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
        assert_eq!(
            t("http://[::ffff:5db8:d822]:8080/x"),
            Some(("93.184.216.34".into(), 8080))
        );
        assert_eq!(t("data:text/plain,x"), None);
    }
}
