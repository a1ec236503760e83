//! What one vendor response means, in vendor-neutral terms: the `Completion` every
//! decoder produces and the loop consumes.
//!
//! `Option` fields stay `None` where the vendor said nothing, so "not reported" and
//! "reported as blank" remain different facts.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::core::vendor::Vendor;

/// A source the provider returned for its answer. Evidence about the answer, not
/// about the world: nothing here was fetched or checked by this crate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    /// The only field every vendor supplies.
    pub url: String,
    /// The page title, where the vendor gave one.
    pub title: Option<String>,
    /// The quoted passage, where the vendor gave one.
    pub cited_text: Option<String>,
}

/// A part of the answer its vendor said sources support: where it is in
/// `Completion::text` (byte offsets, on character boundaries) and the URLs of the
/// citations given for it, in order, each once. Anthropic's is a text block with
/// `citations`; OpenAI's and OpenRouter's a `url_citation`'s `start_index` to
/// `end_index` (characters, counted as Unicode scalar values; both 0 or absent:
/// the whole text); Gemini's a `groundingSupports` segment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// Where it starts in the answer text, in bytes.
    pub start: usize,
    /// Where it ends (exclusive), in bytes.
    pub end: usize,
    /// The URLs cited for it.
    pub urls: Vec<String>,
}

impl Claim {
    /// Add `url` as a source of the text from `start` to `end` of `text`, the
    /// span clamped to the text and moved onto character boundaries; a span
    /// already claimed gains the URL (once).
    pub fn add(claims: &mut Vec<Claim>, text: &str, start: usize, end: usize, url: &str) {
        let end = floor_boundary(text, end.min(text.len()));
        let start = floor_boundary(text, start.min(end));
        match claims.iter_mut().find(|c| c.start == start && c.end == end) {
            Some(c) if c.urls.iter().any(|u| u == url) => {}
            Some(c) => c.urls.push(url.to_string()),
            None => claims.push(Claim {
                start,
                end,
                urls: vec![url.to_string()],
            }),
        }
    }

    /// The claimed text of `answer` (empty when the span is not in it).
    pub fn text<'a>(&self, answer: &'a str) -> &'a str {
        answer.get(self.start..self.end).unwrap_or_default()
    }
}

/// Claims built as a decoder reads them: past a few claims a span is found by a
/// map, and past a few URLs on a claim a URL by a set (below that a short list
/// is scanned, which is cheaper than hashing), never by a scan of everything,
/// so an answer with many claims or one claim naming many sources costs time in
/// proportion to what it says (`Claim::add` on a list scans it). At most
/// `limit` links (a claim's URL is one) are kept; the rest are counted
/// (`Cut::claim_links`), never allocated.
#[derive(Debug, Default)]
pub struct ClaimSet {
    claims: Vec<Claim>,
    spans: Option<HashMap<(usize, usize), usize>>,
    urls: Vec<Option<HashSet<String>>>,
    links: usize,
    limit: usize,
    cut: u64,
}

/// How many claims, or URLs on a claim, are scanned before a map or a set
/// finds them.
const SCANNED: usize = 16;

impl ClaimSet {
    /// An empty set keeping at most `limit` links.
    pub fn new(limit: usize) -> Self {
        ClaimSet {
            limit,
            ..ClaimSet::default()
        }
    }

    /// The claim of this span, if there is one.
    fn claim_of(&self, span: (usize, usize)) -> Option<usize> {
        match &self.spans {
            Some(map) => map.get(&span).copied(),
            None => self.claims.iter().rposition(|c| (c.start, c.end) == span),
        }
    }

    /// Whether claim `i` already names `url`.
    fn names(&self, i: usize, url: &str) -> bool {
        match &self.urls[i] {
            Some(set) => set.contains(url),
            None => self.claims[i].urls.iter().any(|u| u == url),
        }
    }

