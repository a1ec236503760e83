//! The observer that traces runs as they go: it folds each run's events into
//! the records `spans` sends, stamping them with the wall clock as they arrive,
//! and passes every event on unchanged. It holds a lock only to fold, and a
//! finished span only enters the bounded queue, so it never blocks the run.
//!
//! A request's span ends with its answer but is sent once the answer's searches
//! and citations (the events right after it) are in. A child run (`spawn_agent`)
//! starts while its parent is in that tool call: runs nest like a stack, so the
//! run open when another starts is its parent, and the child's `invoke_agent`
//! span goes under the parent's `execute_tool spawn_agent` span.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use opentelemetry::Context;

use super::spans::{self, AgentStart, Request, ServerCall, Shape, ToolRun};
use crate::core::completion::ToolCall;
use crate::core::event::{Event, EventKind};
use crate::core::id::RunId;
use crate::core::outcome::RunOutcome;
use crate::core::vendor::Vendor;
use crate::run::Observer;

/// Traces every run it is told about, then hands the event to `inner`.
pub struct TraceObserver {
    shape: Shape,
    inner: Arc<dyn Observer>,
    fold: Mutex<Fold>,
    /// Says when tracing is paused (the collector unreachable).
    gate: Option<Arc<super::queue::Counters>>,
}

#[derive(Default)]
struct Fold {
    runs: HashMap<RunId, RunTrace>,
    /// Runs open, innermost last.
    open: Vec<RunId>,
}

struct RunTrace {
    cx: Context,
    provider: Vendor,
    model: String,
    /// The attempt in flight and when it was sent.
    sent: Option<(u32, SystemTime)>,
    /// An answered request whose searches and citations may still arrive.
    answered: Option<Request>,
    /// The local tool calls the last answer asked for, not yet run.
    calls: VecDeque<ToolCall>,
    /// A tool span started early because a child run began inside it.
    open_tool: Option<Context>,
    /// When the run last did something outside a tool: a tool starts there.
    last: SystemTime,
}

impl TraceObserver {
    /// Trace with `shape`, forwarding to `inner`.
    pub fn new(shape: Shape, inner: Arc<dyn Observer>) -> Self {
        TraceObserver {
            shape,
            inner,
            fold: Mutex::new(Fold::default()),
            gate: None,
        }
    }

    /// Make no spans while `counters` says tracing is paused (a run's end is
    /// still folded, so its open spans close); each event passed over is counted.
    pub fn paused_by(mut self, counters: Arc<super::queue::Counters>) -> Self {
        self.gate = Some(counters);
        self
    }

    fn apply(&self, fold: &mut Fold, e: &Event, now: SystemTime) {
        if let EventKind::RunStarted {
            goal,
            provider,
            model,
            web,
            ..
        } = &e.kind
        {
            let web = web.as_ref().and_then(|w| serde_json::to_string(w).ok());
            self.started(fold, e.run_id, (goal, *provider, model, web), now);
            return;
        }
        let shape = &self.shape;
        let Some(run) = fold.runs.get_mut(&e.run_id) else {
            return;
        };
        match &e.kind {
            EventKind::RequestSent { attempt } => {
                run.flush(shape);
                run.sent = Some((*attempt, now));
            }
            EventKind::Retrying {
                attempt,
                status,
                reason,
                ..
            } => {
                let kind = status.map_or_else(|| "transport".to_string(), |s| s.to_string());
                let failed = run.failed(e.step, *attempt, now, kind, reason.clone());
                spans::request(shape, &run.cx, &failed);
            }
            EventKind::ProviderCalled { .. } => {
                run.flush(shape);
                run.answered(e, now);
            }
            EventKind::ServerToolUsed {
                tool, error, input, ..
            } => {
                if let Some(r) = run.answered.as_mut() {
                    r.server_calls.push(ServerCall {
                        tool: tool.clone(),
                        error: error.clone(),
                        input: input.clone(),
                    });
                }
            }
            EventKind::CitationRecorded { citation } => {
                if let Some(r) = run.answered.as_mut() {
                    r.citations.push(citation.clone());
                }
            }
            EventKind::ToolCalled {
                name,
                input,
                ok,
                output,
            } => {
                run.flush(shape);
                let call = run.calls.pop_front().filter(|c| &c.name == name);
                let t = ToolRun {
                    name: name.clone(),
                    call_id: call.map(|c| c.id),
                    ok: *ok,
                    input: input.clone(),
                    output: output.clone(),
                };
                match run.open_tool.take() {
                    Some(cx) => spans::end_tool(shape, &cx, &t, now),
                    None => spans::tool(shape, &run.cx, &t, run.last, now),
                }
            }
            // Inside a tool: the tool's start stays where it was.
            EventKind::ApprovalAsked { .. } | EventKind::ApprovalAnswered { .. } => return,
            EventKind::Finished { outcome } => {
                self.finished(fold, e, outcome, now);
                return;
            }
            _ => {}
        }
        run.last = now;
    }

