//! What a run reports as it happens: `Event`s carrying an `EventKind`, and the
//! `RunOutcome` that ends a run. Plain data: the loop emits, observers (the console,
//! `run --json`) consume, nothing here performs I/O.

use serde::{Deserialize, Serialize};

use crate::core::completion::{Citation, ToolCall, Usage};
use crate::core::id::RunId;
use crate::core::outcome::RunOutcome;
use crate::core::policy::Act;
use crate::core::vendor::Vendor;

/// What one request cost, itemised, in millionths of a US dollar; derived from the
/// price table, or the vendor's own figure. `None` where nothing was priced:
/// nothing invents a price.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// Plain input and output tokens at the table's prices.
    pub tokens_micro_usd: Option<u64>,
    /// Cache writes and reads at their own rates.
    pub cache_micro_usd: Option<u64>,
    /// Of the cache part, the writes (5-minute and 1-hour, each at its rate).
    #[serde(default)]
    pub cache_write_micro_usd: Option<u64>,
    /// Of the cache part, the reads.
    #[serde(default)]
    pub cache_read_micro_usd: Option<u64>,
    /// Server-tool fees (searches, fetches) at the vendor's per-request prices.
    pub fees_micro_usd: Option<u64>,
    /// How many searches and fetches the fees count.
    pub fee_requests: u64,
    /// True when the fees count the calls this program recorded because the vendor
    /// reported no counter (OpenAI, usually OpenRouter), not the vendor's meter.
    pub fees_counted_here: bool,
    /// The vendor's own figure for the whole request (OpenRouter `usage.cost`).
    pub vendor_micro_usd: Option<u64>,
    /// The request's cost: the vendor's figure, else tokens + cache + fees; `None`
    /// when any part could not be priced.
    pub total_micro_usd: Option<u64>,
    /// Why there is no total, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpriced: Option<String>,
}

impl Cost {
    /// The token part including the cache: the whole cost less the fees.
    pub fn tokens_and_cache_micro_usd(&self) -> Option<u64> {
        Some(self.tokens_micro_usd? + self.cache_micro_usd?)
    }
}

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The run it belongs to.
    pub run_id: RunId,
    /// The step it happened in (0 before the first request).
    pub step: u32,
    /// Milliseconds since the run started.
    pub elapsed_ms: u64,
    /// What happened.
    pub kind: EventKind,
}