    /// Add `url` as a source of `text` from `start` to `end`, as `Claim::add`
    /// does (the span clamped and moved onto character boundaries, a span
    /// already claimed gaining the URL once).
    pub fn add(&mut self, text: &str, start: usize, end: usize, url: &str) {
        let end = floor_boundary(text, end.min(text.len()));
        let start = floor_boundary(text, start.min(end));
        let at = self.claim_of((start, end));
        if at.is_some_and(|i| self.names(i, url)) {
            return;
        }
        if self.links >= self.limit {
            self.cut += 1;
            return;
        }
        self.links += 1;
        let i = at.unwrap_or_else(|| self.open(start, end));
        let urls = &mut self.claims[i].urls;
        urls.push(url.to_string());
        match &mut self.urls[i] {
            Some(set) => {
                set.insert(url.to_string());
            }
            None if urls.len() > SCANNED => {
                self.urls[i] = Some(urls.iter().cloned().collect());
            }
            None => {}
        }
    }

    /// A new claim of this span, without URLs yet: its index.
    fn open(&mut self, start: usize, end: usize) -> usize {
        let i = self.claims.len();
        self.claims.push(Claim {
            start,
            end,
            urls: Vec::new(),
        });
        self.urls.push(None);
        match &mut self.spans {
            Some(map) => {
                map.insert((start, end), i);
            }
            None if self.claims.len() > SCANNED => {
                let map = self.claims.iter().enumerate();
                self.spans = Some(map.map(|(k, c)| ((c.start, c.end), k)).collect());
            }
            None => {}
        }
        i
    }

    /// The claims in the order first given, and how many links were left out.
    pub fn finish(self) -> (Vec<Claim>, u64) {
        (self.claims, self.cut)
    }
}

/// The largest character boundary of `text` at or before `i`.
pub fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The byte offset of the `n`th character of `text` (its length past the end).
pub fn char_offset(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// One provider-executed tool call (a web search or fetch the vendor ran).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerToolCall {
    /// `anthropic`, `openai`, `openrouter`.
    pub provider: Vendor,
    /// The vendor's tool name: `web_search`, `web_fetch`.
    pub tool: String,
    /// The vendor's own error code when the call failed; `None` when it ran.
    pub error: Option<String>,
    /// What it was asked (the query or the URL), where the vendor said.
    pub input: Option<String>,
}

impl ServerToolCall {
    /// A call that ran (possibly finding nothing).
    pub fn ok(provider: Vendor, tool: impl Into<String>) -> Self {
        ServerToolCall {
            provider,
            tool: tool.into(),
            error: None,
            input: None,
        }
    }

    /// The code of a call started and never answered: the response ended
    /// (a paused turn, a cut-off answer) before its result came.
    pub const UNANSWERED: &'static str = "unanswered";

    /// A call started and never answered (`UNANSWERED`): counted as made and
    /// failed, said as unanswered.
    pub fn unanswered(provider: Vendor, tool: impl Into<String>) -> Self {
        ServerToolCall::failed(provider, tool, Self::UNANSWERED)
    }

    /// True when the call was started and never answered.
    pub fn is_unanswered(&self) -> bool {
        self.error.as_deref() == Some(Self::UNANSWERED)
    }

    /// A call that failed with the vendor's own code.
    pub fn failed(provider: Vendor, tool: impl Into<String>, code: impl Into<String>) -> Self {
        ServerToolCall {
            error: Some(code.into()),
            ..ServerToolCall::ok(provider, tool)
        }
    }

    /// Attach what the call was asked.
    pub fn with_input(mut self, input: impl Into<String>) -> Self {
        self.input = Some(input.into());
        self
    }

    /// True when the call ran.
    pub fn succeeded(&self) -> bool {
        self.error.is_none()
    }

    /// A fetch (`web_fetch`, any tool named for fetching), as fees count it.
    pub fn is_fetch(&self) -> bool {
        self.tool.contains("fetch")
    }

    /// A search (a tool named for searching that is not a fetch).
    pub fn is_search(&self) -> bool {
        !self.is_fetch() && self.tool.contains("search")
    }
}

/// What an answer said that its step did not record, past the per-step caps
/// every wire shares (`core::capability::MAX_SERVER_TOOL_CALLS`,
/// `MAX_CITATIONS`, `MAX_CITED_BYTES`): counted, never allocated, so what a
/// vendor claims decides neither memory nor how many rows are written. All 0
/// when nothing was left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    /// Provider-executed tool calls left out, ok and failed.
    pub server_tool_calls: u64,
    /// Of them, searches that ran: their fees are still counted.
    pub searches: u64,
    /// Of them, fetches that ran: their fees are still counted.
    pub fetches: u64,
    /// Citations left out.
    pub citations: u64,
    /// Links between a claim and a source left out.
    pub claim_links: u64,
}

