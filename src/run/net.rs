//! Where `http_get` may connect: the host is resolved here, every address it
//! resolves to is checked, and the connection is pinned to exactly those addresses
//! (no second lookup a rebinding DNS server could answer differently, no proxy that
//! would resolve it again, no redirect followed).
//!
//! Loopback, private, link-local, unspecified, shared (CGNAT), broadcast and
//! multicast addresses are this machine's own network: they are refused unless an
//! operator rule names the host (`Policy::names`), whatever the approver said —
//! "allow everything" is not a decision about the metadata service at
//! 169.254.169.254.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::core::host::embedded_v4;

/// True for an address on this machine or its local network. An IPv6 address
/// that embeds an IPv4 one (mapped, compatible, NAT64: `core::host::embedded_v4`)
/// is judged as that IPv4 address, as the policy decides it.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => internal_v4(v4),
            None => internal_v6(v6),
        },
    }
}

fn internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
}

fn internal_v6(ip: Ipv6Addr) -> bool {
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || ip.is_unique_local()
        || ip.is_unicast_link_local()
}

/// The addresses `host:port` resolves to, refused when one is internal and no
/// rule names the host (`named`). An IP literal is its own address.
pub async fn resolve_checked(
    host: &str,
    port: u16,
    named: bool,
) -> Result<Vec<SocketAddr>, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((bare, port))
            .await
            .map_err(|e| format!("cannot resolve {host}: {e}"))?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    if !named {
        if let Some(bad) = addrs.iter().find(|a| is_internal(a.ip())) {
            return Err(format!(
                "refused: {host}:{port} resolves to {}, a loopback, private or link-local \
                 address; http_get reaches this machine's own network only for a host a rule \
                 names — add \"net:{host}:{port}\" to [policy] allow in io.toml to open it",
                bad.ip()
            ));
        }
    }
    Ok(addrs)
}

/// A client that connects `host` to exactly `addrs`, follows no redirect and
/// uses no proxy.
pub fn pinned_client(host: &str, addrs: &[SocketAddr]) -> Result<reqwest::Client, String> {
    crate::provider::tls::install();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy();
    if bare.parse::<IpAddr>().is_err() {
        builder = builder.resolve_to_addrs(bare, addrs);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_and_public_addresses() {
        for internal in [
            "127.0.0.1",
            "127.8.9.10",
            "10.0.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd12:3456::1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "::ffff:7f00:1",
            "64:ff9b::7f00:1",
            "64:ff9b::169.254.169.254",
            "64:ff9b::a00:1",
        ] {
            assert!(is_internal(internal.parse().unwrap()), "{internal}");
        }
        for public in [
            "1.1.1.1",
            "151.101.1.1",
            "100.128.0.1",
            "2606:4700::1111",
            "64:ff9b::101:101",
        ] {
            assert!(!is_internal(public.parse().unwrap()), "{public}");
        }
    }
}
