//! The wires: pure translation between one `Turn` and each vendor API's exact
//! request, and between its response bytes and one `Completion`. This file holds
//! `Vendor`, `Endpoint` and the dispatch (`encode`, `decode`, `check`,
//! `cautions`); `capability` the `Wire` enum and its table; one file per wire
//! below it (`anthropic`, `openai_chat`, `openai_responses`, `openrouter_plugin`,
//! `openrouter_tools`), with `chat` (the Chat-shaped body and decoder the
//! OpenAI-compatible wires share) and `json` (the readers and the ends every wire
//! shares) under them; `stream/` assembles each wire's server-sent events.
//! `limits` (what a wire cannot carry with some models) and `portability` (every
//! wire's verdict on a declaration) read the table; `transcript` is the
//! conversation a wire sends back (Anthropic's in `anthropic_messages`).
//!
//! No I/O here. The preview and the transport call the same `encode`, so the bytes
//! an operator previews are the bytes that are sent. Every refusal happens in
//! `encode`, before a byte exists to send.
//!
//! A new wire is one file here (its `encode`, `decode` and `cautions`, and how it
//! sends a transcript back) plus one row of `capability::CAPABILITIES` (and its
//! `Wire` variant, named in one arm of each dispatch below).

pub mod anthropic;
mod anthropic_messages;
pub mod capability;
mod chat;
pub mod gemini;
mod json;
pub mod limits;
pub mod openai_chat;
pub mod openai_responses;
pub mod openrouter_plugin;
pub mod openrouter_tools;
pub mod portability;
pub mod stream;
pub mod transcript;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::core::completion::Completion;
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::web::WebAccess;
use crate::error::{Error, Result};
pub use capability::{CAPABILITIES, Cap, Capabilities, Feature, Wire};
pub use portability::{Verdict, portability};
use transcript::ResponsesState;

/// The vendors this crate speaks to.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    /// Anthropic Messages (the default).
    #[default]
    Anthropic,
    /// OpenAI Chat Completions.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenRouter Chat Completions.
    #[serde(rename = "openrouter")]
    OpenRouter,
}

impl Vendor {
    /// All three, in display order.
    pub const ALL: [Vendor; 3] = [Vendor::Anthropic, Vendor::OpenAi, Vendor::OpenRouter];

    /// The name used in `io.toml`, on the command line and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Anthropic => "anthropic",
            Vendor::OpenAi => "openai",
            Vendor::OpenRouter => "openrouter",
        }
    }

    /// The public API base URL (the part before the vendor's fixed path).
    pub fn default_base_url(self) -> &'static str {
        match self {
            Vendor::Anthropic => "https://api.anthropic.com",
            Vendor::OpenAi => "https://api.openai.com",
            Vendor::OpenRouter => "https://openrouter.ai/api",
        }
    }

    /// The path appended to the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Vendor::Anthropic => "/v1/messages",
            Vendor::OpenAi | Vendor::OpenRouter => "/v1/chat/completions",
        }
    }

    /// The variable that holds the key unless `io.toml` names another.
    pub fn default_api_key_env(self) -> &'static str {
        match self {
            Vendor::Anthropic => "ANTHROPIC_API_KEY",
            Vendor::OpenAi => "OPENAI_API_KEY",
            Vendor::OpenRouter => "OPENROUTER_API_KEY",
        }
    }

    /// The model used when `io.toml` names none.
    pub fn default_model(self) -> &'static str {
        match self {
            Vendor::Anthropic => "claude-sonnet-4-5",
            Vendor::OpenAi => "gpt-5-search-api",
            Vendor::OpenRouter => "openai/gpt-5.2",
        }
    }
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Vendor {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Vendor::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown provider \"{s}\"; use one of: anthropic, openai, openrouter"
                ))
            })
    }
}

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

/// Encode one turn as the vendor's exact request, or refuse what it cannot carry.
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    if endpoint.wire.vendor() != endpoint.vendor {
        return Err(Error::config(format!(
            "the endpoint for provider \"{}\" names the wire {}, which belongs to provider \"{}\". \
             No request was sent.",
            endpoint.vendor,
            endpoint.wire.label(),
            endpoint.wire.vendor()
        )));
    }
    check_wire(endpoint.wire, turn.web.as_ref())?;
    if let Some(text) = turn
        .web_enabled()
        .and_then(|web| limits::model_refusal(endpoint.wire, &turn.model, web))
    {
        return Err(Error::config(text));
    }
    match endpoint.wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => anthropic::encode(endpoint, turn),
        Wire::OpenAiChat => openai_chat::encode(endpoint, turn),
        Wire::OpenAiResponses => openai_responses::encode(endpoint, turn),
        Wire::OpenRouterPlugin => openrouter_plugin::encode(endpoint, turn),
        Wire::OpenRouterServerTools => openrouter_tools::encode(endpoint, turn),
    }
}

/// Decode the answer on the vendor's spec wire (see `decode_wire`).
pub fn decode(vendor: Vendor, response: &WireResponse) -> Result<Completion> {
    decode_wire(Wire::spec(vendor), response)
}

/// Decode the vendor's answer on one wire into one completion, or a typed error.
pub fn decode_wire(wire: Wire, response: &WireResponse) -> Result<Completion> {
    match wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => anthropic::decode(response),
        Wire::OpenAiChat => openai_chat::decode(response),
        Wire::OpenAiResponses => openai_responses::decode(response),
        // The server tools answer in the Chat Completions shape the plugin does.
        Wire::OpenRouterPlugin | Wire::OpenRouterServerTools => openrouter_plugin::decode(response),
    }
}

/// Whether the vendor's spec wire can carry the declaration (see `check_wire`).
pub fn check(vendor: Vendor, web: Option<&WebAccess>) -> Result<()> {
    check_wire(Wire::spec(vendor), web)
}

/// Whether this wire can carry the declaration; the refusal if not, derived from
/// the capability table. `encode` calls it first; a `Fallback` calls it for every
/// member before any request.
pub fn check_wire(wire: Wire, web: Option<&WebAccess>) -> Result<()> {
    let Some(web) = web.filter(|w| w.enabled()) else {
        return Ok(());
    };
    web.check_not_emptied()?;
    match capability::refusal(wire, web) {
        Some(text) => Err(Error::config(text)),
        None => Ok(()),
    }
}

/// One-line cautions where a vendor's documentation and this crate's behaviour
/// disagree, or where a declared value is not sent. Shown under a preview; they
/// never change the body.
pub fn cautions(vendor: Vendor, web: Option<&WebAccess>) -> Vec<String> {
    cautions_wire(Wire::spec(vendor), web)
}

/// The cautions of one wire (see `cautions`).
pub fn cautions_wire(wire: Wire, web: Option<&WebAccess>) -> Vec<String> {
    let Some(web) = web else {
        return Vec::new();
    };
    if !web.enabled() {
        if web.allowed_domains.is_empty() && web.blocked_domains.is_empty() {
            return Vec::new();
        }
        return vec![
            "caution: the declaration names domains but turns neither search nor fetch on, so nothing web-related is sent".to_string(),
        ];
    }
    match wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => anthropic::cautions(wire, web),
        Wire::OpenAiChat => openai_chat::cautions(web),
        Wire::OpenAiResponses => openai_responses::cautions(web),
        Wire::OpenRouterPlugin => openrouter_plugin::cautions(web),
        Wire::OpenRouterServerTools => openrouter_tools::cautions(web),
    }
}
