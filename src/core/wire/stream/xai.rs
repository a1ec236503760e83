//! xAI's Responses API, streamed: OpenAI's event names (`response.output_item.added`
//! / `.done`, `response.web_search_call.in_progress` / `.searching` /
//! `.completed`, `response.custom_tool_call_input.*` for X search's sub-tools,
//! `response.output_text.delta`, `response.output_text.annotation.added`, the
//! reasoning summary events), sent as data only and ended by `data: [DONE]`
//! after the terminal event (`response.completed`, which carries the whole
//! response and its usage). A search shows at once, running, when its item is
//! added, and returns — with its query, which xAI fills in only then — when the
//! item is done; the terminal response's own items are what the wire's decoder
//! reads, so the streamed and non-streamed paths cannot drift apart. A stream
//! ends complete on the terminal event: `[DONE]` is read where it comes and is
//! not needed (the recorded streams keep only the JSON payloads). An `error`
//! event ends the attempt as the vendor error of its code.
//!
//! `render` is the inverse, for the stub vendor: OpenAI's events for the body,
//! data only, then `[DONE]`.

use serde_json::{Value, json};

use super::frame::frame;
use super::openai_responses::{Kept, text_delta};
use super::{Delta, WireAssembler, bad_event};
use crate::core::completion::Completion;
use crate::core::error::Result;
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::wire::json::str_field;
use crate::core::wire::openai_responses::function_call;
use crate::core::wire::xai::{citation, decode_value, server_call};

const PROVIDER: Vendor = Vendor::Xai;

/// The events that end a stream, each with the whole response.
const TERMINAL: [&str; 3] = [
    "response.completed",
    "response.incomplete",
    "response.failed",
];

/// The xAI assembler.
pub(super) struct Xai {
    head: WireResponse,
    kept: Kept,
}

impl Xai {
    pub(super) fn new(head: WireResponse) -> Self {
        Xai {
            head,
            kept: Kept::default(),
        }
    }

    /// A body carrying an `error` object, as the vendor error the decoder makes.
    fn failed(&self, body: &Value) -> Result<()> {
        decode_value(&self.head, body).map(|_| ())
    }

    fn added(item: &Value, out: &mut Vec<Delta>) {
        if let Some(call) = server_call(item) {
            out.push(Delta::ServerToolStarted {
                id: str_field(item, "id").unwrap_or_default(),
                tool: call.tool,
                input: call.input,
            });
        }
    }

    fn done(&mut self, v: &Value, out: &mut Vec<Delta>) {
        let Some((_, item)) = self.kept.item_done(v) else {
            return;
        };
        if let Some(call) = server_call(item) {
            out.push(Delta::ServerToolReturned {
                id: str_field(item, "id").unwrap_or_default(),
                call,
            });
        } else if item.get("type").and_then(Value::as_str) == Some("function_call") {
            out.extend(function_call(item).map(Delta::ToolCallRequested));
        }
    }
}

impl WireAssembler for Xai {
    fn event(&mut self, name: Option<&str>, data: &str, out: &mut Vec<Delta>) -> Result<()> {
        self.kept.counted();
        if data.trim() == "[DONE]" {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| bad_event(PROVIDER, data, &e))?;
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(name)
            .unwrap_or_default();
        match kind {
            "response.output_text.delta" => text_delta(&v, out),
            "response.output_text.annotation.added" => {
                let a = v.get("annotation").unwrap_or(&Value::Null);
                let none = crate::core::wire::json::CharIndex::new("");
                out.extend(citation(a, "", &none).map(Delta::Citation));
            }
            "response.output_item.added" => {
                Xai::added(v.get("item").unwrap_or(&Value::Null), out);
            }
            "response.output_item.done" => self.done(&v, out),
            "error" => {
                let err = match v.get("error").filter(|e| e.is_object()) {
                    Some(e) => e.clone(),
                    None => json!({"code": v.get("code"), "message": v.get("message")}),
                };
                self.failed(&json!({ "error": err }))?;
            }
            k if TERMINAL.contains(&k) => {
                let response = v.get("response").cloned().unwrap_or(Value::Null);
                if response.get("error").is_some_and(Value::is_object) {
                    self.failed(&response)?;
                }
                self.kept.terminal(response, out);
            }
            _ => {} // progress, reasoning summaries, custom tool input pieces
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Completion> {
        let response = self.kept.response(PROVIDER, false)?;
        decode_value(&self.head, &response)
    }
}

/// An xAI body as the events xAI streams for it: OpenAI's Responses events,
/// data only, then `data: [DONE]`.
pub(super) fn render(v: &Value) -> Vec<String> {
    let mut frames: Vec<String> = super::openai_responses::events(v)
        .iter()
        .map(|e| frame(None, e))
        .collect();
    frames.push("data: [DONE]\n\n".to_string());
    frames
}
