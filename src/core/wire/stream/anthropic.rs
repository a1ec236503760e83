//! Anthropic Messages, streamed: `message_start`, `content_block_start` / `_delta`
//! / `_stop`, `message_delta`, `message_stop`, `ping`, and `error` mid-stream.
//!
//! Blocks are rebuilt as the non-streamed message has them (text joined from
//! `text_delta`s with its `citations_delta`s, tool inputs parsed from their
//! `input_json_delta` text, result blocks as they start), then
//! `anthropic::decode_message` reads the rebuilt message. Usage is the last
//! `message_delta`'s counts, a count it lacks taken from `message_start` (which
//! on search turns reports far fewer input tokens than the end).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};

use super::{Delta, WireAssembler, bad_event, incomplete};
use crate::core::completion::{Completion, ServerToolCall, ToolCall};
use crate::core::error::{Error, Result};
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::wire::anthropic::{citation, decode_message, error_from, result_error};
use crate::core::wire::json::str_field;

const PROVIDER: Vendor = Vendor::Anthropic;

/// One content block being built.
struct Block {
    value: Map<String, Value>,
    /// `input_json_delta` text so far, parsed into `input` at the block's stop.
    json: String,
}

/// The Messages assembler.
pub(super) struct Messages {
    head: WireResponse,
    message: Map<String, Value>,
    blocks: BTreeMap<u64, Block>,
    usage: Map<String, Value>,
    /// What each `server_tool_use` asked, by id.
    asked: HashMap<String, (String, Option<String>)>,
    /// Fetched documents' URLs in order (a fetch citation names one by index).
    documents: Vec<String>,
    started: bool,
    stopped: bool,
    events: u64,
}

impl Messages {
    pub(super) fn new(head: WireResponse) -> Self {
        Messages {
            head,
            message: Map::new(),
            blocks: BTreeMap::new(),
            usage: Map::new(),
            asked: HashMap::new(),
            documents: Vec::new(),
            started: false,
            stopped: false,
            events: 0,
        }
    }

    fn merge_usage(&mut self, usage: Option<&Value>) {
        if let Some(Value::Object(u)) = usage {
            for (k, v) in u {
                if !v.is_null() {
                    self.usage.insert(k.clone(), v.clone());
                }
            }
        }
    }

