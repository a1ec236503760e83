//! The Run panes' data, folded from events as they arrive (or rebuilt from the
//! store for a past run). Costs come from the library (`ProviderCalled.cost`, or
//! the store's ledger for a past run); nothing here prices anything, and the total
//! is the sum of the rows.

use crate::approve::ApprovalRequest;
use crate::core::completion::Usage;
use crate::core::event::{Cost, Event, EventKind, RunId};
use crate::store::{Ledger, ServerToolCallRow, StepRow};

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

/// One provider request's accounting.
#[derive(Debug, Clone, PartialEq)]
pub struct CallLine {
    /// Step.
    pub step: u32,
    /// Input tokens, cache writes and reads included.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache writes and reads.
    pub cache: u64,
    /// Searches and fetches the fees count.
    pub searches: u64,
    /// What it cost, itemised.
    pub cost: Cost,
    /// Stop reason.
    pub stop: String,
}

impl CallLine {
    /// A request's line from its usage (absent: zeros) and cost.
    pub fn new(step: u32, usage: Option<Usage>, cost: &Cost, stop: String) -> CallLine {
        let u = usage.unwrap_or_default();
        CallLine {
            step,
            input: u.all_input_tokens(),
            output: u.output_tokens,
            cache: u.cache_write_tokens + u.cache_read_tokens,
            searches: cost.fee_requests,
            cost: cost.clone(),
            stop,
        }
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
    /// Its goal.
    pub goal: String,
    /// Provider and model.
    pub provider: String,
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
    /// How it ended.
    pub outcome: Option<String>,
    /// A pending approval question.
    pub approval: Option<ApprovalRequest>,
    /// Opened from the store, not live.
    pub past: bool,
    /// The starts of observations already shown another way (a tool's result,
    /// a paused turn's text): the observation repeating one is not logged again.
    pub echoes: Vec<String>,
    /// What the request in flight has streamed.
    pub live: super::live::Live,
}

/// A sum that stops at `u64::MAX` instead of overflowing.
pub fn saturating_sum(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(0, u64::saturating_add)
}

impl RunView {
    /// The sum of the rows' costs; `None` while any row is unpriced (or none yet).
    pub fn total_cost(&self) -> Option<u64> {
        crate::store::ledger_sum(self.calls.iter().map(|c| &c.cost))
    }

    /// The fee part over every call (see `store::ledger_fees`).
    pub fn total_fees(&self) -> Option<u64> {
        crate::store::ledger_fees(self.calls.iter().map(|c| &c.cost))
    }

    /// Tokens over every call (saturating: one absurd count never panics a frame).
    pub fn total_tokens(&self) -> u64 {
        saturating_sum(self.calls.iter().map(|c| c.input.saturating_add(c.output)))
    }

    /// Provider-executed requests over every call.
    pub fn total_searches(&self) -> u64 {
        saturating_sum(self.calls.iter().map(|c| c.searches))
    }

