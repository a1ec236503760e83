//! Perplexity's Agent API, streamed (recorded 2026-09-25; its OpenAPI's
//! `ResponseStreamEvent`): data-only events, no `[DONE]`. A search opens as a
//! `function_call` item named `search_web` (its queries in `arguments`), shown at
//! once, running; `response.reasoning.search_queries` and `…search_results`
//! follow; the item then closes as a `search_results` item — the added and the
//! done item differ in type — which is the search returning. `fetch_url` runs the
//! same way (`…fetch_url_queries`, `…fetch_url_results`, a `fetch_url_results`
//! item). Text comes as `response.output_text.delta` (no content-part or
//! annotation events; the message is added with `content: null`). Exactly one
//! of `response.completed`, `.incomplete`, `.failed`, `.cancelled` ends the
//! stream; the completed one carries the whole response, which the wire's own
//! decoder reads. A `failed` event (or an `error` event) ends the attempt as the
//! vendor error of its code.
//!
//! `render` is the inverse, for the stub vendor.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::frame::{frame, pieces};
use super::openai_responses::{Kept, text_delta};
use super::{Delta, WireAssembler, bad_event};
use crate::core::completion::{Completion, ServerToolCall};
use crate::core::error::Result;
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::wire::json::{arguments, str_field};
use crate::core::wire::openai_responses::function_call;
use crate::core::wire::perplexity_agent::decode_value;

const PROVIDER: Vendor = Vendor::Perplexity;

/// The events that end a stream.
const TERMINAL: [&str; 4] = [
    "response.completed",
    "response.incomplete",
    "response.failed",
    "response.cancelled",
];

/// Perplexity's own tools, as their calls are named when they open.
const OWN: [&str; 2] = ["search_web", "fetch_url"];

/// The Agent API assembler.
pub(super) struct Agent {
    head: WireResponse,
    kept: Kept,
    /// Perplexity's own calls opened, by output index: (call id, tool, input).
    open: BTreeMap<u64, (String, String, Option<String>)>,
}

impl Agent {
    pub(super) fn new(head: WireResponse) -> Self {
        Agent {
            head,
            kept: Kept::default(),
            open: BTreeMap::new(),
        }
    }

