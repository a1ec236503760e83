//! Sonar on Chat Completions, streamed (recorded 2025-04 byte for byte, and in
//! 2026): `chat.completion.chunk`s (`chat.completion` in 2025) whose choice
//! carries `delta.content` (in 2025 a `message` beside it, holding the same
//! piece), each chunk also carrying the running `usage` and the `citations` (and
//! `search_results`) so far; the last chunk (`chat.completion.done` in 2026)
//! has the `finish_reason` and the final usage and cost. Events may end in
//! `\r\n`, and a `: ping` comment line is an SSE comment the framing drops.
//!
//! The running usage is read once, at the end: the last chunk's (in a recorded
//! stream the earlier chunks priced the request at zero). The stream is
//! complete on a `finish_reason` (a `[DONE]`, where one comes, is read and not
//! needed); the first choice is rebuilt as a non-streamed body and read by the
//! wire's own decoder. `render` is the inverse, for the stub vendor.

use serde_json::{Map, Value, json};

use super::frame::pieces;
use super::{Delta, WireAssembler, bad_event, incomplete};
use crate::core::completion::Completion;
use crate::core::error::Result;
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::wire::perplexity_sonar::decode_value;

const PROVIDER: Vendor = Vendor::Perplexity;

/// The keys of a chunk read apart from its top-level fields.
const APART: [&str; 5] = ["choices", "usage", "object", "citations", "search_results"];

/// The Sonar assembler.
pub(super) struct Sonar {
    head: WireResponse,
    /// Top-level fields of the last chunk that had them (`id`, `model`, …).
    top: Map<String, Value>,
    content: String,
    finish_reason: Option<Value>,
    /// The last chunk's usage, citations and search results: each chunk
    /// carries them whole so far.
    usage: Option<Value>,
    citations: Option<Value>,
    search_results: Option<Value>,
    events: u64,
}

impl Sonar {
    pub(super) fn new(head: WireResponse) -> Self {
        Sonar {
            head,
            top: Map::new(),
            content: String::new(),
            finish_reason: None,
            usage: None,
            citations: None,
            search_results: None,
            events: 0,
        }
    }
}

impl WireAssembler for Sonar {
    fn event(&mut self, _name: Option<&str>, data: &str, out: &mut Vec<Delta>) -> Result<()> {
        self.events += 1;
        if data.trim() == "[DONE]" {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| bad_event(PROVIDER, data, &e))?;
        if v.get("error").is_some_and(Value::is_object) {
            decode_value(&self.head, &v)?;
        }
        // The chunk is this event's own: its parts are moved where they are
        // kept, not copied (each chunk repeats the citations and results).
        let Value::Object(mut top) = v else {
            return Ok(());
        };
        for (k, slot) in [
            ("usage", &mut self.usage),
            ("citations", &mut self.citations),
            ("search_results", &mut self.search_results),
        ] {
            if let Some(x) = top.remove(k).filter(|x| !x.is_null()) {
                *slot = Some(x);
            }
        }
        let choices = top.remove("choices");
        for (k, value) in top {
            if !APART.contains(&k.as_str()) && !value.is_null() {
                self.top.insert(k, value);
            }
        }
        let choice = match choices {
            Some(Value::Array(list)) => list
                .into_iter()
                .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
                .unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let piece = choice
            .get("delta")
            .or_else(|| choice.get("message"))
            .and_then(|d| d.get("content"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !piece.is_empty() {
            self.content.push_str(piece);
            out.push(Delta::Text(piece.to_string()));
        }
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
            // The usage is final now: said once.
            if let Some(n) = self
                .usage
                .as_ref()
                .and_then(|u| u.get("completion_tokens"))
                .and_then(Value::as_u64)
            {
                out.push(Delta::OutputTokens(n));
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Completion> {
        let Some(reason) = self.finish_reason else {
            return Err(incomplete(PROVIDER, "a finish_reason", self.events));
        };
        let mut body = self.top;
        body.insert("object".into(), json!("chat.completion"));
        body.insert(
            "choices".into(),
            json!([{"index": 0, "finish_reason": reason,
                    "message": {"role": "assistant", "content": self.content}}]),
        );
        for (k, v) in [
            ("usage", self.usage),
            ("citations", self.citations),
            ("search_results", self.search_results),
        ] {
            if let Some(v) = v {
                body.insert(k.into(), v);
            }
        }
        decode_value(&self.head, &Value::Object(body))
    }
}

/// A Sonar body as Perplexity streams it: its text in pieces, each chunk with
/// the citations and search results and a running usage priced at zero; a
/// `: ping` comment after the first; the last chunk `chat.completion.done` with
/// the finish reason and the real usage. (The recorded CRLF line ends are
/// assembled in the tests from the recorded bytes.)
pub(super) fn render(v: &Value) -> Vec<String> {
    let mut top = v.as_object().cloned().unwrap_or_default();
    top.remove("choices");
    let usage = top.remove("usage");
    let running = usage.clone().map(|mut u| {
        if let Some(cost) = u.get_mut("cost").and_then(Value::as_object_mut) {
            cost.remove("request_cost");
            for c in cost.values_mut() {
                *c = json!(0);
            }
        }
        u
    });
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .cloned()
        .unwrap_or(Value::Null);
    let text = choice
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let chunk = |object: &str, usage: &Option<Value>, choice: Value| {
        let mut c = top.clone();
        c.insert("object".into(), json!(object));
        if let Some(u) = usage {
            c.insert("usage".into(), u.clone());
        }
        c.insert("choices".into(), json!([choice]));
        format!("data: {}\n\n", Value::Object(c))
    };
    let mut out = Vec::new();
    for (i, piece) in pieces(text).into_iter().enumerate() {
        out.push(chunk(
            "chat.completion.chunk",
            &running,
            json!({"index": 0, "delta": {"role": "assistant", "content": piece}, "finish_reason": null}),
        ));
        if i == 0 {
            out.push(": ping\n\n".to_string());
        }
    }
    let reason = choice
        .get("finish_reason")
        .cloned()
        .unwrap_or(json!("stop"));
    out.push(chunk(
        "chat.completion.done",
        &usage,
        json!({"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": reason}),
    ));
    out
}