    fn block_started(&mut self, index: u64, block: Map<String, Value>, out: &mut Vec<Delta>) {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "web_search_tool_result" | "web_fetch_tool_result" => {
                let value = Value::Object(block.clone());
                if kind == "web_fetch_tool_result" {
                    if let Some(url) = value.get("content").and_then(|c| str_field(c, "url")) {
                        self.documents.push(url);
                    }
                }
                let id = str_field(&value, "tool_use_id").unwrap_or_default();
                let (tool, input) =
                    self.asked.get(&id).cloned().unwrap_or_else(|| {
                        (kind.trim_end_matches("_tool_result").to_string(), None)
                    });
                let mut call = match result_error(value.get("content")) {
                    Some(code) => ServerToolCall::failed(PROVIDER, tool, code),
                    None => ServerToolCall::ok(PROVIDER, tool),
                };
                call.input = input;
                out.push(Delta::ServerToolReturned { id, call });
            }
            "text" => {
                for c in block
                    .get("citations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(c) = citation(c, &self.documents) {
                        out.push(Delta::Citation(c));
                    }
                }
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    if !text.is_empty() {
                        out.push(Delta::Text(text.to_string()));
                    }
                }
            }
            _ => {}
        }
        self.blocks.insert(
            index,
            Block {
                value: block,
                json: String::new(),
            },
        );
    }

    fn block_delta(&mut self, index: u64, delta: &Value, out: &mut Vec<Delta>) -> Result<()> {
        let Some(block) = self.blocks.get_mut(&index) else {
            return Err(self.out_of_order(&format!("a delta for block {index}, never started")));
        };
        let piece = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                let piece = piece("text");
                append(&mut block.value, "text", piece);
                if !piece.is_empty() {
                    out.push(Delta::Text(piece.to_string()));
                }
            }
            Some("input_json_delta") => block.json.push_str(piece("partial_json")),
            Some("citations_delta") => {
                if let Some(c) = delta.get("citation") {
                    let list = block
                        .value
                        .entry("citations")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if !list.is_array() {
                        *list = Value::Array(Vec::new());
                    }
                    if let Value::Array(list) = list {
                        list.push(c.clone());
                    }
                    if let Some(c) = citation(c, &self.documents) {
                        out.push(Delta::Citation(c));
                    }
                }
            }
            Some("thinking_delta") => append(&mut block.value, "thinking", piece("thinking")),
            Some("signature_delta") => append(&mut block.value, "signature", piece("signature")),
            _ => {} // deltas of kinds this crate does not read are tolerated
        }
        Ok(())
    }

    fn block_stopped(&mut self, index: u64, out: &mut Vec<Delta>) -> Result<()> {
        let Some(block) = self.blocks.get_mut(&index) else {
            return Err(self.out_of_order(&format!("a stop for block {index}, never started")));
        };
        if !block.json.trim().is_empty() {
            let input: Value = serde_json::from_str(&block.json).map_err(|e| Error::Decode {
                provider: PROVIDER,
                message: format!("block {index}'s streamed input is not JSON: {e}"),
                snippet: super::super::json::snippet(block.json.as_bytes()),
            })?;
            block.value.insert("input".into(), input);
            block.json.clear();
        }
        let value = Value::Object(block.value.clone());
        match value.get("type").and_then(Value::as_str) {
            Some("server_tool_use") => {
                let id = str_field(&value, "id").unwrap_or_default();
                let tool = str_field(&value, "name").unwrap_or_default();
                let said = value
                    .get("input")
                    .and_then(|i| str_field(i, "query").or_else(|| str_field(i, "url")));
                self.asked.insert(id.clone(), (tool.clone(), said.clone()));
                out.push(Delta::ServerToolStarted {
                    id,
                    tool,
                    input: said,
                });
            }
            Some("tool_use") => {
                if let Some(name) = str_field(&value, "name") {
                    out.push(Delta::ToolCallRequested(ToolCall {
                        id: str_field(&value, "id").unwrap_or_default(),
                        name,
                        input: value.get("input").cloned().unwrap_or_else(|| json!({})),
                    }));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn out_of_order(&self, what: &str) -> Error {
        Error::Decode {
            provider: PROVIDER,
            message: format!("the stream sent {what}"),
            snippet: format!("after {} events", self.events),
        }
    }
}

fn append(block: &mut Map<String, Value>, key: &str, piece: &str) {
    match block.get_mut(key) {
        Some(Value::String(s)) => s.push_str(piece),
        _ => {
            block.insert(key.into(), Value::String(piece.to_string()));
        }
    }
}

/// The HTTP status Anthropic gives each error type (its errors page), so an
/// `error` event mid-stream is retried exactly as that status would be.
fn status_of(error_type: Option<&str>) -> u16 {
    match error_type {
        Some("invalid_request_error") => 400,
        Some("authentication_error") => 401,
        Some("billing_error") => 402,
        Some("permission_error") => 403,
        Some("not_found_error") => 404,
        Some("request_too_large") => 413,
        Some("rate_limit_error") => 429,
        Some("overloaded_error") => 529,
        Some("timeout_error") => 504,
        _ => 500, // api_error, and anything unnamed: the vendor's own fault
    }
}

impl WireAssembler for Messages {
    fn event(&mut self, _name: Option<&str>, data: &str, out: &mut Vec<Delta>) -> Result<()> {
        self.events += 1;
        let v: Value = serde_json::from_str(data).map_err(|e| bad_event(PROVIDER, data, &e))?;
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        match v.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(Value::Object(m)) = v.get("message") {
                    self.message = m.clone();
                    self.merge_usage(m.get("usage"));
                }
                self.started = true;
            }
            Some("content_block_start") => {
                let block = match v.get("content_block") {
                    Some(Value::Object(b)) => b.clone(),
                    _ => Map::new(),
                };
                self.block_started(index, block, out);
            }
            Some("content_block_delta") => {
                let delta = v.get("delta").cloned().unwrap_or(Value::Null);
                self.block_delta(index, &delta, out)?;
            }
            Some("content_block_stop") => self.block_stopped(index, out)?,
            Some("message_delta") => {
                if let Some(Value::Object(d)) = v.get("delta") {
                    for (k, value) in d {
                        self.message.insert(k.clone(), value.clone());
                    }
                }
                self.merge_usage(v.get("usage"));
                if let Some(n) = self.usage.get("output_tokens").and_then(Value::as_u64) {
                    out.push(Delta::OutputTokens(n));
                }
            }
            Some("message_stop") => self.stopped = true,
            Some("error") => {
                let mut e = error_from(&self.head, &v);
                e.status = status_of(e.error_type.as_deref());
                return Err(Error::from(e));
            }
            _ => {} // `ping`, and event types added after this was written
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Completion> {
        if !(self.started && self.stopped) {
            return Err(incomplete(PROVIDER, "message_stop", self.events));
        }
        let mut message = self.message;
        let content: Vec<Value> = self
            .blocks
            .into_values()
            .map(|b| Value::Object(b.value))
            .collect();
        message.insert("content".into(), Value::Array(content));
        if !self.usage.is_empty() {
            message.insert("usage".into(), Value::Object(self.usage));
        }
        decode_message(&self.head, &Value::Object(message))
    }
}
