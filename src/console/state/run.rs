//! The Run panes' data: the log, the provider-executed calls, each request's
//! accounting and the request in flight. `fold` folds a live run's events into it,
//! `live` its streamed deltas, `past` rebuilds it from the store. Costs come from
//! the library (`ProviderCalled.cost`, or the store's ledger for a past run);
//! nothing here prices anything, and the total is the sum of the rows.

use crate::approve::ApprovalRequest;
use crate::core::completion::Usage;
use crate::core::event::Cost;
use crate::core::figures::ServerCounts;
use crate::core::id::RunId;
use crate::core::outcome::Outcome;
use crate::core::vendor::Vendor;

/// How a log line reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Ordinary.
    Plain,
    /// Secondary.
    Muted,
    /// Went well.
    Good,
    /// Went wrong.
    Bad,
}

/// One provider request's accounting, in the figures' terms (`core::figures`):
/// the rows of a stored run add up to its `RunFigures`.
#[derive(Debug, Clone, PartialEq)]
pub struct CallLine {
    /// Step.
    pub step: u32,
    /// Input tokens at the plain input rate (cache writes and reads not included).
    pub input: u64,
    /// Input tokens written to the vendor's cache.
    pub cache_write: u64,
    /// Input tokens read from the vendor's cache.
    pub cache_read: u64,
    /// Output tokens.
    pub output: u64,
    /// The searches and fetches its answer reported, made and failed.
    pub server: ServerCounts,
    /// What it cost, itemised.
    pub cost: Cost,
    /// Stop reason.
    pub stop: String,
}

impl CallLine {
    /// A request's line from its usage (absent: zeros) and cost; its answer's
    /// server-tool calls are counted in as they are reported.
    pub fn new(step: u32, usage: Option<Usage>, cost: &Cost, stop: String) -> CallLine {
        let u = usage.unwrap_or_default();
        CallLine {
            step,
            input: u.input_tokens,
            cache_write: u.cache_write_tokens,
            cache_read: u.cache_read_tokens,
            output: u.output_tokens,
            server: ServerCounts::default(),
            cost: cost.clone(),
            stop,
        }
    }

    /// Every token of the request: input, cache writes and reads, output.
    pub fn tokens(&self) -> u64 {
        saturating_sum([self.input, self.cache_write, self.cache_read, self.output].into_iter())
    }
}

/// One provider-executed tool call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerLine {
    /// Step.
    pub step: u32,
    /// Tool.
    pub tool: String,
    /// Failure code, `None` when it ran.
    pub error: Option<String>,
    /// Query or URL.
    pub input: Option<String>,
    /// The vendor's id, for a call seen in a stream.
    pub id: Option<String>,
    /// When it started (run milliseconds), for a call seen in a stream.
    pub started_ms: Option<u64>,
    /// How long it ran, once its result arrived.
    pub took_ms: Option<u64>,
    /// Started, no result yet.
    pub running: bool,
    /// Its response completed and it was recorded.
    pub recorded: bool,
    /// Its stream was cut off before the response completed (not recorded).
    pub interrupted: bool,
}

/// Everything the Run panes show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunView {
    /// The run shown.
    pub run_id: Option<RunId>,
    /// Its spawned children's agents, by child run: which agent searched.
    pub agents: std::collections::BTreeMap<RunId, String>,
    /// Its goal.
    pub goal: String,
    /// The vendor asked (`None` before a run is shown).
    pub vendor: Option<Vendor>,
    /// The model, for naming where its prices come from.
    pub model: String,
    /// A run is in progress.
    pub running: bool,
    /// A request is in flight.
    pub in_flight: bool,
    /// Current step.
    pub step: u32,
    /// Milliseconds since it started.
    pub elapsed_ms: u64,
    /// Steps and observations, in order.
    pub log: Vec<(u32, String, Tone)>,
    /// Provider-executed calls.
    pub server: Vec<ServerLine>,
    /// Per-request accounting.
    pub calls: Vec<CallLine>,
    /// Citations recorded.
    pub citations: usize,
    /// How it ended, as stored (`None` while it runs, and for a run that could
    /// not start).
    pub outcome: Option<Outcome>,
    /// How it ended, in words for the screen (`failed: …`, `could not start`).
    pub ending: Option<String>,
    /// A pending approval question.
    pub approval: Option<ApprovalRequest>,
    /// Opened from the store, not live.
    pub past: bool,
    /// The starts of observations already shown another way (a tool's result,
    /// a paused turn's text): the observation repeating one is not logged again.
    pub echoes: Vec<String>,
    /// What the request in flight has streamed.
    pub live: Live,
    /// Opened from a search hit: the log starts at this step's first line until
    /// the operator scrolls.
    pub focus_step: Option<u32>,
}

