//! The wires: one vendor API shape each, and what each can carry, as data.
//!
//! A vendor may offer more than one wire (OpenAI's Chat Completions and Responses;
//! OpenRouter's web plugin and its server tools; Anthropic's 2025 and 2026 tool
//! versions). `CAPABILITIES` is one row per wire; `encode`'s refusals and the
//! console's portability view are both derived from it, so they cannot disagree.
//! The spec's wires keep the spec's exact refusal texts; the others take the spec's
//! form (vendor and wire named, what cannot be carried, "No request was sent.").
//! A new wire is one encoder file plus one row here.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Vendor;
use crate::core::web::WebAccess;
use crate::error::{Error, Result};

/// One vendor API shape.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum Wire {
    /// Anthropic Messages with the spec's tool versions (`web_tools = "2025"`).
    #[default]
    #[serde(rename = "anthropic-2025")]
    Anthropic2025,
    /// Anthropic Messages with the newest tool versions (`web_tools = "2026"`).
    #[serde(rename = "anthropic-2026")]
    Anthropic2026,
    /// OpenAI Chat Completions (`api = "chat"`, the spec's).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses (`api = "responses"`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// OpenRouter's web plugin (`api = "plugin"`, the spec's).
    #[serde(rename = "openrouter-plugin")]
    OpenRouterPlugin,
    /// OpenRouter's server tools (`api = "server-tools"`).
    #[serde(rename = "openrouter-server-tools")]
    OpenRouterServerTools,
    /// Google's Gemini API, `generateContent` (its only wire).
    #[serde(rename = "gemini")]
    Gemini,
}

/// What a declaration's cap becomes on a wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// `max_uses` on each tool entry: search and fetch each get the cap.
    PerTool,
    /// One cap on every built-in tool call of a response (`max_tool_calls`).
    AllToolCalls,
    /// A cap on results returned, not requests made (`max_results`).
    Results,
    /// No field: the value is not sent.
    NotSent,
    /// No field, and no way to keep to a cap: a declared cap is refused.
    Refused,
}

impl Cap {
    /// What the cap means there, for the portability view and the README.
    pub fn meaning(self) -> &'static str {
        match self {
            Cap::PerTool => "max_uses on each tool entry (search and fetch each get the cap)",
            Cap::AllToolCalls => "max_tool_calls: one cap on all built-in tool calls of a response",
            Cap::Results => "max_results: caps results returned, not searches made",
            Cap::NotSent => "no cap field: not sent",
            Cap::Refused => "no cap field: a declared cap is refused",
        }
    }
}

/// One row of the capability table: `None` where the wire carries the feature, the
/// reason where it cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// The wire this row describes.
    pub wire: Wire,
    /// Search: `None` when carried, else why not.
    pub search: Option<&'static str>,
    /// Fetch.
    pub fetch: Option<&'static str>,
    /// An allow-list.
    pub allow_list: Option<&'static str>,
    /// A block-list.
    pub block_list: Option<&'static str>,
    /// A location for search (`user_location`).
    pub location: Option<&'static str>,
    /// What `max_uses` becomes.
    pub cap: Cap,
}

impl Capabilities {
    /// The row of a wire that carries every feature, each tool capped on its own.
    const fn everything(wire: Wire) -> Self {
        Capabilities {
            wire,
            search: None,
            fetch: None,
            allow_list: None,
            block_list: None,
            location: None,
            cap: Cap::PerTool,
        }
    }
}

/// The table, one row per wire, in `Wire::ALL` order.
pub const CAPABILITIES: [Capabilities; 7] = [
    Capabilities::everything(Wire::Anthropic2025),
    Capabilities::everything(Wire::Anthropic2026),
    Capabilities {
        wire: Wire::OpenAiChat,
        search: None,
        fetch: Some("its Chat Completions API has no provider-executed fetch tool"),
        allow_list: None,
        block_list: Some("its web search filter is allow-list only"),
        location: None,
        cap: Cap::NotSent,
    },
    Capabilities {
        wire: Wire::OpenAiResponses,
        search: None,
        fetch: Some("its Responses API has no provider-executed fetch tool"),
        allow_list: None,
        block_list: Some("its web_search filter is allow-list only"),
        location: None,
        cap: Cap::AllToolCalls,
    },
    Capabilities {
        wire: Wire::OpenRouterPlugin,
        search: None,
        fetch: Some("its web plugin runs searches only"),
        allow_list: Some("its web plugin takes no domain filter"),
        block_list: Some("its web plugin takes no domain filter"),
        location: None,
        cap: Cap::Results,
    },
    Capabilities::everything(Wire::OpenRouterServerTools),
    // The Gemini API's `google_search` and `url_context` tools are empty objects:
    // no domain filter and no cap (ai.google.dev/gemini-api/docs/google-search,
    // …/url-context, read 2026-12-04; Vertex AI's `excludeDomains` is another API).
    Capabilities {
        wire: Wire::Gemini,
        search: None,
        fetch: None,
        allow_list: Some("its google_search tool takes no domain filter"),
        block_list: Some(
            "its google_search tool takes no domain filter (Vertex AI's excludeDomains is not \
             the Gemini API)",
        ),
        location: Some("its google_search tool takes no location"),
        cap: Cap::Refused,
    },
];

