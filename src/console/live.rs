//! The Run panes' live half: a streamed answer folded in as it arrives. Text
//! grows in its own log lines (a new line after a server tool or a tool call
//! cuts in); a server-side tool appears the moment it starts, with its query and
//! a running timer, and turns ok or FAILED when its result arrives; the request
//! in flight shows its output tokens so far. A stream cut off keeps what arrived,
//! marked interrupted, and the retry starts a fresh block. The summary events
//! that follow a complete response (`ProviderCalled`, `ServerToolUsed`) confirm
//! these lines rather than adding them twice.

use super::runview::{RunView, ServerLine, Tone};
use crate::core::event::{Event, EventKind};

/// What the request in flight has streamed so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Live {
    /// Log lines this attempt streamed text into, in order.
    pub lines: Vec<usize>,
    /// The last of them is still growing (no other event has cut in).
    pub open: bool,
    /// The text of the growing line so far.
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

impl RunView {
    /// Fold one streamed event of the root run in; `false` when `event` is not one.
    pub(super) fn apply_live(&mut self, event: &Event) -> bool {
        let step = event.step;
        match &event.kind {
            EventKind::TextDelta { text } => {
                self.live.active = true;
                self.live.chars += text.chars().count() as u64;
                if !self.live.open {
                    self.log.push((step, String::new(), Tone::Plain));
                    self.live.lines.push(self.log.len() - 1);
                    self.live.open = true;
                    self.live.text.clear();
                }
                self.live.text.push_str(text);
                let line = format!("model: {}", super::runview::one_line(&self.live.text));
                if let Some(&i) = self.live.lines.last() {
                    if let Some(entry) = self.log.get_mut(i) {
                        entry.1 = line;
                    }
                }
            }
            EventKind::ServerToolStarted {
                tool, id, input, ..
            } => {
                self.live.active = true;
                self.live.open = false;
                self.server.push(ServerLine {
                    step,
                    tool: tool.clone(),
                    error: None,
                    input: input.clone(),
                    id: Some(id.clone()),
                    started_ms: Some(event.elapsed_ms),
                    running: true,
                    ..ServerLine::default()
                });
            }
            EventKind::ServerToolReturned {
                tool,
                id,
                error,
                input,
                ..
            } => {
                self.live.active = true;
                self.live.open = false;
                let found =
                    self.server.iter_mut().rev().find(|s| {
                        s.running && s.step == step && s.id.as_deref() == Some(id.as_str())
                    });
                match found {
                    Some(line) => {
                        line.running = false;
                        line.error = error.clone();
                        line.took_ms = line.started_ms.map(|t| event.elapsed_ms.saturating_sub(t));
                    }
                    // A result whose start came in an earlier response (a paused turn).
                    None => self.server.push(ServerLine {
                        step,
                        tool: tool.clone(),
                        error: error.clone(),
                        input: input.clone(),
                        id: Some(id.clone()),
                        ..ServerLine::default()
                    }),
                }
            }
            EventKind::ToolCallRequested { name, input, .. } => {
                self.live.active = true;
                self.live.open = false;
                self.log
                    .push((step, format!("asks for {name} {input}"), Tone::Muted));
            }
            EventKind::CitationReceived { .. } => self.live.active = true,
            EventKind::OutputTokens { output_tokens } => {
                self.live.active = true;
                self.live.reported_tokens = *output_tokens;
            }
            _ => return false,
        }
        true
    }

    /// The attempt in flight ended without a completion (a retry follows, or the
    /// run ends): what it streamed stays, marked interrupted.
    pub(super) fn interrupt_live(&mut self) {
        if let Some(&i) = self.live.lines.last() {
            if let Some(entry) = self.log.get_mut(i) {
                entry.1.push_str(" ⋯ interrupted");
                entry.2 = Tone::Muted;
            }
        }
        for line in self
            .server
            .iter_mut()
            .filter(|s| s.id.is_some() && !s.recorded)
        {
            line.running = false;
            line.interrupted = true;
        }
        self.live = Live::default();
    }

    /// A complete response arrived: `true` when its text was already streamed.
    pub(super) fn settle_live(&mut self) -> bool {
        let streamed = !self.live.lines.is_empty();
        self.live = Live::default();
        streamed
    }

    /// A recorded server-tool call: confirms the streamed line it matches.
    pub(super) fn confirm_server(&mut self, step: u32, tool: &str, input: Option<&str>) -> bool {
        let found = self.server.iter_mut().find(|s| {
            s.id.is_some()
                && !s.recorded
                && !s.interrupted
                && s.step == step
                && s.tool == tool
                && s.input.as_deref() == input
        });
        match found {
            Some(line) => {
                line.recorded = true;
                line.running = false;
                true
            }
            None => false,
        }
    }
}
