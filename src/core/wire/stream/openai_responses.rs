//! OpenAI Responses, streamed: named events, each carrying its `type` and a
//! `sequence_number`. An item opens with `response.output_item.added` (a web search
//! starting, a message, a function call) and closes with
//! `response.output_item.done`, which carries it whole (the search's query and
//! status, the call's arguments); text comes as `response.output_text.delta`,
//! citations as `response.output_text.annotation.added`. One terminal event ends
//! the stream and carries the whole response object (`response.completed`,
//! `response.incomplete`, `response.failed`); the wire's own decoder reads it, so
//! the streamed and the non-streamed paths cannot drift apart. Should its `output`
//! be empty, the items seen done are put in it. An `error` event ends the attempt
//! as the vendor error of its code.
//!
//! `render` is the inverse (a non-streamed body as the events OpenAI would send),
//! for the stub vendor and the property test.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::frame::{frame, pieces};
use super::{Delta, WireAssembler, bad_event, incomplete};
use crate::core::completion::Completion;
use crate::core::error::Result;
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::wire::json::str_field;
use crate::core::wire::openai_responses::{
    decode_value, function_call, search_input, url_citation, web_search_call,
};

const PROVIDER: Vendor = Vendor::OpenAi;

/// The events that end a Responses stream, each with the whole response.
const TERMINAL: [&str; 3] = [
    "response.completed",
    "response.incomplete",
    "response.failed",
];

/// The Responses assembler.
pub(super) struct Responses {
    head: WireResponse,
    kept: Kept,
}

impl Responses {
    pub(super) fn new(head: WireResponse) -> Self {
        Responses {
            head,
            kept: Kept::default(),
        }
    }

    /// An `error` event as the vendor error the non-streamed decoder makes of an
    /// `error` object (documented with `code`/`message` at the top, recorded with
    /// them nested in `error`).
    fn error(&self, v: &Value) -> Result<()> {
        let err = match v.get("error").filter(|e| e.is_object()) {
            Some(e) => e.clone(),
            None => json!({"code": v.get("code"), "message": v.get("message"),
                           "param": v.get("param")}),
        };
        self.failed(&json!({ "error": err }))
    }

    /// A body carrying an `error` object (an `error` event's, a failed response)
    /// as the vendor error the wire's decoder makes of it: under the status its
    /// code has, so the attempt is retried as that status would be.
    fn failed(&self, body: &Value) -> Result<()> {
        decode_value(&self.head, body).map(|_| ())
    }

    fn item_done(&mut self, v: &Value, out: &mut Vec<Delta>) {
        let Some((_, item)) = self.kept.item_done(v) else {
            return;
        };
        match item.get("type").and_then(Value::as_str) {
            Some("web_search_call") => out.push(Delta::ServerToolReturned {
                id: str_field(item, "id").unwrap_or_default(),
                call: web_search_call(item),
            }),
            Some("function_call") => out.extend(function_call(item).map(Delta::ToolCallRequested)),
            _ => {}
        }
    }
}