    /// A run began: its span, under its parent's `spawn_agent` tool span for a
    /// child. `run` is its goal, vendor, model and web declaration (JSON).
    fn started(
        &self,
        fold: &mut Fold,
        run_id: RunId,
        run: (&str, Vendor, &str, Option<String>),
        now: SystemTime,
    ) {
        let (goal, provider, model, web) = run;
        let mut agent = "io-harness".to_string();
        let parent = match fold.open.last().and_then(|p| fold.runs.get_mut(p)) {
            Some(p) => {
                p.flush(&self.shape);
                let call = p.calls.front();
                if let Some(name) = call
                    .and_then(|c| c.input.get("agent"))
                    .and_then(|a| a.as_str())
                {
                    agent = name.to_string();
                }
                let tool = call.map_or("spawn_agent", |c| c.name.as_str());
                let cx = spans::start_tool(&self.shape, &p.cx, tool, p.last);
                p.open_tool = Some(cx.clone());
                cx
            }
            None => Context::new(),
        };
        let start = AgentStart {
            web,
            run_id,
            agent,
            goal: goal.to_string(),
            provider,
            model: model.to_string(),
            at: now,
        };
        let cx = spans::start_agent(&self.shape, &parent, &start);
        fold.runs.insert(
            run_id,
            RunTrace {
                cx,
                provider,
                model: model.to_string(),
                sent: None,
                answered: None,
                calls: VecDeque::new(),
                open_tool: None,
                last: now,
            },
        );
        fold.open.push(run_id);
    }

    fn finished(&self, fold: &mut Fold, e: &Event, outcome: &RunOutcome, now: SystemTime) {
        fold.open.retain(|r| *r != e.run_id);
        let Some(mut run) = fold.runs.remove(&e.run_id) else {
            return;
        };
        run.flush(&self.shape);
        // A request in flight when the run ended: it failed, or was cut off.
        if let Some((attempt, _)) = run.sent {
            let (kind, why) = match outcome {
                RunOutcome::Error { message } => ("error", message.clone()),
                other => (other.label(), format!("the run ended ({})", other.label())),
            };
            let failed = run.failed(e.step, attempt, now, kind.to_string(), why);
            spans::request(&self.shape, &run.cx, &failed);
        }
        let error = match outcome {
            RunOutcome::Error { message } => Some(message.as_str()),
            _ => None,
        };
        spans::end_agent(&run.cx, Some(outcome.word()), error, now);
    }
}

impl RunTrace {
    /// A completion came back: its request waits for its searches and citations.
    fn answered(&mut self, e: &Event, now: SystemTime) {
        let EventKind::ProviderCalled {
            provider,
            model,
            usage,
            stop_reason: _,
            latency_ms,
            cost,
            text,
            response_id,
            finish_reason,
            tool_calls,
            server: _,
        } = &e.kind
        else {
            return;
        };
        let sent_at = now
            .checked_sub(Duration::from_millis(*latency_ms))
            .unwrap_or(now);
        let (attempt, start) = self.sent.take().unwrap_or((1, sent_at));
        self.calls = tool_calls.iter().cloned().collect();
        self.answered = Some(Request {
            step: e.step,
            attempt,
            provider: *provider,
            request_model: self.model.clone(),
            response_model: Some(model.clone()),
            start: Some(start),
            end: Some(now),
            response_id: response_id.clone(),
            // The vendor's own words; left out where it said none.
            finish_reason: finish_reason.clone(),
            usage: *usage,
            cost: Some(cost.clone()),
            text: text.clone(),
            tool_calls: tool_calls.clone(),
            ..Request::default()
        });
    }

    /// Send the answered request, its searches and citations now in.
    fn flush(&mut self, shape: &Shape) {
        if let Some(r) = self.answered.take() {
            spans::request(shape, &self.cx, &r);
        }
    }

    /// The attempt in flight, failed with `error.type` `kind`.
    fn failed(
        &mut self,
        step: u32,
        attempt: u32,
        now: SystemTime,
        kind: String,
        why: String,
    ) -> Request {
        let start = self.sent.take().map_or(now, |(_, t)| t);
        Request {
            step,
            attempt,
            provider: self.provider,
            request_model: self.model.clone(),
            start: Some(start),
            end: Some(now),
            error: Some((kind, why)),
            ..Request::default()
        }
    }
}

impl Observer for TraceObserver {
    fn event(&self, event: &Event) {
        let paused = self.gate.as_ref().filter(|g| g.paused());
        let closing = matches!(event.kind, EventKind::Finished { .. });
        match paused {
            Some(g) if !closing => {
                g.skipped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            _ => {
                let now = SystemTime::now();
                // A panic elsewhere left the fold poisoned: tracing stops, the run does not.
                if let Ok(mut fold) = self.fold.lock() {
                    self.apply(&mut fold, event, now);
                }
            }
        }
        self.inner.event(event);
    }
}