impl Cut {
    /// Nothing was left out.
    pub fn is_empty(&self) -> bool {
        *self == Cut::default()
    }

    /// One call left out.
    pub fn call(&mut self, call: &ServerToolCall) {
        self.server_tool_calls = self.server_tool_calls.saturating_add(1);
        if call.succeeded() {
            if call.is_fetch() {
                self.fetches = self.fetches.saturating_add(1);
            } else if call.is_search() {
                self.searches = self.searches.saturating_add(1);
            }
        }
    }
}

/// A local tool the model asked this process to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The vendor's id for the call.
    pub id: String,
    /// The tool name (`read_file`, …).
    pub name: String,
    /// The arguments, as JSON.
    pub input: serde_json::Value,
}

/// Why the vendor stopped generating.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    /// The answer is finished.
    #[default]
    EndTurn,
    /// The model wants local tools run.
    ToolUse,
    /// The output token limit was hit.
    MaxTokens,
    /// A stop sequence was produced.
    StopSequence,
    /// A server tool ran long; the turn continues in another request.
    PauseTurn,
    /// The model declined.
    Refusal,
    /// Anything else, as the vendor spelled it.
    Other(String),
}

impl StopReason {
    /// The vendor-neutral name stored in `provider_calls.stop_reason`.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::PauseTurn => "pause_turn",
            StopReason::Refusal => "refusal",
            StopReason::Other(s) => s,
        }
    }

    /// The inverse of `as_str`.
    pub fn parse(s: &str) -> Self {
        match s {
            "end_turn" => StopReason::EndTurn,
            "tool_use" => StopReason::ToolUse,
            "max_tokens" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "pause_turn" => StopReason::PauseTurn,
            "refusal" => StopReason::Refusal,
            other => StopReason::Other(other.to_string()),
        }
    }
}

/// Token and request counts for one completion, in one vendor-neutral shape.
///
/// `input_tokens` is the input billed at the plain input rate: Anthropic reports
/// cache writes and reads beside it, OpenAI and OpenRouter inside `prompt_tokens`,
/// so the decoders subtract them there. Every input token is counted exactly once
/// across `input_tokens`, `cache_write_tokens` and `cache_read_tokens`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens at the plain input rate (cache writes and reads not included).
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Provider-executed requests (searches, fetches) the vendor reported.
    pub server_tool_requests: u64,
    /// Prompt tokens written to the vendor's cache (Anthropic
    /// `cache_creation_input_tokens`, OpenAI/OpenRouter `cache_write_tokens`).
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Of `cache_write_tokens`, those written for an hour (Anthropic
    /// `cache_creation.ephemeral_1h_input_tokens`), priced at their own rate.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_1h_tokens: u64,
    /// Prompt tokens read from the vendor's cache (Anthropic
    /// `cache_read_input_tokens`, OpenAI/OpenRouter `cached_tokens`).
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Of `server_tool_requests`, the fetches (Anthropic `web_fetch_requests`); the
    /// rest are searches.
    #[serde(default)]
    pub web_fetch_requests: u64,
    /// The request's whole cost as the vendor itself reported it (OpenRouter
    /// `usage.cost`), in millionths of a US dollar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_cost_micro_usd: Option<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// The largest count a decoder reports (what the store can hold). A vendor's
    /// larger, negative-looking or fractional-overflowing count is clamped to it,
    /// and `clamped()` lets the loop say so.
    pub const MAX_COUNT: u64 = i64::MAX as u64;

    /// Add another completion's counts to these, saturating (never wrapping). A
    /// reported cost is per request and is not summed here; the ledger sums costs.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.server_tool_requests = self
            .server_tool_requests
            .saturating_add(other.server_tool_requests);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_1h_tokens = self
            .cache_write_1h_tokens
            .saturating_add(other.cache_write_1h_tokens);
        self.web_fetch_requests = self
            .web_fetch_requests
            .saturating_add(other.web_fetch_requests);
    }

    /// Every input token (plain, cache writes, cache reads) plus output tokens, saturating.
    pub fn total_tokens(&self) -> u64 {
        self.all_input_tokens().saturating_add(self.output_tokens)
    }

    /// Every input token, cached or not, saturating.
    pub fn all_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_write_tokens)
            .saturating_add(self.cache_read_tokens)
    }

    /// Whether a decoder clamped one of these counts (the vendor reported more
    /// than `MAX_COUNT`).
    pub fn clamped(&self) -> bool {
        [
            self.input_tokens,
            self.output_tokens,
            self.server_tool_requests,
            self.cache_write_tokens,
            self.cache_read_tokens,
        ]
        .contains(&Usage::MAX_COUNT)
    }
}