    fn added(&mut self, v: &Value, out: &mut Vec<Delta>) {
        let item = v.get("item").unwrap_or(&Value::Null);
        let name = str_field(item, "name").unwrap_or_default();
        if item.get("type").and_then(Value::as_str) != Some("function_call")
            || !OWN.contains(&name.as_str())
        {
            return;
        }
        let args = arguments(str_field(item, "arguments").unwrap_or_default());
        let input = ["queries", "urls"].iter().find_map(|k| {
            args.get(*k)
                .and_then(Value::as_array)
                .and_then(|a| a.first())
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let id = str_field(item, "call_id")
            .or_else(|| str_field(item, "id"))
            .unwrap_or_default();
        out.push(Delta::ServerToolStarted {
            id: id.clone(),
            tool: name.clone(),
            input: input.clone(),
        });
        let index = self.kept.index(v);
        self.open.insert(index, (id, name, input));
    }

    fn done(&mut self, v: &Value, out: &mut Vec<Delta>) {
        let Some((index, item)) = self.kept.item_done(v) else {
            return;
        };
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        let own = matches!(kind, "search_results" | "fetch_url_results")
            || OWN.contains(&str_field(item, "name").unwrap_or_default().as_str());
        if own {
            let (id, tool, input) = self.open.remove(&index).unwrap_or_else(|| {
                let tool = if kind == "fetch_url_results" {
                    "fetch_url"
                } else {
                    "search_web"
                };
                (String::new(), tool.to_string(), None)
            });
            let mut call = ServerToolCall::ok(PROVIDER, tool);
            call.input = input;
            out.push(Delta::ServerToolReturned { id, call });
        } else if kind == "function_call" {
            out.extend(function_call(item).map(Delta::ToolCallRequested));
        }
    }

    /// An `error` (an `error` event's, a `response.failed`'s) as the vendor error.
    fn failed(&self, err: &Value) -> Result<()> {
        decode_value(&self.head, &json!({ "error": err })).map(|_| ())
    }
}

impl WireAssembler for Agent {
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
            "response.output_item.added" => self.added(&v, out),
            "response.output_item.done" => self.done(&v, out),
            "error" => {
                let err = v.get("error").cloned().unwrap_or_else(|| v.clone());
                self.failed(&err)?;
            }
            k if TERMINAL.contains(&k) => {
                let response = v.get("response").cloned().unwrap_or(Value::Null);
                let err = v
                    .get("error")
                    .or_else(|| response.get("error"))
                    .filter(|e| e.is_object());
                if let Some(err) = err {
                    self.failed(err)?;
                }
                let response = if response.is_object() {
                    response
                } else {
                    json!({"status": k.trim_start_matches("response.")})
                };
                self.kept.terminal(response, out);
            }
            _ => {} // progress and reasoning events: the done item says it whole
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Completion> {
        let response = self.kept.response(PROVIDER, true)?;
        decode_value(&self.head, &response)
    }
}

/// An Agent API body as the events Perplexity streams for it: created, in
/// progress, each item's events, completed; data only, numbered in order.
pub(super) fn render(v: &Value) -> Vec<String> {
    let mut start = v.as_object().cloned().unwrap_or_default();
    start.insert("status".into(), json!("in_progress"));
    start.insert("output".into(), json!([]));
    start.insert("usage".into(), Value::Null);
    let mut events = vec![
        json!({"type": "response.created", "response": start}),
        json!({"type": "response.in_progress", "response": start}),
    ];
    let items = v.get("output").and_then(Value::as_array);
    for (i, item) in items.into_iter().flatten().enumerate() {
        events.extend(item_events(i, item));
        events.push(json!({"type": "response.output_item.done", "output_index": i, "item": item}));
    }
    let terminal = match v.get("status").and_then(Value::as_str) {
        Some("incomplete") => "response.incomplete",
        _ => "response.completed",
    };
    events.push(json!({"type": terminal, "response": v}));
    events
        .into_iter()
        .enumerate()
        .map(|(seq, e)| {
            let mut e = match e {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            e.insert("sequence_number".into(), json!(seq as u64));
            frame(None, &Value::Object(e))
        })
        .collect()
}

/// One item's events before its `done`: a search or fetch opening as its
/// `function_call` and its reasoning events; a message added empty and its text
/// in pieces; anything else added whole.
fn item_events(i: usize, item: &Value) -> Vec<Value> {
    let added = |item: Value| json!({"type": "response.output_item.added", "output_index": i, "item": item});
    let call_id = format!("call_{i}");
    let own = |name: &str, key: &str, list: Value, found: &str, what: Value| {
        let event = |kind: String, k: &str, v: Value| {
            let mut e = Map::new();
            e.insert("type".into(), json!(kind));
            e.insert("call_id".into(), json!(call_id));
            e.insert(k.into(), v);
            Value::Object(e)
        };
        let mut args = Map::new();
        args.insert(key.into(), list.clone());
        let queries = if key == "queries" {
            "search_queries"
        } else {
            "fetch_url_queries"
        };
        let results = if found == "search_results" {
            "results"
        } else {
            "contents"
        };
        vec![
            added(
                json!({"type": "function_call", "id": format!("fc_{i}"), "call_id": call_id,
                         "name": name, "arguments": Value::Object(args).to_string(),
                         "status": "completed"}),
            ),
            event(format!("response.reasoning.{queries}"), key, list),
            event(format!("response.reasoning.{found}"), results, what),
        ]
    };
    let field = |k: &str| item.get(k).cloned().unwrap_or_else(|| json!([]));
    match item.get("type").and_then(Value::as_str) {
        Some("search_results") => own(
            "search_web",
            "queries",
            field("queries"),
            "search_results",
            field("results"),
        ),
        Some("fetch_url_results") => {
            let urls: Vec<Value> = field("contents")
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("url").cloned())
                .collect();
            own(
                "fetch_url",
                "urls",
                Value::Array(urls),
                "fetch_url_results",
                field("contents"),
            )
        }
        Some("message") => {
            let mut opened = item.clone();
            opened["content"] = Value::Null;
            let mut events = vec![added(opened)];
            let id = item.get("id").cloned().unwrap_or(Value::Null);
            let parts = item.get("content").and_then(Value::as_array);
            for (j, part) in parts.into_iter().flatten().enumerate() {
                let text = part.get("text").and_then(Value::as_str).unwrap_or("");
                for piece in pieces(text) {
                    events.push(json!({"type": "response.output_text.delta", "item_id": id,
                        "output_index": i, "content_index": j, "delta": piece}));
                }
                events.push(json!({"type": "response.output_text.done", "item_id": id,
                    "output_index": i, "content_index": j, "text": text}));
            }
            events
        }
        _ => vec![added(item.clone())],
    }
}
