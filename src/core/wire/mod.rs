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
mod endpoint;
pub mod gemini;
mod gemini_claims;
mod json;
pub mod limits;
pub mod openai_chat;
pub mod openai_responses;
pub mod openrouter_plugin;
pub mod openrouter_tools;
pub mod portability;
pub mod stream;
pub mod transcript;
mod vendor;

use crate::core::completion::Completion;
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::web::WebAccess;
use crate::error::{Error, Result};
pub use capability::{CAPABILITIES, Cap, Capabilities, Feature, Wire, check_wire};
pub use endpoint::Endpoint;
pub use portability::{Verdict, portability};
pub use vendor::Vendor;

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
        Wire::Gemini => gemini::encode(endpoint, turn),
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
        Wire::Gemini => gemini::decode(response),
    }
}

/// Whether the vendor's spec wire can carry the declaration (see `check_wire`).
pub fn check(vendor: Vendor, web: Option<&WebAccess>) -> Result<()> {
    check_wire(Wire::spec(vendor), web)
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
        Wire::Gemini => gemini::cautions(web),
    }
}