/// A sum that stops at `u64::MAX` instead of overflowing.
pub fn saturating_sum(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(0, u64::saturating_add)
}

impl RunView {
    /// The sum of the rows' costs; `None` while any row is unpriced ($0 before
    /// the first answer: nothing has been billed).
    pub fn total_cost(&self) -> Option<u64> {
        crate::store::ledger_sum(self.calls.iter().map(|c| &c.cost))
    }

    /// The fee part over every call (see `store::ledger_fees`).
    pub fn total_fees(&self) -> Option<u64> {
        crate::store::ledger_fees(self.calls.iter().map(|c| &c.cost))
    }

    /// Tokens over every call (saturating: one absurd count never panics a frame).
    pub fn total_tokens(&self) -> u64 {
        saturating_sum(self.calls.iter().map(CallLine::tokens))
    }

    /// The provider-executed calls the pane lists, counted as its header says
    /// them: every one listed (an interrupted one included), of them those that
    /// failed (or were never answered), and those interrupted (a cancelled or
    /// cut-off stream: started, never recorded).
    pub fn server_tally(&self) -> (usize, usize, usize) {
        let interrupted = self.server.iter().filter(|s| s.interrupted).count();
        let failed = self
            .server
            .iter()
            .filter(|s| s.error.is_some() && !s.interrupted)
            .count();
        (self.server.len(), failed, interrupted)
    }

    /// The tally in words: `1 server call · 0 failed · 1 interrupted`.
    pub fn server_words(&self) -> String {
        let (all, failed, interrupted) = self.server_tally();
        let s = if all == 1 { "" } else { "s" };
        let mut out = format!("{all} server call{s} · {failed} failed");
        if interrupted > 0 {
            out.push_str(&format!(" · {interrupted} interrupted"));
        }
        out
    }

    /// Searches and fetches over every call, made and failed.
    pub fn total_server(&self) -> ServerCounts {
        let mut all = ServerCounts::default();
        for c in &self.calls {
            all.sum(&c.server);
        }
        all
    }
}

/// A log line: newlines shown as ` ⏎ ` so a listing stays readable on one row.
pub(crate) fn one_line(text: &str) -> String {
    text.trim_end().replace("\r\n", "\n").replace('\n', " ⏎ ")
}

/// What the request in flight has streamed so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Live {
    /// The log line this attempt streams its text into.
    pub line: Option<usize>,
    /// The attempt's text so far.
    pub text: String,
    /// Characters of text streamed by this attempt.
    pub chars: u64,
    /// The vendor's own count of output tokens so far, where it sent one.
    pub reported_tokens: u64,
    /// Anything streamed by this attempt at all.
    pub active: bool,
}

impl Live {
    /// Output tokens so far: the vendor's count, or an estimate from the text
    /// streamed (about four characters a token) when that is larger; `true` when
    /// the figure is the estimate.
    pub fn output_tokens(&self) -> (u64, bool) {
        let estimate = self.chars.div_ceil(4);
        if self.reported_tokens >= estimate {
            (self.reported_tokens, false)
        } else {
            (estimate, true)
        }
    }
}
