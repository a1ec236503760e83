//! The Run panes' live half: a streamed answer folded in as it arrives. Text
//! grows in one `model:` log line per attempt (the line a whole answer gets); a
//! server-side tool appears the moment it starts, with its query and a running
//! timer, and turns ok or FAILED when its result arrives; the request in flight
//! shows its output tokens so far. A stream cut off keeps what arrived, marked
//! interrupted, and the retry starts a fresh line. The summary events that
//! follow a complete response (`ProviderCalled`, `ServerToolUsed`) confirm these
//! lines rather than adding them twice, so a finished run reads as it would have
//! without streaming (and as it reads from the store).

use crate::console::state::run::{Live, RunView, ServerLine, Tone, one_line};
use crate::core::event::{Event, EventKind};

impl RunView {
    /// Fold one streamed event of the root run in; `false` when `event` is not one.
    pub(super) fn apply_live(&mut self, event: &Event) -> bool {
        let step = event.step;
        match &event.kind {
            EventKind::TextDelta { text } => {
                self.live.active = true;
                self.live.chars += text.chars().count() as u64;
                let i = *self.live.line.get_or_insert_with(|| {
                    self.log.push((step, String::new(), Tone::Plain));
                    self.log.len() - 1
                });
                self.live.text.push_str(text);
                let line = format!("model: {}", one_line(&self.live.text));
                if let Some(entry) = self.log.get_mut(i) {
                    entry.1 = line;
                }
            }
            EventKind::ServerToolStarted {
                tool, id, input, ..
            } => {
                self.live.active = true;
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
                let found =
                    self.server.iter_mut().rev().find(|s| {
                        s.running && s.step == step && s.id.as_deref() == Some(id.as_str())
                    });
                match found {
                    Some(line) => {
                        line.running = false;
                        line.error = error.clone();
                        // Responses names the query only when the search is done.
                        if line.input.is_none() {
                            line.input.clone_from(input);
                        }
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
            // The tool's own line comes when it runs, after the response is complete.
            EventKind::ToolCallRequested { .. } | EventKind::CitationReceived { .. } => {
                self.live.active = true;
            }
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
        if let Some(i) = self.live.line {
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

    /// A complete response arrived with `text`: `true` when the streamed line took
    /// that text in place, `false` when the caller logs it as a whole answer. A
    /// server tool still running is dropped: the response ended before its result
    /// (a paused turn), so nothing records it and the continuation runs it again.
    pub(super) fn settle_live(&mut self, text: &str) -> bool {
        // The streamed line, when it is still the last, gives way to the lines a
        // whole answer gets; otherwise it takes the complete text in place.
        let streamed = match self.live.line {
            Some(i) if i + 1 == self.log.len() => {
                self.log.pop();
                false
            }
            Some(i) => {
                if let Some(entry) = self.log.get_mut(i) {
                    entry.1 = format!("model: {}", one_line(text));
                }
                true
            }
            None => false,
        };
        self.server.retain(|s| !(s.running && s.id.is_some()));
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