    /// Fold one live event in.
    pub fn apply(&mut self, event: &Event) {
        let root = *self.run_id.get_or_insert(event.run_id);
        if event.run_id != root {
            return self.apply_child(event);
        }
        self.elapsed_ms = event.elapsed_ms;
        self.step = event.step;
        let step = event.step;
        if self.apply_live(event) {
            return;
        }
        match &event.kind {
            EventKind::RunStarted {
                goal,
                provider,
                model,
                resumed,
            } => {
                self.goal = goal.clone();
                self.provider = format!("{provider} · {model}");
                self.model = model.clone();
                self.running = true;
                self.log.push((
                    0,
                    format!(
                        "{} run {}",
                        if *resumed { "resumed" } else { "started" },
                        event.run_id
                    ),
                    Tone::Muted,
                ));
            }
            EventKind::StepStarted { observations } => self.log.push((
                step,
                format!(
                    "step {step}: request with {observations} observation{}",
                    if *observations == 1 { "" } else { "s" }
                ),
                Tone::Muted,
            )),
            EventKind::RequestSent { .. } => self.in_flight = true,
            EventKind::Retrying {
                attempt,
                status,
                wait_ms,
                ..
            } => {
                self.interrupt_live();
                self.log.push((
                    step,
                    format!(
                        "attempt {attempt} failed{}; retrying in {wait_ms} ms",
                        status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
                    ),
                    Tone::Bad,
                ));
            }
            EventKind::ProviderCalled {
                usage,
                stop_reason,
                cost,
                text,
                ..
            } => {
                self.in_flight = false;
                let streamed = self.settle_live(text);
                if !streamed {
                    self.log_text(step, "model: ", text);
                }
                if stop_reason == "pause_turn" && !text.trim().is_empty() {
                    self.echoes.push(format!("[step {step}] partial answer "));
                }
                self.calls
                    .push(CallLine::new(step, *usage, cost, stop_reason.clone()));
            }
            EventKind::ServerToolUsed {
                tool, error, input, ..
            } => {
                if !self.confirm_server(step, tool, input.as_deref()) {
                    self.server.push(ServerLine {
                        step,
                        tool: tool.clone(),
                        error: error.clone(),
                        input: input.clone(),
                        ..ServerLine::default()
                    });
                }
            }
            EventKind::CitationRecorded { .. } => self.citations += 1,
            EventKind::ToolCalled {
                name,
                input,
                ok,
                output,
            } => {
                self.log.push((
                    step,
                    one_line(&format!("{name} {input} → {output}")),
                    if *ok { Tone::Good } else { Tone::Bad },
                ));
                self.echoes.push(format!("[step {step}] {name} {input}: "));
            }
            EventKind::ApprovalAsked {
                act, target, tool, ..
            } => self.log.push((
                step,
                format!("{tool} asks to {} {target}", act.as_str()),
                Tone::Muted,
            )),
            EventKind::ApprovalAnswered { approved } => self.log.push((
                step,
                (if *approved { "approved" } else { "denied" }).to_string(),
                if *approved { Tone::Good } else { Tone::Bad },
            )),
            EventKind::Observation { text } => {
                match self
                    .echoes
                    .iter()
                    .position(|e| text.starts_with(e.as_str()))
                {
                    Some(i) => {
                        self.echoes.remove(i);
                    }
                    None => self.log.push((step, one_line(text), Tone::Plain)),
                }
            }
            // Folded by `apply_live` above.
            EventKind::TextDelta { .. }
            | EventKind::ServerToolStarted { .. }
            | EventKind::ServerToolReturned { .. }
            | EventKind::CitationReceived { .. }
            | EventKind::ToolCallRequested { .. }
            | EventKind::OutputTokens { .. } => {}
            EventKind::Finished { outcome } => {
                if self.live.active {
                    self.interrupt_live();
                }
                self.running = false;
                self.in_flight = false;
                self.approval = None;
                self.outcome = Some(match outcome {
                    crate::core::event::RunOutcome::Failed { reason } => {
                        format!("failed: {reason}")
                    }
                    crate::core::event::RunOutcome::BudgetExhausted { budget } => {
                        format!("budget exhausted: {budget:?}").to_lowercase()
                    }
                    crate::core::event::RunOutcome::Error { message } => {
                        format!("error: {message}")
                    }
                    crate::core::event::RunOutcome::Refused { text } => {
                        format!("refused: {}", one_line(text))
                    }
                    crate::core::event::RunOutcome::Truncated { max_tokens } => {
                        format!("truncated at max_tokens ({max_tokens})")
                    }
                    other => other.label().to_string(),
                });
                self.log.push((
                    step,
                    format!("finished: {}", self.outcome.clone().unwrap_or_default()),
                    if outcome.passed() {
                        Tone::Good
                    } else {
                        Tone::Bad
                    },
                ));
            }
        }
    }
}

impl RunView {
    /// A completion's text as log lines: one per paragraph (the decoder puts a
    /// blank line where a tool or search block stood between text blocks), the
    /// first after `lead`.
    fn log_text(&mut self, step: u32, lead: &str, text: &str) {
        let paragraphs = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
        for (i, p) in paragraphs.enumerate() {
            let line = if i == 0 {
                format!("{lead}{}", one_line(p))
            } else {
                one_line(p)
            };
            self.log.push((step, line, Tone::Plain));
        }
    }

    /// The run could not start, or its task ended in an error outside its
    /// outcome: said in the panes, where the operator is looking.
    pub fn failed(&mut self, message: &str) {
        self.running = false;
        self.in_flight = false;
        self.approval = None;
        let verdict = if self.run_id.is_none() {
            "could not start"
        } else {
            "error"
        };
        self.outcome.get_or_insert_with(|| verdict.to_string());
        self.log
            .push((self.step, format!("{verdict}: {message}"), Tone::Bad));
    }