/// A declared feature a wire may not carry, in the order refusals are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// Provider-executed fetch.
    Fetch,
    /// An allow-list that survived `vendor_filter`.
    AllowList,
    /// A block-list that survived `vendor_filter`.
    BlockList,
    /// A cap on web tool use (`max_uses`).
    Cap,
    /// Where the user is (`location`), for a search.
    Location,
}

impl Feature {
    /// The feature in a word or two: `fetch`, `allow-list`, `block-list`.
    pub fn noun(self) -> &'static str {
        match self {
            Feature::Fetch => "fetch",
            Feature::AllowList => "allow-list",
            Feature::BlockList => "block-list",
            Feature::Cap => "max_uses",
            Feature::Location => "location",
        }
    }

    /// What a refusal says cannot be done: `… cannot {this} — …`.
    pub fn refused_as(self) -> &'static str {
        match self {
            Feature::Fetch => "fetch pages",
            Feature::AllowList => "restrict search to individual domains",
            Feature::BlockList => "block individual domains",
            Feature::Cap => "cap web tool use",
            Feature::Location => "localise search to a location",
        }
    }
}

impl Wire {
    /// Every wire, the spec's first for each vendor.
    pub const ALL: [Wire; 7] = [
        Wire::Anthropic2025,
        Wire::Anthropic2026,
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::OpenRouterPlugin,
        Wire::OpenRouterServerTools,
        Wire::Gemini,
    ];

    /// The vendor that serves it.
    pub fn vendor(self) -> Vendor {
        match self {
            Wire::Anthropic2025 | Wire::Anthropic2026 => Vendor::Anthropic,
            Wire::OpenAiChat | Wire::OpenAiResponses => Vendor::OpenAi,
            Wire::OpenRouterPlugin | Wire::OpenRouterServerTools => Vendor::OpenRouter,
            Wire::Gemini => Vendor::Gemini,
        }
    }

    /// The spec's wire for a vendor (the default).
    pub fn spec(vendor: Vendor) -> Wire {
        match vendor {
            Vendor::Anthropic => Wire::Anthropic2025,
            Vendor::OpenAi => Wire::OpenAiChat,
            Vendor::OpenRouter => Wire::OpenRouterPlugin,
            Vendor::Gemini => Wire::Gemini,
        }
    }

    /// True for the wires the spec's table describes.
    pub fn is_spec(self) -> bool {
        Wire::spec(self.vendor()) == self
    }

