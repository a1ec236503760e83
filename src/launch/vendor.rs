//! One vendor as io.toml sets it up: where its requests go (`Endpoint`), the
//! model and output cap, the transport limits, and where its key comes from.
//! Resolved once, from `Config`, for every command and the console; the
//! provider a run talks to is built from it and nothing else.

use std::time::Duration;

use crate::config::Config;
use crate::core::endpoint::Endpoint;
use crate::core::error::Result;
use crate::core::vendor::Vendor;
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

/// Everything about one vendor a request needs, as io.toml resolves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VendorSetup {
    /// Where its requests go (the demo stub's address in the demo).
    pub endpoint: Endpoint,
    /// The model asked unless a command or the console names another.
    pub model: String,
    /// The output token cap per request.
    pub max_tokens: u32,
    /// The transport limits.
    pub limits: Limits,
}

impl VendorSetup {
    /// `vendor` as `config` sets it up.
    pub fn of(config: &Config, vendor: Vendor) -> VendorSetup {
        VendorSetup {
            endpoint: config.endpoint(vendor),
            model: config.model(vendor),
            max_tokens: config.max_tokens(vendor),
            limits: Limits::of(config, vendor),
        }
    }

    /// The provider a run talks to: this endpoint, `model` (this setup's when
    /// `None`), the output cap and limits, and `key`.
    pub fn provider(&self, model: Option<&str>, key: &Key) -> Result<HttpProvider> {
        let model = model.unwrap_or(&self.model).to_string();
        let endpoint = self.endpoint.clone();
        let provider = match key {
            Key::FromEnv => HttpProvider::from_env(endpoint, model, self.max_tokens)?,
            Key::Stub(k) => {
                HttpProvider::new(endpoint, model, self.max_tokens).with_stub_key(k.clone())
            }
        };
        Ok(provider
            .with_max_response_bytes(self.limits.max_response_bytes)
            .with_request_timeout(self.limits.request_timeout)
            .with_idle_timeout(self.limits.idle_timeout))
    }
}
