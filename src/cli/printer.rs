//! How a run's events and its end are printed: a readable line each on stderr,
//! or one JSON object a line on stdout (in a group, each naming its vendor);
//! why a run ended without passing, in the vendor's or the verification's
//! words; and its total from the ledger.

use io_harness::core::figures::token_words;
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
            server,
            ..
        } => format!(
            "{}, {}, {stop_reason}, {latency_ms} ms, {}",
            token_words(&usage.unwrap_or_default()),
            server.words(),
            io_harness::price::describe(cost)
        ),
        EventKind::ServerToolUsed {
            tool,
            ok,
            error,
            input,
            ..
        } => server_tool_used(tool, *ok, error.as_deref(), input.as_deref()),
        EventKind::CitationRecorded { citation } => format!("source {}", citation.url),
        EventKind::NotRecorded { .. } => not_recorded(kind)?,
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

/// A provider-executed call's end: ok (with its query), FAILED (with the
/// vendor's code), or unanswered (with its query).
fn server_tool_used(tool: &str, ok: bool, error: Option<&str>, input: Option<&str>) -> String {
    let input = input.map(|i| format!(": {i}")).unwrap_or_default();
    match error {
        Some(io_harness::ServerToolCall::UNANSWERED) => {
            format!("{tool} unanswered (no result came){input}")
        }
        Some(code) => format!("{tool} FAILED ({code})"),
        None if ok => format!("{tool} ok{input}"),
        None => format!("{tool} FAILED{input}"),
    }
}

/// What an answer said past the per-step caps, and the caps.
fn not_recorded(kind: &EventKind) -> Option<String> {
    let EventKind::NotRecorded {
        server_tool_calls,
        searches,
        fetches,
        citations,
        claim_links,
        max_server_tool_calls,
        max_citations,
        max_cited_bytes,
    } = kind
    else {
        return None;
    };
    let mut parts = Vec::new();
    if *server_tool_calls > 0 {
        let fees = if searches + fetches > 0 {
            format!(
                " ({searches} searches and {fetches} fetches among them; their fees are counted)"
            )
        } else {
            String::new()
        };
        parts.push(format!(
            "{server_tool_calls} server-tool calls over the cap of {max_server_tool_calls}{fees}"
        ));
    }
    if *citations > 0 {
        parts.push(format!(
            "{citations} citations over the cap of {max_citations} (or {} MiB of their text)",
            max_cited_bytes >> 20
        ));
    }
    if *claim_links > 0 {
        parts.push(format!(
            "{claim_links} claim links over the cap of {max_citations}"
        ));
    }
    Some(format!(
        "not recorded (a step records at most so many): {}",
        parts.join("; ")
    ))
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
