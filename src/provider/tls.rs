//! The one TLS crypto provider: rustls with ring. reqwest is built without a
//! provider of its own (its `rustls` feature would compile aws-lc-rs, the slowest
//! step of a cold build), so ring is installed as the process's default before any
//! client is made. The certificate checks are unchanged: reqwest still verifies
//! with the platform's roots (rustls-platform-verifier), and tonic's gRPC channel
//! uses the same provider with the native roots.

use std::sync::Once;

/// Makes rustls's ring provider the process default, once; every place that
/// builds an HTTP client calls it first. A provider the embedding program
/// installed before is kept (then rustls refuses ours, and that is fine).
///
/// A program that builds its own reqwest client in the same process before any
/// of this crate's calls does the same, or calls this.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _already_set = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_provider_is_installed_and_a_client_builds() {
        super::install();
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        reqwest::Client::builder()
            .build()
            .expect("a client builds with the installed provider");
    }
}
