//! What each wire can carry, as data: one row a wire (`Wire` itself is in
//! `core::vendor`), and the refusals derived from it.
//!
//! A vendor may offer more than one wire (OpenAI's Chat Completions and Responses;
//! OpenRouter's web plugin and its server tools; Anthropic's 2025 and 2026 tool
//! versions). `CAPABILITIES` is one row per wire; `encode`'s refusals and the
//! console's portability view are both derived from it, so they cannot disagree.
//! The spec's wires keep the spec's exact refusal texts; the others take the spec's
//! form (vendor and wire named, what cannot be carried, "No request was sent.").
//! A new wire is one encoder file plus one row here.

use crate::core::contract::Verification;
use crate::core::error::{Error, Result};
use crate::core::refusal::{Asked, Feature, Refusal};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

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
    /// What the cap means there, for the portability view and docs/vendors.md.
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
    /// Where the vendor reports each request's cost itself (OpenRouter's
    /// `usage.cost`): that figure is the cost of record, and a dollar budget
    /// needs no price table for it. `None`: the price table prices it.
    pub own_cost: Option<&'static str>,
    /// Its answers can be streamed (an assembler exists for its events); an
    /// endpoint asks for a stream only where this is true.
    pub streams: bool,
    /// X search (`[web] x_search`): `None` when carried, else why not.
    pub x_search: Option<&'static str>,
    /// Local tools (function calling): `None` when the wire offers them to the
    /// model, else why not — a run there offers none, and a task that can only
    /// pass through one is refused.
    pub local_tools: Option<&'static str>,
    /// Why a declared cap cannot be carried, where `cap` is `Cap::Refused`.
    pub uncapped: Option<&'static str>,
    /// The most entries the vendor takes in a domain list; `None`: no stated limit.
    pub max_domains: Option<usize>,
    /// The most X handles the vendor takes in a list.
    pub max_x_handles: Option<usize>,
}

/// Why a wire without xAI's tool cannot search X.
const NO_X_SEARCH: &str = "it has no X search tool (x_search is xAI's)";

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
            own_cost: None,
            streams: true,
            x_search: Some(NO_X_SEARCH),
            local_tools: None,
            uncapped: None,
            max_domains: None,
            max_x_handles: None,
        }
    }
}

/// The most provider-executed tool calls (searches, fetches) one step records,
/// the same on every wire: what a vendor lists past it (a million
/// `webSearchQueries`, a counter of a million) is counted in
/// `Completion::cut`, said in the run's output and stored with the step's
/// accounting, not written row by row; the fees of the calls left out are still
/// counted, as the vendor reported them. 64 is above any step an honest answer
/// has shown (a deep-research answer runs a few dozen searches) and bounds the
/// rows, events and printed lines a hostile one can make. Applied to every
/// answer in one place: `core::wire::cap`.
pub const MAX_SERVER_TOOL_CALLS: usize = 64;

/// The most citations one step records, the same on every wire; the links
/// between claims and sources are held to the same number. Past it citations
/// are counted, not kept (`Completion::cut`).
pub const MAX_CITATIONS: usize = 256;

/// The most bytes of citation text (URL, title and quote together) one step
/// records, whatever their number: a quote is the answer's text or a page's, and
/// a vendor that names one long quote for every source cannot make a step cost
/// more than this in memory, rows or output.
pub const MAX_CITED_BYTES: usize = 8 << 20;

