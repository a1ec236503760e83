//! The wires: pure translation between one `Turn` and each vendor API's exact
//! request, and between its response bytes and one `Completion`. This file holds
//! the dispatch (`encode`, `decode`, `check`, `cautions`); where a request goes
//! is `core::endpoint`'s, the words it dispatches on (`Vendor`, `Wire`) are
//! `core::vendor`'s and what each wire carries is `core::capability`'s table. One file per wire below it
//! (`anthropic`, `openai_chat`, `openai_responses`, `openrouter_plugin`,
//! `openrouter_tools`, `gemini`, `xai`, `perplexity_agent`, `perplexity_sonar`,
//! the last two sharing `perplexity`), with `chat` (the Chat-shaped body and decoder
//! the OpenAI-compatible wires share) and `json` (the readers and the ends every
//! wire shares) under them; `stream/` assembles each wire's server-sent events.
//! `limits` (what a wire cannot carry with some models) and `portability` (every
//! wire's verdict on a declaration) read the table; `cap` holds every decoded
//! answer, whole or streamed, to the per-step caps; the conversation a wire sends
//! back is `core::transcript` (Anthropic's rendering in `anthropic_messages`).
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
pub mod cap;
mod chat;

pub mod gemini;
mod gemini_claims;
mod gemini_grounding;
mod json;
pub mod limits;
pub mod openai_chat;
pub mod openai_responses;
pub mod openrouter_plugin;
pub mod openrouter_tools;
mod perplexity;
pub mod perplexity_agent;
pub mod perplexity_sonar;
pub mod portability;
pub mod stream;
pub mod xai;

use crate::core::capability::carries;
use crate::core::completion::Completion;
use crate::core::error::Result;
use crate::core::refusal::{Asked, Refusal};
use crate::core::turn::{Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

use crate::core::endpoint::Endpoint;
pub use portability::{Verdict, portability};

/// Encode one turn as the vendor's exact request, or refuse what it cannot carry.
pub fn encode(endpoint: &Endpoint, turn: &Turn) -> Result<WireRequest> {
    if endpoint.wire.vendor() != endpoint.vendor {
        let why = format!("it belongs to provider \"{}\"", endpoint.wire.vendor());
        let text = format!(
            "the endpoint for provider \"{}\" names the wire {}, which belongs to provider \"{}\". \
             No request was sent.",
            endpoint.vendor,
            endpoint.wire.label(),
            endpoint.wire.vendor()
        );
        let mut refusal = Refusal::new(
            endpoint.wire,
            Asked::AnotherVendorsWire,
            why,
            "name one of its own wires",
            text,
        );
        refusal.vendor = endpoint.vendor;
        return Err(refusal.into());
    }
    carries(endpoint.wire, turn.web.as_ref())?;
    if let Some(refusal) = turn
        .web_enabled()
        .and_then(|web| limits::model_refusal(endpoint.wire, &turn.model, web))
    {
        return Err(refusal.into());
    }
    match endpoint.wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => anthropic::encode(endpoint, turn),
        Wire::OpenAiChat => openai_chat::encode(endpoint, turn),
        Wire::OpenAiResponses => openai_responses::encode(endpoint, turn),
        Wire::OpenRouterPlugin => openrouter_plugin::encode(endpoint, turn),
        Wire::OpenRouterServerTools => openrouter_tools::encode(endpoint, turn),
        Wire::Gemini => gemini::encode(endpoint, turn),
        Wire::Xai => xai::encode(endpoint, turn),
        Wire::PerplexityAgent => perplexity_agent::encode(endpoint, turn),
        Wire::PerplexitySonar => perplexity_sonar::encode(endpoint, turn),
    }
}

/// Decode the answer on the vendor's spec wire (see `decode_wire`).
pub fn decode(vendor: Vendor, response: &WireResponse) -> Result<Completion> {
    decode_wire(Wire::spec(vendor), response)
}

/// Decode the vendor's answer on one wire into one completion, or a typed error;
/// the completion held to the per-step caps (`cap::bound`).
pub fn decode_wire(wire: Wire, response: &WireResponse) -> Result<Completion> {
    decoded(wire, response).map(cap::bound)
}

fn decoded(wire: Wire, response: &WireResponse) -> Result<Completion> {
    match wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => anthropic::decode(response),
        Wire::OpenAiChat => openai_chat::decode(response),
        Wire::OpenAiResponses => openai_responses::decode(response),
        // The server tools answer in the Chat Completions shape the plugin does.
        Wire::OpenRouterPlugin | Wire::OpenRouterServerTools => openrouter_plugin::decode(response),
        Wire::Gemini => gemini::decode(response),
        Wire::Xai => xai::decode(response),
        Wire::PerplexityAgent => perplexity_agent::decode(response),
        Wire::PerplexitySonar => perplexity_sonar::decode(response),
    }
}

/// The provider-executed calls a paused answer left open (`carried`, its blocks
/// as a transcript sends them back) that the continuation's answer (`answer`,
/// its blocks) did not answer either: each `unanswered`, recorded at the end of
/// the step that settles it. Only Anthropic's paused turns carry calls on.
pub fn still_unanswered(
    wire: Wire,
    carried: &[serde_json::Value],
    answer: &[serde_json::Value],
) -> Vec<crate::core::completion::ServerToolCall> {
    match wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => anthropic::still_open(carried, answer),
        _ => Vec::new(),
    }
}

/// Whether the vendor's spec wire can carry the declaration (see `carries`).
pub fn carries_spec(vendor: Vendor, web: Option<&WebAccess>) -> Result<()> {
    carries(Wire::spec(vendor), web)
}

/// One-line cautions where a vendor's documentation and this crate's behaviour
/// disagree, or where a declared value is not sent. Shown under a preview; they
/// never change the body.
pub fn cautions(vendor: Vendor, web: Option<&WebAccess>) -> Vec<String> {
    cautions_wire(Wire::spec(vendor), web)
}

/// The cautions of one wire (see `cautions`).
pub fn cautions_wire(wire: Wire, web: Option<&WebAccess>) -> Vec<String> {
    if wire == Wire::PerplexitySonar {
        // Sonar searches unless told not to: said with or without a declaration.
        return perplexity_sonar::cautions(web);
    }
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
        Wire::Xai => xai::cautions(web),
        Wire::PerplexityAgent => perplexity_agent::cautions(web),
        Wire::PerplexitySonar => perplexity_sonar::cautions(Some(web)),
    }
}

/// Where a vendor's 400 says the offending block is: Anthropic's
/// `messages.3.content.1`, Chat's `messages[3]`, Responses' `input[5]`.
pub fn block_path(message: &str) -> Option<String> {
    let number = |s: &str| -> Option<(usize, usize)> {
        let digits = s.chars().take_while(char::is_ascii_digit).count();
        s[..digits].parse().ok().map(|n| (n, digits))
    };
    if let Some(at) = message.find("messages.") {
        let rest = &message[at + "messages.".len()..];
        let (m, used) = number(rest)?;
        let block = rest[used..]
            .strip_prefix(".content.")
            .and_then(number)
            .map(|(b, _)| format!(", block {b}"))
            .unwrap_or_default();
        return Some(format!("message {m}{block}"));
    }
    for (key, what) in [("messages[", "message"), ("input[", "input item")] {
        if let Some(at) = message.find(key) {
            let (n, _) = number(&message[at + key.len()..])?;
            return Some(format!("{what} {n}"));
        }
    }
    None
}
