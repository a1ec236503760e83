//! `Endpoint`: where and how to reach one vendor — its wire, base URL, key
//! variable, streaming and where a Responses transcript is kept. Everything an
//! encoder needs besides the turn; below every wire file.

use serde::{Deserialize, Serialize};

use crate::core::transcript::ResponsesState;
use crate::core::vendor::Vendor;
use crate::core::vendor::Wire;

/// Where and how to reach one vendor: everything `encode` needs besides the turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// Which vendor.
    pub vendor: Vendor,
    /// Which of the vendor's wires (`api` / `web_tools` in `io.toml`); the spec's by default.
    #[serde(default)]
    pub wire: Wire,
    /// Base URL, without the vendor's fixed path; a loopback stub in tests.
    pub base_url: String,
    /// The variable that holds the API key (never the key).
    pub api_key_env: String,
    /// Ask for the answer as server-sent events (`"stream": true` in the body).
    /// Off for `Endpoint::public`, so the spec's golden bodies stay the
    /// non-streamed ones; `io.toml` endpoints stream unless `stream = false`.
    #[serde(default)]
    pub stream: bool,
    /// Where OpenAI Responses keeps a transcript (`responses_state`); the request
    /// carries it whole unless `server`.
    #[serde(default)]
    pub responses_state: ResponsesState,
    /// The vendor's own search settings from its table (Perplexity's).
    #[serde(default, skip_serializing_if = "SearchSettings::is_default")]
    pub search: SearchSettings,
}

/// A vendor's own search settings, from its io.toml table (`[providers.perplexity]`
/// `search_classifier`, `search_recency_filter`, `search_context_size`): sent as
/// the vendor's fields, beside the web declaration, never instead of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchSettings {
    /// Sonar's search classifier (`enable_search_classifier`): the vendor decides
    /// whether a question needs a search at all.
    #[serde(default, skip_serializing_if = "is_false")]
    pub classifier: bool,
    /// Only pages from the last hour, day, week, month or year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recency: Option<Recency>,
    /// How much of each page the search hands the model (and, on Sonar, which
    /// per-request fee applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_size: Option<ContextSize>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SearchSettings {
    /// Nothing set.
    pub fn is_default(&self) -> bool {
        *self == SearchSettings::default()
    }
}

/// `search_recency_filter`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recency {
    /// The last hour.
    Hour,
    /// The last day.
    Day,
    /// The last week.
    Week,
    /// The last month.
    Month,
    /// The last year.
    Year,
}

impl Recency {
    /// The vendor's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Recency::Hour => "hour",
            Recency::Day => "day",
            Recency::Week => "week",
            Recency::Month => "month",
            Recency::Year => "year",
        }
    }
}

/// `search_context_size`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextSize {
    /// The least context, and the lowest request fee.
    Low,
    /// More.
    Medium,
    /// The most, and the highest request fee.
    High,
}

impl ContextSize {
    /// The vendor's word.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextSize::Low => "low",
            ContextSize::Medium => "medium",
            ContextSize::High => "high",
        }
    }
}

impl Endpoint {
    /// The vendor's public endpoint with its default key variable.
    pub fn public(vendor: Vendor) -> Self {
        Endpoint {
            vendor,
            wire: Wire::spec(vendor),
            base_url: vendor.default_base_url().to_string(),
            api_key_env: vendor.default_api_key_env().to_string(),
            stream: false,
            responses_state: ResponsesState::default(),
            search: SearchSettings::default(),
        }
    }

    /// The same endpoint, streaming or not.
    pub fn streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// The same endpoint on another of the vendor's wires.
    pub fn with_wire(mut self, wire: Wire) -> Self {
        self.wire = wire;
        self
    }

    /// The full request URL. A base URL written the way the vendors' SDKs write it,
    /// ending in `/v1` (`https://api.openai.com/v1`, `https://openrouter.ai/api/v1`),
    /// reaches the same URL as the form without it: never `/v1/v1/`.
    pub fn url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        let path = self.wire.path();
        let base = match path.strip_prefix("/v1/") {
            Some(_) => base.strip_suffix("/v1").unwrap_or(base),
            None => base,
        };
        format!("{base}{path}")
    }
}
