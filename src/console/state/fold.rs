//! A live run's events folded into the Run panes, as they arrive: the root run's
//! lines (a streamed delta goes to `live` first), a spawned child's nested under
//! the step that spawned it, and the run's outcome.

use crate::console::state::run::{CallLine, RunView, ServerLine, Tone, one_line};
use crate::core::completion::Usage;
use crate::core::counts::ServerCounts;
use crate::core::event::{Cost, Event, EventKind};
use crate::core::id::RunId;
use crate::core::outcome::RunOutcome;
use crate::core::suggestions::Suggestion;
use crate::core::vendor::Vendor;

impl RunView {
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
                no_local_tools,
                ..
            } => {
                self.started(event.run_id, goal, *provider, model, *resumed);
                if let Some(why) = no_local_tools {
                    let line = format!("no local tools offered: {why}");
                    self.log.push((0, line, Tone::Muted));
                }
            }
            EventKind::StepStarted { observations } => self.step_started(step, *observations),
            EventKind::RequestSent { .. } => self.in_flight = true,
            EventKind::Retrying {
                attempt,
                status,
                wait_ms,
                ..
            } => self.retrying(step, *attempt, *status, *wait_ms),
            EventKind::ProviderCalled {
                usage,
                stop_reason,
                cost,
                text,
                server,
                ..
            } => {
                self.answered(step, *usage, stop_reason, cost, text);
                self.count_server(*server);
            }
            EventKind::ServerToolUsed {
                tool, error, input, ..
            } => self.server_used(step, tool, error, input),
            EventKind::CitationRecorded { .. } => self.citations += 1,
            EventKind::NotRecorded {
                server_tool_calls,
                citations,
                claim_links,
                ..
            } => {
                let line = format!(
                    "not recorded, over the per-step caps: {server_tool_calls} server-tool calls, \
                     {citations} citations, {claim_links} claim links (their fees are counted)"
                );
                self.log.push((step, line, Tone::Bad));
            }
            EventKind::SearchSuggestions { suggestions } => self.suggested(step, suggestions),
            EventKind::ToolCalled {
                name,
                input,
                ok,
                output,
            } => self.tool_called(step, name, input, *ok, output),
            EventKind::ApprovalAsked {
                act, target, tool, ..
            } => {
                let line = format!("{tool} asks to {} {target}", act.as_str());
                self.log.push((step, line, Tone::Muted));
            }
            EventKind::ApprovalAnswered { approved } => {
                let (word, tone) = if *approved {
                    ("approved", Tone::Good)
                } else {
                    ("denied", Tone::Bad)
                };
                self.log.push((step, word.to_string(), tone));
            }
            EventKind::Observation { text } => self.observed(step, text),
            // Folded by `apply_live` above.
            EventKind::TextDelta { .. }
            | EventKind::ServerToolStarted { .. }
            | EventKind::ServerToolReturned { .. }
            | EventKind::CitationReceived { .. }
            | EventKind::ToolCallRequested { .. }
            | EventKind::OutputTokens { .. } => {}
            EventKind::Finished { outcome } => self.finished(step, outcome),
        }
    }

    /// The run started (or resumed): its header, and its first line.
    fn started(&mut self, run_id: RunId, goal: &str, vendor: Vendor, model: &str, resumed: bool) {
        self.goal = goal.to_string();
        self.vendor = Some(vendor);
        self.model = model.to_string();
        self.running = true;
        let how = if resumed { "resumed" } else { "started" };
        let line = format!("{how} run {run_id}");
        self.log.push((0, line, Tone::Muted));
    }

    /// A request failed and is retried: the streamed line so far is cut off.
    fn retrying(&mut self, step: u32, attempt: u32, status: Option<u16>, wait_ms: u64) {
        self.interrupt_live();
        let status = status.map(|s| format!(" (HTTP {s})")).unwrap_or_default();
        let line = format!("attempt {attempt} failed{status}; retrying in {wait_ms} ms");
        self.log.push((step, line, Tone::Bad));
    }

    /// A provider-executed call recorded: the streamed line confirmed, or a new one.
    fn server_used(
        &mut self,
        step: u32,
        tool: &str,
        error: &Option<String>,
        input: &Option<String>,
    ) {
        if !self.confirm_server(step, tool, input.as_deref()) {
            self.server.push(ServerLine {
                step,
                tool: tool.to_string(),
                error: error.clone(),
                input: input.clone(),
                ..ServerLine::default()
            });
        }
    }

    /// A local tool ran: its line, and the observation that will echo it.
    fn tool_called(&mut self, step: u32, name: &str, input: &str, ok: bool, output: &str) {
        let tone = if ok { Tone::Good } else { Tone::Bad };
        let line = one_line(&format!("{name} {input} → {output}"));
        self.log.push((step, line, tone));
        self.echoes.push(format!("[step {step}] {name} {input}: "));
    }

    /// A complete answer: its text (unless the streamed line already holds it)
    /// and its accounting row.
    fn answered(&mut self, step: u32, usage: Option<Usage>, stop: &str, cost: &Cost, text: &str) {
        self.in_flight = false;
        let streamed = self.settle_live(text);
        if !streamed {
            self.log_text(step, "model: ", text);
        }
        if stop == "pause_turn" && !text.trim().is_empty() {
            self.echoes.push(format!("[step {step}] partial answer "));
        }
        self.calls
            .push(CallLine::new(step, usage, cost, stop.to_string()));
    }

    /// The calls the last answer reported, as its `ProviderCalled` counts them
    /// (`ServerCounts::of`, the step line's count), on its request's row.
    fn count_server(&mut self, server: ServerCounts) {
        if let Some(line) = self.calls.last_mut() {
            line.server = server;
        }
    }

    /// An observation: logged unless it only echoes a line the panes already show.
    fn observed(&mut self, step: u32, text: &str) {
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

    /// The run ended: its outcome in words, and its last line.
    fn finished(&mut self, step: u32, outcome: &RunOutcome) {
        if self.live.active {
            self.interrupt_live();
        }
        self.running = false;
        self.in_flight = false;
        self.approval = None;
        self.outcome = Some(outcome.word());
        self.ending = Some(match outcome {
            RunOutcome::Failed { reason } => format!("failed: {reason}"),
            RunOutcome::BudgetExhausted { budget } => {
                format!("budget exhausted: {budget:?}").to_lowercase()
            }
            RunOutcome::Error { message } => format!("error: {message}"),
            RunOutcome::Refused { text } => format!("refused: {}", one_line(text)),
            RunOutcome::Truncated { max_tokens } => {
                format!("truncated at max_tokens ({max_tokens})")
            }
            other => other.label().to_string(),
        });
        let tone = if outcome.passed() {
            Tone::Good
        } else {
            Tone::Bad
        };
        let line = format!("finished: {}", self.ending.clone().unwrap_or_default());
        self.log.push((step, line, tone));
    }

    /// Google's terms ask for its suggestions beside a grounded answer: one line.
    pub(super) fn suggested(&mut self, step: u32, suggestions: &[Suggestion]) {
        let queries: Vec<&str> = suggestions.iter().map(|s| s.query.as_str()).collect();
        let line = format!(
            "Google Search suggestions: {} (F4 Sources lists their links; o opens one)",
            queries.join(" · ")
        );
        self.log.push((step, line, Tone::Muted));
    }

    /// The line a step's request starts with.
    pub(super) fn step_started(&mut self, step: u32, observations: usize) {
        let s = if observations == 1 { "" } else { "s" };
        let line = format!("step {step}: request with {observations} observation{s}");
        self.log.push((step, line, Tone::Muted));
    }

    /// A completion's text as log lines: one per paragraph (the decoder puts a
    /// blank line where a tool or search block stood between text blocks), the
    /// first after `lead`.
    pub(super) fn log_text(&mut self, step: u32, lead: &str, text: &str) {
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
        self.ending.get_or_insert_with(|| verdict.to_string());
        self.log
            .push((self.step, format!("{verdict}: {message}"), Tone::Bad));
    }

    /// A spawned child's event, nested under the step that spawned it: its
    /// requests count toward the totals, its lines are marked `↳ child N`.
    fn apply_child(&mut self, event: &Event) {
        let (id, step) = (event.run_id, self.step);
        if let EventKind::RunStarted {
            agent: Some(name), ..
        } = &event.kind
        {
            self.agents.insert(id, name.clone());
        }
        // Which agent it is, where the parent named one: `child 2 (researcher)`.
        let child = match self.agents.get(&id) {
            Some(name) => format!("child {id} ({name})"),
            None => format!("child {id}"),
        };
        let tag = format!("  ↳ {child}");
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
                server,
                ..
            } => {
                self.calls.push(CallLine::new(
                    step,
                    *usage,
                    cost,
                    format!("{child} {stop_reason}"),
                ));
                self.count_server(*server);
                self.log_text(step, &format!("{tag} model: "), text);
            }
            EventKind::ServerToolUsed {
                tool, error, input, ..
            } => self.server.push(ServerLine {
                step,
                tool: format!("{child} {tool}"),
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
