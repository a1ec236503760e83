//! Where a run is assembled — the one composition seam `run`, `preview` and the
//! console share: where a request to a vendor goes (`endpoint`, or `target` from
//! the console's per-vendor tables), and the provider for a vendor (its endpoint,
//! model and output cap from io.toml, the transport limits io.toml sets, and the
//! key: read from its variable for a live vendor, or the stub's own for the demo).
//! The first request of a contract is `Turn::for_step`; the demo's goal,
//! declaration, stub and key live with the stub (`stub::demo`).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::config::Config;
use crate::core::wire::{Endpoint, Vendor};
use crate::error::Result;
use crate::provider::HttpProvider;

/// Where a provider's key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// The endpoint's variable (`api_key_env`), read now; unset is an error naming it.
    FromEnv,
    /// The built-in stub's key: not a secret (the stub checks none), never scrubbed.
    Stub(String),
}

/// The transport limits io.toml sets for one vendor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest response body read, in bytes.
    pub max_response_bytes: u64,
    /// Connect to last byte, one request.
    pub request_timeout: Duration,
    /// How long a stream may stay silent.
    pub idle_timeout: Duration,
}

impl Limits {
    /// What io.toml says for `vendor` (its defaults where it says nothing).
    pub fn of(config: &Config, vendor: Vendor) -> Limits {
        Limits {
            max_response_bytes: config.max_response_bytes(vendor),
            request_timeout: config.request_timeout(vendor),
            idle_timeout: config.idle_timeout(vendor),
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::of(&Config::default(), Vendor::default())
    }
}

/// Where a request to `vendor` goes as io.toml configures it, at `base_url` when
/// given (the demo stub's; `preview --demo` names a placeholder port).
pub fn endpoint(config: &Config, vendor: Vendor, base_url: Option<String>) -> Endpoint {
    let mut endpoint = config.endpoint(vendor);
    if let Some(url) = base_url {
        endpoint.base_url = url;
    }
    endpoint
}

/// Where a request to `vendor` goes and its output cap, from per-vendor tables
/// (the console's, seeded from io.toml): the table's endpoint, else the vendor's
/// public one; the table's cap, else 4096 tokens (io.toml's default).
pub fn target(
    endpoints: &BTreeMap<Vendor, Endpoint>,
    max_tokens: &BTreeMap<Vendor, u32>,
    vendor: Vendor,
) -> (Endpoint, u32) {
    let endpoint = endpoints
        .get(&vendor)
        .cloned()
        .unwrap_or_else(|| Endpoint::public(vendor));
    (endpoint, max_tokens.get(&vendor).copied().unwrap_or(4096))
}

/// The provider a run talks to: `endpoint` (the stub's address in the demo),
/// `model` and `max_tokens`, the key, and the transport limits.
pub fn provider(
    endpoint: Endpoint,
    model: String,
    max_tokens: u32,
    key: &Key,
    limits: &Limits,
) -> Result<HttpProvider> {
    let provider = match key {
        Key::FromEnv => HttpProvider::from_env(endpoint, model, max_tokens)?,
        Key::Stub(k) => HttpProvider::new(endpoint, model, max_tokens).with_stub_key(k.clone()),
    };
    Ok(provider
        .with_max_response_bytes(limits.max_response_bytes)
        .with_request_timeout(limits.request_timeout)
        .with_idle_timeout(limits.idle_timeout))
}

/// The provider for `vendor` as io.toml configures it, at `base_url` when given
/// (the demo stub's).
pub fn configured(
    config: &Config,
    vendor: Vendor,
    base_url: Option<String>,
    key: &Key,
) -> Result<HttpProvider> {
    provider(
        endpoint(config, vendor, base_url),
        config.model(vendor),
        config.max_tokens(vendor),
        key,
        &Limits::of(config, vendor),
    )
}