/// The table, one row per wire, in `Wire::ALL` order.
pub const CAPABILITIES: [Capabilities; 10] = [
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
        own_cost: None,
        streams: true,
        ..Capabilities::everything(Wire::OpenAiChat)
    },
    Capabilities {
        wire: Wire::OpenAiResponses,
        search: None,
        fetch: Some("its Responses API has no provider-executed fetch tool"),
        allow_list: None,
        block_list: Some("its web_search filter is allow-list only"),
        location: None,
        cap: Cap::AllToolCalls,
        own_cost: None,
        streams: true,
        ..Capabilities::everything(Wire::OpenAiResponses)
    },
    Capabilities {
        wire: Wire::OpenRouterPlugin,
        search: None,
        fetch: Some("its web plugin runs searches only"),
        allow_list: Some("its web plugin takes no domain filter"),
        block_list: Some("its web plugin takes no domain filter"),
        location: None,
        cap: Cap::Results,
        own_cost: Some("usage.cost"),
        streams: true,
        ..Capabilities::everything(Wire::OpenRouterPlugin)
    },
    Capabilities {
        own_cost: Some("usage.cost"),
        ..Capabilities::everything(Wire::OpenRouterServerTools)
    },
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
        own_cost: None,
        streams: true,
        uncapped: Some("its google_search and url_context tools take no cap"),
        ..Capabilities::everything(Wire::Gemini)
    },
    // xAI's Responses API (its OpenAPI, xai-org/xai-sdk-ts spec/openapi.json @
    // 41e766ac, `ModelTool` and `ModelRequest`; docs.x.ai tools pages, read
    // 2026-12-05): `web_search` takes allowed_domains or excluded_domains, at most
    // five, and rejects user_location; `x_search` takes handles (ten, the
    // OpenAPI's limit; the docs say twenty) and dates; no fetch tool, and no cap
    // on tool calls (`max_tool_calls` is not a request field; `max_turns` caps
    // agentic turns, each of which may run several searches).
    Capabilities {
        wire: Wire::Xai,
        search: None,
        fetch: Some("its Responses API has no provider-executed fetch tool"),
        allow_list: None,
        block_list: None,
        location: Some(
            "its web_search tool takes no user_location (xAI's API reference: a request \
             setting it is rejected)",
        ),
        cap: Cap::Refused,
        own_cost: Some("usage.cost_in_usd_ticks"),
        streams: true,
        x_search: None,
        local_tools: None,
        uncapped: Some(
            "its Responses API has no cap on tool calls (max_turns caps agentic turns, each of \
             which may run several searches)",
        ),
        max_domains: Some(5),
        max_x_handles: Some(10),
    },
    // Perplexity's Agent API (docs.perplexity.ai "Create Response" OpenAPI and
    // perplexityai/perplexity-py 0.38.0 `response_create_params`): `web_search`
    // with `filters.search_domain_filter` (at most 20 entries, a `-` denying) and
    // `user_location`, `fetch_url`, function tools, `max_tool_calls`.
    Capabilities {
        wire: Wire::PerplexityAgent,
        search: None,
        fetch: None,
        allow_list: None,
        block_list: None,
        location: None,
        cap: Cap::AllToolCalls,
        own_cost: Some("usage.cost.total_cost"),
        streams: true,
        x_search: Some(NO_X_SEARCH),
        local_tools: None,
        uncapped: None,
        max_domains: Some(20),
        max_x_handles: None,
    },
    // Sonar on Chat Completions (docs.perplexity.ai Sonar API reference and
    // search filter guides): it searches unless `disable_search`, filters domains
    // with `search_domain_filter`, localises with `web_search_options`; it has no
    // fetch, no cap on its searches and takes no function tools.
    Capabilities {
        wire: Wire::PerplexitySonar,
        search: None,
        fetch: Some("Sonar has no provider-executed fetch of a named page"),
        allow_list: None,
        block_list: None,
        location: None,
        cap: Cap::Refused,
        own_cost: Some("usage.cost.total_cost"),
        streams: true,
        x_search: Some(NO_X_SEARCH),
        local_tools: Some("Sonar takes no function tools"),
        uncapped: Some("Sonar takes no cap on its searches"),
        max_domains: Some(20),
        max_x_handles: None,
    },
];

impl Wire {
    /// Its row of the capability table.
    pub fn capabilities(self) -> Capabilities {
        CAPABILITIES
            .into_iter()
            .find(|c| c.wire == self)
            .unwrap_or(CAPABILITIES[0])
    }
}