    /// The `io.toml` key that picks a wire for this vendor.
    pub fn key(vendor: Vendor) -> &'static str {
        match vendor {
            Vendor::Anthropic => "web_tools",
            Vendor::OpenAi | Vendor::OpenRouter | Vendor::Gemini => "api",
        }
    }

    /// The value of that key naming this wire.
    pub fn value(self) -> &'static str {
        match self {
            Wire::Anthropic2025 => "2025",
            Wire::Anthropic2026 => "2026",
            Wire::OpenAiChat => "chat",
            Wire::OpenAiResponses => "responses",
            Wire::OpenRouterPlugin => "plugin",
            Wire::OpenRouterServerTools => "server-tools",
            Wire::Gemini => "generate-content",
        }
    }

    /// The key and value that select it among its vendor's wires: `api = "responses"`.
    pub fn choice(self) -> String {
        format!("{} = \"{}\"", Wire::key(self.vendor()), self.value())
    }

    /// The `io.toml` setting that selects it: `[providers.openai] api = "responses"`.
    pub fn setting(self) -> String {
        format!("[providers.{}] {}", self.vendor(), self.choice())
    }

    /// The wire in words: `OpenAI Responses`.
    pub fn name(self) -> &'static str {
        match self {
            Wire::Anthropic2025 => "Anthropic Messages with the 2025 tool versions",
            Wire::Anthropic2026 => "Anthropic Messages with the 2026 tool versions",
            Wire::OpenAiChat => "OpenAI Chat Completions",
            Wire::OpenAiResponses => "OpenAI Responses",
            Wire::OpenRouterPlugin => "OpenRouter's web plugin",
            Wire::OpenRouterServerTools => "OpenRouter's server tools",
            Wire::Gemini => "the Gemini API",
        }
    }

    /// A short label: `openai · api = "responses"`.
    pub fn label(self) -> String {
        format!("{} · {}", self.vendor(), self.choice())
    }

    /// The wire a config value names for a vendor, or a config error naming the key
    /// and the accepted values.
    pub fn parse(vendor: Vendor, value: &str) -> Result<Wire, String> {
        Wire::ALL
            .into_iter()
            .find(|w| w.vendor() == vendor && w.value() == value)
            .ok_or_else(|| {
                let accepted: Vec<String> = Wire::ALL
                    .iter()
                    .filter(|w| w.vendor() == vendor)
                    .map(|w| format!("\"{}\"", w.value()))
                    .collect();
                format!(
                    "[providers.{vendor}] {} = \"{value}\" is not a wire this crate speaks; \
                     accepted values: {} (default {})",
                    Wire::key(vendor),
                    accepted.join(", "),
                    accepted.first().map_or("", String::as_str)
                )
            })
    }

    /// Its row of the capability table.
    pub fn capabilities(self) -> Capabilities {
        CAPABILITIES
            .into_iter()
            .find(|c| c.wire == self)
            .unwrap_or(CAPABILITIES[0])
    }

    /// The path appended to the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Wire::OpenAiResponses => "/v1/responses",
            _ => self.vendor().path(),
        }
    }
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl Capabilities {
    /// Why this wire cannot carry a feature; `None` when it can.
    pub fn reason(&self, feature: Feature) -> Option<&'static str> {
        match feature {
            Feature::Fetch => self.fetch,
            Feature::AllowList => self.allow_list,
            Feature::BlockList => self.block_list,
            Feature::Cap => (self.cap == Cap::Refused)
                .then_some("its google_search and url_context tools take no cap"),
            Feature::Location => self.location,
        }
    }

    /// The first feature of the declaration this wire cannot carry.
    pub fn first_refused(&self, web: &WebAccess) -> Option<Feature> {
        declared(web)
            .into_iter()
            .find(|f| self.reason(*f).is_some())
    }
}

/// The refusable features a declaration uses, after `vendor_filter`.
pub fn declared(web: &WebAccess) -> Vec<Feature> {
    let (allowed, blocked) = web.vendor_filter();
    let mut out = Vec::new();
    if web.fetch {
        out.push(Feature::Fetch);
    }
    if !allowed.is_empty() {
        out.push(Feature::AllowList);
    }
    if !blocked.is_empty() {
        out.push(Feature::BlockList);
    }
    if web.max_uses.is_some() {
        out.push(Feature::Cap);
    }
    if web.search && web.location.is_some() {
        out.push(Feature::Location);
    }
    out
}

/// Another wire of the same vendor that carries the whole declaration, if any.
pub fn carrier(wire: Wire, web: &WebAccess) -> Option<Wire> {
    Wire::ALL.into_iter().find(|w| {
        *w != wire && w.vendor() == wire.vendor() && w.capabilities().first_refused(web).is_none()
    })
}

/// The refusal for a declaration this wire cannot carry, or `None`.
pub fn refusal(wire: Wire, web: &WebAccess) -> Option<String> {
    let feature = wire.capabilities().first_refused(web)?;
    let (allowed, blocked) = web.vendor_filter();
    let text = if wire.vendor() == Vendor::Gemini {
        gemini_text(feature, &allowed, &blocked, web.max_uses)
    } else if wire.is_spec() {
        spec_text(wire.vendor(), feature, &allowed, &blocked)
    } else {
        new_wire_text(wire, feature, &allowed, &blocked)
    };
    Some(match carrier(wire, web) {
        Some(other) => {
            let head = text.trim_end_matches(" No request was sent.");
            format!(
                "{head} {} can carry this declaration: use `{}` in [providers.{}]. No request was \
                 sent.",
                other.name(),
                other.choice(),
                other.vendor()
            )
        }
        None => text,
    })
}