/// What happened.
// `ProviderCalled` is the large one (a completion's summary); an event is made once
// a request, so boxing it would cost every reader a pattern change for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// The run was recorded and is starting.
    RunStarted {
        /// The goal.
        goal: String,
        /// The vendor.
        provider: Vendor,
        /// The model.
        model: String,
        /// Whether it resumes an earlier run's checkpoint.
        resumed: bool,
        /// The roster agent a spawned child runs as; `None` for a root run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        /// Its web declaration (a child's: its parent's narrowed by its own
        /// table), for an observer that records it; `None` when it has none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        web: Option<crate::core::web::WebAccess>,
        /// Why the run offers the model no local tools (its wire takes none:
        /// Sonar); `None` when it offers them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        no_local_tools: Option<String>,
    },
    /// A step (one provider request) began.
    StepStarted {
        /// Observations the request carries.
        observations: usize,
    },
    /// An HTTP attempt is in flight.
    RequestSent {
        /// 1 for the first attempt.
        attempt: u32,
    },
    /// An attempt failed in a way waiting can fix; another follows after `wait_ms`.
    Retrying {
        /// The attempt that failed.
        attempt: u32,
        /// Its HTTP status, if it got one.
        status: Option<u16>,
        /// How long before the next attempt.
        wait_ms: u64,
        /// What went wrong.
        reason: String,
    },
    /// Streamed answer text, as it arrived (the whole text is in `ProviderCalled`).
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A provider-executed tool started, its input complete (streamed answers only).
    ServerToolStarted {
        /// The vendor.
        provider: Vendor,
        /// `web_search`, `web_fetch`.
        tool: String,
        /// The vendor's id for the call.
        id: String,
        /// Its query or URL, where reported.
        input: Option<String>,
    },
    /// A provider-executed tool's result arrived (streamed answers only; the
    /// recorded call is `ServerToolUsed`, after the response is complete).
    ServerToolReturned {
        /// The vendor.
        provider: Vendor,
        /// `web_search`, `web_fetch`.
        tool: String,
        /// The id of the call it answers.
        id: String,
        /// Whether it ran.
        ok: bool,
        /// The vendor's error code when it failed.
        error: Option<String>,
        /// Its query or URL, where reported.
        input: Option<String>,
    },
    /// A source arrived in a stream (the deduplicated record is `CitationRecorded`).
    CitationReceived {
        /// The source.
        citation: Citation,
    },
    /// The model asked for a local tool; it runs once the response is complete.
    ToolCallRequested {
        /// The vendor's id for the call.
        id: String,
        /// The tool.
        name: String,
        /// Its arguments, shortened for display.
        input: String,
    },
    /// The search suggestions a vendor asks to be shown beside a grounded answer
    /// (Google Search suggestions, with Gemini): each query and its link.
    SearchSuggestions {
        /// The suggestions, in the vendor's order.
        suggestions: Vec<crate::core::suggestions::Suggestion>,
    },
    /// The vendor's count of output tokens so far in the request in flight.
    OutputTokens {
        /// Tokens generated so far.
        output_tokens: u64,
    },
    /// A completion came back and was charged.
    ProviderCalled {
        /// The vendor that answered.
        provider: Vendor,
        /// The model that answered.
        model: String,
        /// Its counts.
        usage: Option<Usage>,
        /// Its stop reason.
        stop_reason: String,
        /// Request to response.
        latency_ms: u64,
        /// Itemised: tokens, cache, fees, or the vendor's own figure.
        cost: Cost,
        /// The completion's text (the answer, or what the model said before its tool calls).
        #[serde(default)]
        text: String,
        /// The body's own id, where the vendor gave one (`gen_ai.response.id`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response_id: Option<String>,
        /// The stop reason as the vendor spelled it (`stop`), where it said one
        /// (`gen_ai.response.finish_reasons`); `stop_reason` is its neutral name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        finish_reason: Option<String>,
        /// The local tools it asked for, in order: the `ToolCalled` events that
        /// follow answer them in this order (their ids are what traces carry).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// The provider-executed calls its answer reported, made and failed
        /// (`ServerCounts::of`): what the step's line and the Run pane count.
        #[serde(default)]
        server: crate::core::counts::ServerCounts,
    },
    /// A provider-executed tool ran or failed.
    ServerToolUsed {
        /// The vendor.
        provider: Vendor,
        /// `web_search`, `web_fetch`.
        tool: String,
        /// Whether it ran.
        ok: bool,
        /// The vendor's error code when it failed.
        error: Option<String>,
        /// Its query or URL, where reported.
        input: Option<String>,
    },
    /// An answer said more than its step records: the server-tool calls,
    /// citations and claim links past the per-step caps every wire shares
    /// (`core::capability`), counted but not recorded. The fees of the searches
    /// and fetches among them are counted all the same.
    NotRecorded {
        /// Provider-executed tool calls left out, ok and failed.
        server_tool_calls: u64,
        /// Of them, searches that ran.
        searches: u64,
        /// Of them, fetches that ran.
        fetches: u64,
        /// Citations left out.
        citations: u64,
        /// Links between a claim and a source left out.
        claim_links: u64,
        /// The cap on server-tool calls a step records.
        max_server_tool_calls: usize,
        /// The cap on citations (and claim links) a step records.
        max_citations: usize,
        /// The cap on the bytes of a step's citations (URL, title and quote).
        max_cited_bytes: usize,
    },
    /// A citation was recorded (first time for this run and step).
    CitationRecorded {
        /// The source.
        citation: Citation,
    },
    /// A local tool ran (or was refused).
    ToolCalled {
        /// The tool.
        name: String,
        /// Its arguments, shortened for display.
        input: String,
        /// Whether it succeeded.
        ok: bool,
        /// Its result or error, shortened for display.
        output: String,
    },
    /// The approver was asked about an `Ask` effect.
    ApprovalAsked {
        /// The act.
        act: Act,
        /// What it applies to.
        target: String,
        /// The tool asking.
        tool: String,
        /// Why approval is needed.
        why: String,
    },
    /// The approver answered.
    ApprovalAnswered {
        /// Yes or no.
        approved: bool,
    },
    /// An observation added for the next turn.
    Observation {
        /// Its text, `[step N] …`.
        text: String,
    },
    /// The run ended.
    Finished {
        /// How.
        outcome: RunOutcome,
    },
}