impl Capabilities {
    /// Why this wire cannot carry a feature; `None` when it can.
    pub fn reason(&self, feature: Feature) -> Option<&'static str> {
        match feature {
            Feature::Fetch => self.fetch,
            Feature::AllowList => self.allow_list,
            Feature::BlockList => self.block_list,
            Feature::Cap => self.uncapped.filter(|_| self.cap == Cap::Refused),
            Feature::Location => self.location,
            Feature::XSearch => self.x_search,
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
    if web.x_search {
        out.push(Feature::XSearch);
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
pub fn refusal(wire: Wire, web: &WebAccess) -> Option<Refusal> {
    let feature = wire.capabilities().first_refused(web)?;
    let (allowed, blocked) = web.vendor_filter();
    let why = wire.capabilities().reason(feature).unwrap_or_default();
    let instead = instead(wire, feature, &allowed, &blocked);
    let spec_vendor = matches!(
        wire.vendor(),
        Vendor::Anthropic | Vendor::OpenAi | Vendor::OpenRouter
    );
    let text = if wire.is_spec() && spec_vendor {
        spec_text(wire.vendor(), feature, &allowed, &blocked)
    } else if wire.is_spec() {
        default_wire_text(wire, feature, &instead, web.max_uses)
    } else {
        new_wire_text(wire, feature, &instead)
    };
    let (instead, text) = match carrier(wire, web) {
        Some(other) => {
            let head = text.trim_end_matches(" No request was sent.");
            let use_other = format!("use `{}` in [providers.{}]", other.choice(), other.vendor());
            let text = format!(
                "{head} {} can carry this declaration: {use_other}. No request was sent.",
                other.name()
            );
            (use_other, text)
        }
        None => (instead, text),
    };
    Some(Refusal::new(
        wire,
        Asked::Feature(feature),
        why,
        instead,
        text,
    ))
}

/// What to do instead of declaring `feature` on `wire`, in the refusal's words.
pub fn instead(wire: Wire, feature: Feature, allowed: &[String], blocked: &[String]) -> String {
    match feature {
        Feature::Fetch => "turn fetch off, or use provider \"anthropic\" to fetch".to_string(),
        Feature::AllowList => format!(
            "remove the allowed domains ({}) or use provider \"anthropic\"",
            allowed.join(", ")
        ),
        // Where the wire takes an allow-list, that is the way to narrow search.
        Feature::BlockList if wire.capabilities().allow_list.is_none() => format!(
            "state the hosts to allow instead of the ones to block ({}), or use provider \
             \"anthropic\"",
            blocked.join(", ")
        ),
        Feature::BlockList => format!(
            "remove the blocked domains ({}) or use provider \"anthropic\"",
            blocked.join(", ")
        ),
        Feature::Cap => "remove max_uses or use provider \"anthropic\"".to_string(),
        Feature::Location => "remove [web] location or use provider \"anthropic\"".to_string(),
        Feature::XSearch => "remove [web] x_search or use provider \"xai\"".to_string(),
    }
}

/// The spec's exact refusal texts, on the spec's wires.
fn spec_text(vendor: Vendor, feature: Feature, allowed: &[String], blocked: &[String]) -> String {
    match (vendor, feature) {
        // No spec wire refuses a cap or a location (the table says how each
        // carries them); X search is newer than the spec's texts.
        (_, Feature::Cap | Feature::Location | Feature::XSearch) => {
            let wire = Wire::spec(vendor);
            new_wire_text(wire, feature, &instead(wire, feature, allowed, blocked))
        }
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
    }
}

/// The refusals of the default wire of a vendor the spec does not name (Gemini,
/// xAI, Perplexity's Agent API), in the spec's form: the vendor, what cannot be
/// done, why (the capability table's reason), what to do instead, nothing sent.
fn default_wire_text(wire: Wire, feature: Feature, instead: &str, cap: Option<u32>) -> String {
    let why = wire.capabilities().reason(feature).unwrap_or_default();
    let what = match (feature, cap) {
        (Feature::Cap, Some(n)) => format!("{} (max_uses = {n})", feature.refused_as()),
        _ => feature.refused_as().to_string(),
    };
    let vendor = wire.vendor();
    format!("provider \"{vendor}\" cannot {what} — {why}; {instead}. No request was sent.")
}

/// The spec's form on a wire the spec does not name.
fn new_wire_text(wire: Wire, feature: Feature, instead: &str) -> String {
    let vendor = wire.vendor();
    let why = wire.capabilities().reason(feature).unwrap_or_default();
    let setting = wire.choice();
    format!(
        "provider \"{vendor}\" with {setting} cannot {} — {why}; {instead}. No request was sent.",
        feature.refused_as()
    )
}

/// Whether this wire can carry the declaration; the refusal if not, derived from
/// the capability table. `encode` calls it first; a `Fallback` calls it for every
/// member before any request.
pub fn carries(wire: Wire, web: Option<&WebAccess>) -> Result<()> {
    let Some(web) = web.filter(|w| w.enabled()) else {
        return Ok(());
    };
    if let Some((why, instead, text)) = web.emptied() {
        return Err(Refusal::new(wire, Asked::NoHost, why, instead, text).into());
    }
    match refusal(wire, web).or_else(|| too_many(wire, web)) {
        Some(refusal) => Err(Error::from(refusal)),
        None => Ok(()),
    }
}

/// Whether `wire` can carry a task whose verification only a local tool can
/// satisfy (a workspace file the model must write): the refusal, naming why,
/// where the wire offers the model no local tools (Sonar). Checked before any
/// request, by a run and by its preview.
pub fn carries_task(wire: Wire, verification: &Verification) -> Result<()> {
    let Some(why) = wire.capabilities().local_tools else {
        return Ok(());
    };
    let Verification::WorkspaceFileContains { file, needle } = verification else {
        return Ok(());
    };
    let other = Wire::ALL
        .into_iter()
        .find(|w| w.vendor() == wire.vendor() && w.capabilities().local_tools.is_none());
    let instead = match other {
        Some(w) => format!(
            "use `{}` in [providers.{}], or another provider",
            w.choice(),
            w.vendor()
        ),
        None => "use another provider".to_string(),
    };
    let setting = if wire.is_spec() {
        String::new()
    } else {
        format!(" with {}", wire.choice())
    };
    let why = format!(
        "{why}, so the model cannot write the file this task is verified by ({} must contain \
         {needle:?}): it can only pass through a local tool",
        file.display()
    );
    let text = format!(
        "provider \"{}\"{setting} cannot run a task verified in the workspace — {why}; \
         {instead}. No request was sent.",
        wire.vendor()
    );
    Err(Refusal::new(wire, Asked::LocalTools, why, instead, text).into())
}

/// The refusal for a list longer than the wire takes (the row's `max_domains`,
/// `max_x_handles`), naming the list, the limit and what was given.
pub fn too_many(wire: Wire, web: &WebAccess) -> Option<Refusal> {
    let row = wire.capabilities();
    let (allowed, blocked) = web.vendor_filter();
    let (handles, excluded) = web.x_filter();
    let domains = web.search || web.fetch;
    let lists = [
        (
            row.max_domains.filter(|_| domains),
            "allowed_domains",
            allowed.len(),
        ),
        (
            row.max_domains.filter(|_| domains),
            "blocked_domains",
            blocked.len(),
        ),
        (
            row.max_x_handles.filter(|_| web.x_search),
            "x_handles.allow",
            handles.len(),
        ),
        (
            row.max_x_handles.filter(|_| web.x_search),
            "x_handles.exclude",
            excluded.len(),
        ),
    ];
    let (limit, list, given) = lists
        .into_iter()
        .find_map(|(limit, list, given)| limit.filter(|l| given > *l).map(|l| (l, list, given)))?;
    let why = format!("{} takes at most {limit}", wire.name());
    let instead = if list.starts_with("x_") {
        format!("name at most {limit}")
    } else {
        format!("name at most {limit}, or use provider \"anthropic\"")
    };
    let setting = if wire.is_spec() {
        String::new()
    } else {
        format!(" with {}", wire.choice())
    };
    let text = format!(
        "provider \"{}\"{setting} cannot send {given} {list} — {why}; {instead}. No request \
         was sent.",
        wire.vendor()
    );
    let asked = Asked::TooMany { list, limit, given };
    Some(Refusal::new(wire, asked, why, instead, text))
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