/// The spec's exact refusal texts, on the spec's wires.
fn spec_text(vendor: Vendor, feature: Feature, allowed: &[String], blocked: &[String]) -> String {
    match (vendor, feature) {
        (Vendor::OpenAi, Feature::Fetch) => "provider \"openai\" cannot fetch pages — its Chat \
             Completions API has no provider-executed fetch tool; turn fetch off, or use provider \
             \"anthropic\" to fetch. No request was sent."
            .to_string(),
        (Vendor::OpenAi, _) => "provider \"openai\" cannot block individual domains — its web \
             search filter is allow-list only; state the hosts to allow instead of the ones to \
             block. No request was sent."
            .to_string(),
        (_, Feature::Fetch) => "provider \"openrouter\" cannot fetch pages — its web plugin runs \
             searches only; turn fetch off, or use provider \"anthropic\" to fetch. No request \
             was sent."
            .to_string(),
        (_, Feature::AllowList) => format!(
            "provider \"openrouter\" cannot restrict search to individual domains — its web \
             plugin takes no domain filter; remove the allowed domains ({}) or use provider \
             \"anthropic\". No request was sent.",
            allowed.join(", ")
        ),
        (_, Feature::BlockList) => format!(
            "provider \"openrouter\" cannot block individual domains — its web plugin takes no \
             domain filter; remove the blocked domains ({}) or use provider \"anthropic\". No \
             request was sent.",
            blocked.join(", ")
        ),
        // No spec wire refuses a cap or a location (the table says how each
        // carries them).
        (_, Feature::Cap | Feature::Location) => {
            new_wire_text(Wire::spec(vendor), feature, allowed, blocked)
        }
    }
}

/// Gemini's refusals, in the spec's form: the vendor, what cannot be done, why
/// (the capability table's reason), what to do instead, nothing sent.
fn gemini_text(
    feature: Feature,
    allowed: &[String],
    blocked: &[String],
    cap: Option<u32>,
) -> String {
    let why = Wire::Gemini
        .capabilities()
        .reason(feature)
        .unwrap_or_default();
    let advice = match feature {
        Feature::Fetch => "turn fetch off".to_string(),
        Feature::AllowList => format!(
            "remove the allowed domains ({}) or use provider \"anthropic\"",
            allowed.join(", ")
        ),
        Feature::BlockList => format!(
            "remove the blocked domains ({}) or use provider \"anthropic\"",
            blocked.join(", ")
        ),
        Feature::Cap => "remove max_uses or use provider \"anthropic\"".to_string(),
        Feature::Location => "remove [web] location or use provider \"anthropic\"".to_string(),
    };
    let what = match (feature, cap) {
        (Feature::Cap, Some(n)) => format!("{} (max_uses = {n})", feature.refused_as()),
        _ => feature.refused_as().to_string(),
    };
    format!("provider \"gemini\" cannot {what} — {why}; {advice}. No request was sent.")
}

/// The spec's form on a wire the spec does not name.
fn new_wire_text(wire: Wire, feature: Feature, allowed: &[String], blocked: &[String]) -> String {
    let vendor = wire.vendor();
    let why = wire.capabilities().reason(feature).unwrap_or_default();
    let setting = wire.choice();
    let advice = match feature {
        Feature::Fetch => "turn fetch off, or use provider \"anthropic\" to fetch".to_string(),
        Feature::AllowList => format!(
            "remove the allowed domains ({}) or use provider \"anthropic\"",
            allowed.join(", ")
        ),
        Feature::BlockList => format!(
            "state the hosts to allow instead of the ones to block ({}), or use provider \
             \"anthropic\"",
            blocked.join(", ")
        ),
        Feature::Cap => "remove max_uses or use provider \"anthropic\"".to_string(),
        Feature::Location => "remove [web] location or use provider \"anthropic\"".to_string(),
    };
    format!(
        "provider \"{vendor}\" with {setting} cannot {} — {why}; {advice}. No request was sent.",
        feature.refused_as()
    )
}

/// Whether this wire can carry the declaration; the refusal if not, derived from
/// the capability table. `encode` calls it first; a `Fallback` calls it for every
/// member before any request.
pub fn check_wire(wire: Wire, web: Option<&WebAccess>) -> Result<()> {
    let Some(web) = web.filter(|w| w.enabled()) else {
        return Ok(());
    };
    web.check_not_emptied()?;
    match refusal(wire, web) {
        Some(text) => Err(Error::config(text)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_one_row_per_wire_in_order() {
        let rows: Vec<Wire> = CAPABILITIES.iter().map(|c| c.wire).collect();
        assert_eq!(rows, Wire::ALL.to_vec());
    }

    #[test]
    fn parse_names_the_key_and_the_accepted_values() {
        assert_eq!(
            Wire::parse(Vendor::OpenAi, "responses"),
            Ok(Wire::OpenAiResponses)
        );
        assert_eq!(
            Wire::parse(Vendor::OpenAi, "respones").unwrap_err(),
            "[providers.openai] api = \"respones\" is not a wire this crate speaks; accepted \
             values: \"chat\", \"responses\" (default \"chat\")"
        );
        assert_eq!(
            Wire::parse(Vendor::Anthropic, "2024").unwrap_err(),
            "[providers.anthropic] web_tools = \"2024\" is not a wire this crate speaks; \
             accepted values: \"2025\", \"2026\" (default \"2025\")"
        );
    }
}
