//! How a run's events and its end are printed: a readable line each on stderr,
//! or one JSON object a line on stdout (in a group, each naming its vendor);
//! why a run ended without passing, in the vendor's or the verification's
//! words; and its total from the ledger.

use io_harness::run::Observer;
use io_harness::{Event, EventKind, RunOutcome, Store};

/// The run's total from its ledger: the sum of the per-request lines printed.
pub fn spent(
    store: &Store,
    result: &io_harness::RunResult,
    prices: &io_harness::PriceTable,
) -> String {
    match store.ledger(result.run_id, prices) {
        Ok(l) => match l.total_micro_usd() {
            Some(t) => format!("total {}", io_harness::price::usd(t)),
            None => format!(
                "total — ({})",
                l.unpriced().unwrap_or("no request was priced")
            ),
        },
        Err(e) => format!("total not read ({e})"),
    }
}

/// An event of a group's run, as one JSON line: its fields, then `vendor`.
#[derive(serde::Serialize)]
struct Tagged<'a> {
    #[serde(flatten)]
    event: &'a Event,
    vendor: &'a str,
}

/// Prints a run's events: a readable line each on stderr, or one JSON object a
/// line on stdout; in a group, each names its vendor (`label`).
pub struct Printer {
    pub json: bool,
    pub label: Option<String>,
}

impl Observer for Printer {
    fn event(&self, event: &Event) {
        if self.json {
            let line = match &self.label {
                // In a group: the event's own fields, then the vendor's name.
                Some(vendor) => serde_json::to_string(&Tagged { event, vendor }),
                None => serde_json::to_string(event),
            };
            // A closed stdout does not stop a paid run: it is recorded all the same.
            if let Ok(line) = line {
                let _ = super::out::json(&line);
            }
            return;
        }
        if let Some(line) = describe(&event.kind) {
            let who = self
                .label
                .as_deref()
                .map(|l| format!("{l:<10} "))
                .unwrap_or_default();
            super::out::note(&format!(
                "[{who}{:>6.1}s step {}] {line}",
                event.elapsed_ms as f64 / 1000.0,
                event.step
            ));
        }
    }
}

/// `1 step`, `3 steps`.
pub fn steps(n: u32) -> String {
    if n == 1 {
        "1 step".to_string()
    } else {
        format!("{n} steps")
    }
}

/// A request's searches as its fees count them: the vendor's counter, or,
/// where the vendor reported none, the searches and fetches counted here.
fn searches(reported: u64, cost: &io_harness::core::event::Cost) -> String {
    let (n, what) = if cost.fees_counted_here {
        (cost.fee_requests, ("search/fetch", "searches/fetches"))
    } else {
        (reported, ("search", "searches"))
    };
    let noun = if n == 1 { what.0 } else { what.1 };
    let here = if cost.fees_counted_here {
        " counted here"
    } else {
        ""
    };
    format!("{n} {noun}{here}")
}