/// One vendor response, decoded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The vendor that answered (`anthropic`, `openai`, `openrouter`).
    pub provider: Vendor,
    /// The answer text, every text block joined.
    pub text: String,
    /// Local tools the model asked for, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Sources the vendor returned, in order, duplicates kept (the store dedups).
    pub citations: Vec<Citation>,
    /// What each source was cited for: the parts of `text` the vendor tied
    /// citations to, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Claim>,
    /// Provider-executed tool calls, ok and failed.
    pub server_tools: Vec<ServerToolCall>,
    /// Why generation stopped, in vendor-neutral terms.
    pub stop: StopReason,
    /// Why generation stopped as the vendor itself said it (Anthropic
    /// `stop_reason`, Chat `finish_reason`, Responses `status` or its
    /// `incomplete_details.reason`, Gemini `finishReason` or a blocked prompt's
    /// `promptFeedback.blockReason`): what a trace reports. `None` where the
    /// vendor said nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Counts, where the vendor sent them.
    pub usage: Option<Usage>,
    /// The model that answered, as the vendor named it.
    pub model: Option<String>,
    /// The vendor's request id, from the body or headers.
    pub request_id: Option<String>,
    /// The answer's own blocks, each the vendor's JSON with every field in its
    /// order (Anthropic `content` blocks, Responses `output` items, the Chat
    /// `message`): what a transcript sends back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<String>,
    /// The body's own `id` (`previous_response_id` on Responses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The search suggestions a vendor requires an application to show beside a
    /// grounded answer (Gemini's `searchEntryPoint.renderedContent`, HTML and CSS
    /// as Google sent them); `None` where the vendor sent none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_suggestions: Option<String>,
    /// What the answer said past the per-step caps, counted but not kept.
    #[serde(default, skip_serializing_if = "Cut::is_empty")]
    pub cut: Cut,
}

/// Each element of a JSON array as compact JSON text (`[]` for anything else).
pub fn json_blocks(v: Option<&serde_json::Value>) -> Vec<String> {
    match v {
        // Written straight into a buffer (`Display` goes through a formatter,
        // a third slower); a `Value` always serializes.
        Some(serde_json::Value::Array(items)) => items.iter().map(compact).collect(),
        Some(other) if other.is_object() => vec![compact(other)],
        _ => Vec::new(),
    }
}

/// A value as compact JSON text.
fn compact(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set past its scanned sizes (more than 16 claims, a claim with more than
    /// 16 URLs, spans and URLs given again in any order) keeps what `Claim::add`
    /// on a list keeps, in the same order; past its limit it counts.
    #[test]
    fn a_claim_set_keeps_what_a_list_keeps_past_its_scanned_sizes() {
        let text = "é".repeat(200);
        let mut set = ClaimSet::new(10_000);
        let mut list = Vec::new();
        let mut x: u64 = 7;
        for _ in 0..3_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let span = ((x >> 33) % 40) as usize * 3;
            let url = format!("https://h/{}", (x >> 17) % 50);
            set.add(&text, span, span + 5, &url);
            Claim::add(&mut list, &text, span, span + 5, &url);
        }
        let (claims, cut) = set.finish();
        assert_eq!(cut, 0);
        assert!(claims.len() > 16 && claims.iter().any(|c| c.urls.len() > 16));
        assert_eq!(claims, list);
        let mut small = ClaimSet::new(3);
        for u in ["a", "b", "a", "c", "d"] {
            small.add("text", 0, 4, u);
        }
        let (claims, cut) = small.finish();
        assert_eq!((claims[0].urls.len(), cut), (3, 1));
    }
}