impl WireAssembler for Responses {
    fn event(&mut self, name: Option<&str>, data: &str, out: &mut Vec<Delta>) -> Result<()> {
        self.kept.counted();
        let v: Value = serde_json::from_str(data).map_err(|e| bad_event(PROVIDER, data, &e))?;
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(name)
            .unwrap_or_default();
        match kind {
            "response.output_text.delta" => text_delta(&v, out),
            "response.output_text.annotation.added" => {
                out.extend(
                    v.get("annotation")
                        .and_then(url_citation)
                        .map(Delta::Citation),
                );
            }
            "response.output_item.added" => {
                let item = v.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("web_search_call") {
                    out.push(Delta::ServerToolStarted {
                        id: str_field(item, "id").unwrap_or_default(),
                        tool: "web_search".to_string(),
                        input: item.get("action").and_then(search_input),
                    });
                }
            }
            "response.output_item.done" => self.item_done(&v, out),
            "error" => self.error(&v)?,
            k if TERMINAL.contains(&k) => {
                let response = v.get("response").cloned().unwrap_or(Value::Null);
                if response.get("error").is_some_and(Value::is_object) {
                    // `response.failed`: the vendor error of its code, now.
                    self.failed(&response)?;
                }
                self.kept.terminal(response, out);
            }
            _ => {} // progress events (`…searching`, `…in_progress`) carry nothing new
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Completion> {
        let response = self.kept.response(PROVIDER, false)?;
        decode_value(&self.head, &response)
    }
}

/// What a Responses-shaped stream keeps until it ends (OpenAI's, xAI's and
/// Perplexity's Agent API alike): the items seen whole by output index, the
/// terminal event's response, and how many events came.
#[derive(Default)]
pub(super) struct Kept {
    items: BTreeMap<u64, Value>,
    last: Option<Value>,
    events: u64,
}

impl Kept {
    /// One more event read.
    pub(super) fn counted(&mut self) {
        self.events += 1;
    }

    /// Where event `v`'s item sits: its `output_index`, else after those seen.
    pub(super) fn index(&self, v: &Value) -> u64 {
        v.get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(self.items.len() as u64)
    }

    /// The item of a `response.output_item.done` event `v`, kept at its index;
    /// `None` when the event carries none.
    pub(super) fn item_done<'v>(&mut self, v: &'v Value) -> Option<(u64, &'v Value)> {
        let item = v.get("item").filter(|i| i.is_object())?;
        let index = self.index(v);
        self.items.insert(index, item.clone());
        Some((index, item))
    }

    /// A terminal event's response kept (its output tokens said now).
    pub(super) fn terminal(&mut self, response: Value, out: &mut Vec<Delta>) {
        if let Some(n) = response
            .get("usage")
            .and_then(|u| u.get("output_tokens"))
            .and_then(Value::as_u64)
        {
            out.push(Delta::OutputTokens(n));
        }
        self.last = Some(response);
    }

    /// The response to decode: the terminal one, its `output` — when empty or
    /// absent — made of the items seen (`always`: even when none was seen).
    /// Without a terminal event the stream was cut short.
    pub(super) fn response(self, provider: Vendor, always: bool) -> Result<Value> {
        let Some(mut response) = self.last else {
            return Err(incomplete(provider, "response.completed", self.events));
        };
        let output_empty = response
            .get("output")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        if output_empty && (always || !self.items.is_empty()) {
            if let Value::Object(obj) = &mut response {
                obj.insert("output".into(), self.items.into_values().collect());
            }
        }
        Ok(response)
    }
}

/// A `response.output_text.delta` event's piece of text, when it has one.
pub(super) fn text_delta(v: &Value, out: &mut Vec<Delta>) {
    if let Some(piece) = v.get("delta").and_then(Value::as_str) {
        if !piece.is_empty() {
            out.push(Delta::Text(piece.to_string()));
        }
    }
}

/// A Responses body as the events OpenAI streams for it, each framed with its name
/// and numbered in order (`sequence_number`).
pub(super) fn render(v: &Value) -> Vec<String> {
    events(v)
        .iter()
        .map(|data| {
            let name = data
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("message");
            frame(Some(name), data)
        })
        .collect()
}

/// The events of `render`, unframed (xAI's stream has the same events, sent as
/// data only).
pub(super) fn events(v: &Value) -> Vec<Value> {
    let mut start = v.as_object().cloned().unwrap_or_default();
    start.insert("status".into(), json!("in_progress"));
    start.insert("output".into(), json!([]));
    start.insert("usage".into(), Value::Null);
    start.insert("incomplete_details".into(), Value::Null);
    start.insert("error".into(), Value::Null);
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
        Some("failed") => "response.failed",
        _ => "response.completed",
    };
    events.push(json!({"type": terminal, "response": v}));
    events
        .into_iter()
        .enumerate()
        .map(|(seq, data)| {
            let mut data = match data {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            data.insert("sequence_number".into(), json!(seq as u64));
            Value::Object(data)
        })
        .collect()
}

/// One output item's events before its `done`: it opened (in progress, without
/// what is yet to stream), then a message's parts, a search's phases or a
/// call's arguments in pieces.
fn item_events(i: usize, item: &Value) -> Vec<Value> {
    let id = item.get("id").cloned().unwrap_or(Value::Null);
    let at = |kind: &str| json!({"type": kind, "item_id": id, "output_index": i});
    let added = |item: &Value| json!({"type": "response.output_item.added", "output_index": i, "item": item});
    let mut opened = item.clone();
    if let Value::Object(o) = &mut opened {
        if o.contains_key("status") {
            o.insert("status".into(), json!("in_progress"));
        }
    }
    let mut events = Vec::new();
    match item.get("type").and_then(Value::as_str) {
        Some("message") => {
            opened["content"] = json!([]);
            events.push(added(&opened));
            let parts = item.get("content").and_then(Value::as_array);
            for (j, part) in parts.into_iter().flatten().enumerate() {
                events.extend(part_events(j, part, &at));
            }
        }
        Some("web_search_call") => {
            if let Value::Object(o) = &mut opened {
                o.remove("action");
            }
            events.push(added(&opened));
            for phase in ["in_progress", "searching", "completed"] {
                events.push(at(&format!("response.web_search_call.{phase}")));
            }
        }
        Some("function_call") => {
            opened["arguments"] = json!("");
            events.push(added(&opened));
            let args = item.get("arguments").and_then(Value::as_str).unwrap_or("");
            for piece in pieces(args) {
                let mut d = at("response.function_call_arguments.delta");
                d["delta"] = json!(piece);
                events.push(d);
            }
            let mut d = at("response.function_call_arguments.done");
            d["arguments"] = json!(args);
            events.push(d);
        }
        _ => events.push(added(item)),
    }
    events
}

/// One content part of a message (`j`th): added, an `output_text`'s text in
/// pieces, its annotations and its whole text, then done.
fn part_events(j: usize, part: &Value, at: &dyn Fn(&str) -> Value) -> Vec<Value> {
    let at = |kind: &str| {
        let mut e = at(kind);
        e["content_index"] = json!(j);
        e
    };
    let mut events = Vec::new();
    let mut e = at("response.content_part.added");
    if part.get("type").and_then(Value::as_str) == Some("output_text") {
        e["part"] = json!({"type": "output_text", "annotations": [], "text": ""});
        events.push(e);
        let text = part.get("text").and_then(Value::as_str).unwrap_or("");
        for piece in pieces(text) {
            let mut d = at("response.output_text.delta");
            d["delta"] = json!(piece);
            events.push(d);
        }
        let notes = part.get("annotations").and_then(Value::as_array);
        for (k, a) in notes.into_iter().flatten().enumerate() {
            let mut d = at("response.output_text.annotation.added");
            d["annotation_index"] = json!(k);
            d["annotation"] = a.clone();
            events.push(d);
        }
        let mut d = at("response.output_text.done");
        d["text"] = json!(text);
        events.push(d);
    } else {
        e["part"] = part.clone();
        events.push(e);
    }
    let mut d = at("response.content_part.done");
    d["part"] = part.clone();
    events.push(d);
    events
}