fn describe(kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::RunStarted {
            goal,
            provider,
            model,
            resumed,
            agent,
            no_local_tools,
            ..
        } => format!(
            "{}{} {provider} {model}: {goal}{}",
            if *resumed { "resuming" } else { "starting" },
            agent
                .as_ref()
                .map(|a| format!(" agent {a} on"))
                .unwrap_or_default(),
            no_local_tools
                .as_ref()
                .map(|why| format!(" (no local tools: {why})"))
                .unwrap_or_default()
        ),
        EventKind::Retrying {
            attempt,
            status,
            wait_ms,
            reason,
        } => format!(
            "attempt {attempt} failed ({}{reason}); retrying in {wait_ms} ms",
            status.map(|s| format!("HTTP {s}, ")).unwrap_or_default()
        ),
        EventKind::ProviderCalled {
            usage,
            stop_reason,
            latency_ms,
            cost,
            ..
        } => provider_called(usage.unwrap_or_default(), stop_reason, *latency_ms, cost),
        EventKind::ServerToolUsed {
            tool,
            ok,
            error,
            input,
            ..
        } => format!(
            "{tool} {}{}",
            if *ok { "ok" } else { "FAILED" },
            error
                .as_deref()
                .map(|e| format!(" ({e})"))
                .or(input.as_deref().map(|i| format!(": {i}")))
                .unwrap_or_default()
        ),
        EventKind::CitationRecorded { citation } => format!("source {}", citation.url),
        EventKind::SearchSuggestions { suggestions } => suggested(suggestions),
        EventKind::ToolCalled {
            name,
            input,
            ok: true,
            ..
        } => format!("{name} {input} ok"),
        EventKind::ToolCalled {
            name,
            input,
            output,
            ..
        } => format!("{name} {input} refused/failed: {output}"),
        EventKind::ApprovalAsked { act, target, .. } => {
            format!("asks to {} {target}", act.as_str())
        }
        EventKind::ApprovalAnswered { approved } => {
            (if *approved { "approved" } else { "denied" }).to_string()
        }
        EventKind::Finished { outcome } => match why(outcome) {
            Some(why) => format!("finished: {} — {why}", outcome.label()),
            None => format!("finished: {}", outcome.label()),
        },
        EventKind::ServerToolStarted { tool, input, .. } => format!(
            "{tool} started{}",
            input
                .as_deref()
                .map(|i| format!(": {i}"))
                .unwrap_or_default()
        ),
        EventKind::ToolCallRequested { name, input, .. } => format!("asks for {name} {input}"),
        EventKind::RequestSent { attempt } if *attempt > 1 => format!("attempt {attempt}"),
        // Text and results are in the summary events that follow.
        EventKind::StepStarted { .. }
        | EventKind::RequestSent { .. }
        | EventKind::Observation { .. }
        | EventKind::TextDelta { .. }
        | EventKind::ServerToolReturned { .. }
        | EventKind::CitationReceived { .. }
        | EventKind::OutputTokens { .. } => return None,
    })
}

/// A request's line: its tokens, the fees' searches and its cost.
fn provider_called(
    u: io_harness::Usage,
    stop_reason: &impl std::fmt::Display,
    latency_ms: u64,
    cost: &io_harness::core::event::Cost,
) -> String {
    // A cache write (charged at the write price) and a cache read (at the read
    // price) are told apart, beside the plain input; the searches and fetches
    // named are those the fees count (each call made, ok or failed, has a line
    // of its own below).
    format!(
        "{} in ({} uncached, {} cache write, {} cache read) / {} out tokens, {}, {stop_reason}, {latency_ms} ms, {}",
        u.all_input_tokens(),
        u.input_tokens,
        u.cache_write_tokens,
        u.cache_read_tokens,
        u.output_tokens,
        searches(u.server_tool_requests, cost),
        io_harness::price::describe(cost)
    )
}

/// Google Search suggestions, each query with its link.
fn suggested(suggestions: &[io_harness::core::suggestions::Suggestion]) -> String {
    let each: Vec<String> = suggestions
        .iter()
        .map(|s| format!("{} <{}>", s.query, s.url))
        .collect();
    format!("Google Search suggestions: {}", each.join(", "))
}

/// Why a run ended without passing, in the vendor's or the verification's words.
pub fn why(outcome: &RunOutcome) -> Option<String> {
    Some(match outcome {
        RunOutcome::Passed | RunOutcome::Cancelled => return None,
        RunOutcome::Failed { reason } => reason.clone(),
        RunOutcome::Error { message } => message.clone(),
        RunOutcome::BudgetExhausted { budget } => {
            format!(
                "the {} budget ran out",
                format!("{budget:?}").to_lowercase()
            )
        }
        RunOutcome::Refused { text } if text.is_empty() => {
            "the model declined (stop_reason refusal) and said nothing".to_string()
        }
        RunOutcome::Refused { text } => format!("the model declined: {text}"),
        RunOutcome::Truncated { max_tokens } => format!(
            "the answer was cut off at max_tokens ({max_tokens}) and not verified; raise max_tokens for this provider in io.toml"
        ),
    })
}
