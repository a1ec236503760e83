//! Chat Completions, streamed (OpenAI and OpenRouter): `chat.completion.chunk`s
//! with `delta.content`, `delta.tool_calls` (by index, arguments in pieces) and
//! `delta.annotations`; a chunk with the `finish_reason`; the usage chunk (asked
//! for with `stream_options.include_usage`); then `data: [DONE]`. OpenRouter adds
//! `: OPENROUTER PROCESSING` comments (the SSE parser drops them) and may end with
//! a chunk carrying a top-level `error`, which ends the attempt as a vendor error
//! of that code.
//!
//! The first choice is rebuilt as a non-streamed body and read by the vendor's
//! own decoder, so its server-tool and citation rules apply unchanged.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Delta, WireAssembler, bad_event, incomplete};
use crate::core::completion::{Completion, ToolCall};
use crate::core::error::Result;
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::wire::chat::url_citation;
use crate::core::wire::json::str_field;
use crate::core::wire::{openai_chat, openrouter_plugin};

/// One tool call being built.
#[derive(Default)]
struct Call {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

/// The Chat Completions assembler.
pub(super) struct Chat {
    vendor: Vendor,
    head: WireResponse,
    /// Top-level fields of the last chunk that had them (`id`, `model`, …).
    top: Map<String, Value>,
    content: Option<String>,
    calls: BTreeMap<u64, Call>,
    annotations: Vec<Value>,
    finish_reason: Option<Value>,
    usage: Option<Value>,
    done: bool,
    events: u64,
}

impl Chat {
    pub(super) fn new(vendor: Vendor, head: WireResponse) -> Self {
        Chat {
            vendor,
            head,
            top: Map::new(),
            content: None,
            calls: BTreeMap::new(),
            annotations: Vec::new(),
            finish_reason: None,
            usage: None,
            done: false,
            events: 0,
        }
    }

    fn decode(&self, v: &Value) -> Result<Completion> {
        match self.vendor {
            Vendor::OpenRouter => openrouter_plugin::decode_value(&self.head, v),
            _ => openai_chat::decode_value(&self.head, v),
        }
    }

    fn provider(&self) -> Vendor {
        self.vendor
    }

    fn tool_calls(&self) -> Vec<Value> {
        self.calls
            .values()
            .map(|c| {
                json!({"id": c.id.clone().unwrap_or_default(), "type": "function",
                       "function": {"name": c.name.clone().unwrap_or_default(),
                                    "arguments": c.arguments}})
            })
            .collect()
    }

    fn choice(&mut self, choice: &Value, out: &mut Vec<Delta>) {
        let delta = choice.get("delta").cloned().unwrap_or(Value::Null);
        if let Some(piece) = delta.get("content").and_then(Value::as_str) {
            self.content.get_or_insert_with(String::new).push_str(piece);
            if !piece.is_empty() {
                out.push(Delta::Text(piece.to_string()));
            }
        }
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
            let entry = self.calls.entry(index).or_default();
            if let Some(id) = str_field(call, "id") {
                entry.id = Some(id);
            }
            if let Some(f) = call.get("function") {
                if let Some(name) = str_field(f, "name") {
                    entry.name = Some(name);
                }
                if let Some(piece) = f.get("arguments").and_then(Value::as_str) {
                    entry.arguments.push_str(piece);
                }
            }
        }
        for a in delta
            .get("annotations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.annotations.push(a.clone());
            if let Some(c) = url_citation(a) {
                out.push(Delta::Citation(c));
            }
        }
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
            // The arguments are complete once the choice has finished.
            for c in self.calls.values() {
                let Some(name) = c.name.clone() else { continue };
                let input = if c.arguments.trim().is_empty() {
                    json!({})
                } else {
                    serde_json::from_str(&c.arguments)
                        .unwrap_or_else(|_| Value::String(c.arguments.clone()))
                };
                out.push(Delta::ToolCallRequested(ToolCall {
                    id: c.id.clone().unwrap_or_default(),
                    name,
                    input,
                }));
            }
        }
    }
}

impl WireAssembler for Chat {
    fn event(&mut self, _name: Option<&str>, data: &str, out: &mut Vec<Delta>) -> Result<()> {
        self.events += 1;
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let v: Value =
            serde_json::from_str(data).map_err(|e| bad_event(self.provider(), data, &e))?;
        // An error chunk (top-level, or on the choice) ends the attempt as the
        // vendor error the non-streamed decoder makes of it.
        let choice_error = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .and_then(|c| c.get("error"))
            .is_some_and(Value::is_object);
        if v.get("error").is_some_and(Value::is_object) || choice_error {
            self.decode(&v)?;
        }
        if let Value::Object(top) = &v {
            for (k, value) in top {
                if !matches!(k.as_str(), "choices" | "usage" | "object") && !value.is_null() {
                    self.top.insert(k.clone(), value.clone());
                }
            }
        }
        if let Some(choice) = v.get("choices").and_then(Value::as_array).and_then(|c| {
            c.iter()
                .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        }) {
            self.choice(choice, out);
        }
        if let Some(usage) = v.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
            if let Some(n) = usage.get("completion_tokens").and_then(Value::as_u64) {
                out.push(Delta::OutputTokens(n));
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Completion> {
        if self.finish_reason.is_none() || !self.done {
            let what = if self.finish_reason.is_none() {
                "a finish_reason"
            } else {
                "data: [DONE]"
            };
            return Err(incomplete(self.provider(), what, self.events));
        }
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert(
            "content".into(),
            self.content.clone().map_or(Value::Null, Value::String),
        );
        if !self.calls.is_empty() {
            message.insert("tool_calls".into(), Value::Array(self.tool_calls()));
        }
        if !self.annotations.is_empty() {
            message.insert("annotations".into(), Value::Array(self.annotations.clone()));
        }
        let mut body = self.top.clone();
        body.insert(
            "choices".into(),
            json!([{"index": 0, "message": message, "finish_reason": self.finish_reason}]),
        );
        if let Some(u) = &self.usage {
            body.insert("usage".into(), u.clone());
        }
        self.decode(&Value::Object(body))
    }
}