    /// A spawned child's event, nested under the step that spawned it: its
    /// requests count toward the totals, its lines are marked `↳ child N`.
    fn apply_child(&mut self, event: &Event) {
        let (id, step) = (event.run_id, self.step);
        let tag = format!("  ↳ child {id}");
        match &event.kind {
            EventKind::RunStarted { goal, .. } => {
                self.log.push((
                    step,
                    format!("{tag} started: {}", one_line(goal)),
                    Tone::Muted,
                ));
            }
            EventKind::ProviderCalled {
                usage,
                stop_reason,
                cost,
                text,
                ..
            } => {
                self.calls.push(CallLine::new(
                    step,
                    *usage,
                    cost,
                    format!("child {id} {stop_reason}"),
                ));
                self.log_text(step, &format!("{tag} model: "), text);
            }
            EventKind::ServerToolUsed {
                tool, error, input, ..
            } => self.server.push(ServerLine {
                step,
                tool: format!("child {id} {tool}"),
                error: error.clone(),
                input: input.clone(),
                ..ServerLine::default()
            }),
            EventKind::CitationRecorded { .. } => self.citations += 1,
            EventKind::Observation { text } => {
                self.log
                    .push((step, format!("{tag} {}", one_line(text)), Tone::Plain));
            }
            EventKind::Finished { outcome } => {
                let tone = if outcome.passed() {
                    Tone::Good
                } else {
                    Tone::Bad
                };
                self.log
                    .push((step, format!("{tag} finished: {}", outcome.label()), tone));
            }
            _ => {}
        }
    }
}

/// What the store holds about a past run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PastRun {
    /// The run row.
    pub run: Option<crate::store::RunRow>,
    /// Its steps.
    pub steps: Vec<StepRow>,
    /// Its requests (children's included), priced.
    pub ledger: Ledger,
    /// Its server-tool calls.
    pub server: Vec<ServerToolCallRow>,
    /// Citations recorded.
    pub citations: usize,
}

impl PastRun {
    /// The same panes, from the store.
    pub fn view(&self) -> RunView {
        let mut v = RunView {
            past: true,
            citations: self.citations,
            ..RunView::default()
        };
        if let Some(r) = &self.run {
            v.run_id = Some(r.run_id);
            v.goal = r.goal.clone();
            v.provider = format!("{} · {}", r.provider, r.model);
            v.model = r.model.clone();
            v.outcome = Some(match (&r.outcome, &r.outcome_detail) {
                (Some(o), Some(d)) => format!("{o}: {d}"),
                (Some(o), None) => o.clone(),
                (None, _) => "unfinished (killed?)".to_string(),
            });
        }
        for s in &self.steps {
            v.log.push((
                s.step,
                format!("step {}: {}", s.step, s.text.lines().next().unwrap_or("")),
                Tone::Muted,
            ));
            v.log.extend(
                s.observations
                    .iter()
                    .map(|o| (s.step, one_line(o), Tone::Plain)),
            );
        }
        v.server = self
            .server
            .iter()
            .map(|s| ServerLine {
                step: s.step,
                tool: s.tool.clone(),
                error: s.error.clone(),
                input: s.input.clone(),
                ..ServerLine::default()
            })
            .collect();
        let root = v.run_id;
        v.calls = self
            .ledger
            .lines
            .iter()
            .map(|l| {
                let c = &l.call;
                let stop = if Some(c.run_id) == root || root.is_none() {
                    c.stop_reason.clone()
                } else {
                    format!("child {} {}", c.run_id, c.stop_reason)
                };
                CallLine::new(c.step, c.usage, &l.cost, stop)
            })
            .collect();
        v.step = self
            .ledger
            .lines
            .iter()
            .rev()
            .find(|l| Some(l.call.run_id) == root)
            .map_or(0, |l| l.call.step);
        v
    }
}

/// A log line: newlines shown as ` ⏎ ` so a listing stays readable on one row.
pub(super) fn one_line(text: &str) -> String {
    text.trim_end().replace("\r\n", "\n").replace('\n', " ⏎ ")
}
