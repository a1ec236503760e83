//! Gemini, streamed (`:streamGenerateContent?alt=sse`): unnamed events, each a
//! whole `GenerateContentResponse` carrying the next piece of the first
//! candidate — text parts to join, a `functionCall` part whole — with the
//! `usageMetadata` so far; the grounding and `finishReason` come on the last
//! chunk, `urlContextMetadata` wherever Google puts it. Text is reported as it
//! arrives, a search as soon as its query appears, a call once its part does.
//! Citations are derived again from the grounding when its chunks or supports
//! change — once as many bytes have arrived since the last derivation as the
//! grounding holds, and on the first chunk with a `finishReason` — so a stream
//! that resends a piece of its grounding with every chunk costs linear time,
//! not a pass over the whole grounding per chunk.
//!
//! At the end the chunks are rebuilt into the one non-streamed body they add up
//! to and `gemini::decode_value` reads it, so the streamed and the non-streamed
//! paths cannot drift apart. A stream that ends without a `finishReason` (or a
//! blocked prompt's `blockReason`) is incomplete: a retryable transport error,
//! never a completion. An error chunk ends the attempt as the vendor error.
//! `render` is the inverse, for the stub vendor: a whole body as the chunks
//! Google would stream, its support segments measured in the streamed text as
//! Google's are (a body in several parts claims the same sentences either way).
//! Pure: no I/O, no clock.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::frame::{frame, pieces};
use super::{Delta, WireAssembler, bad_event, incomplete};
use crate::core::completion::Completion;
use crate::core::error::Result;
use crate::core::turn::WireResponse;
use crate::core::wire::gemini::{PROVIDER, decode_value, fetches, function_call};
use crate::core::wire::gemini_grounding::{citations, searches};

/// The top-level keys of a chunk kept for the rebuilt body (the last one wins).
const TOP: [&str; 4] = [
    "usageMetadata",
    "modelVersion",
    "responseId",
    "promptFeedback",
];

/// The Gemini assembler.
pub(super) struct Gemini {
    head: WireResponse,
    /// The candidate's parts so far, text pieces joined.
    parts: Vec<Value>,
    /// The candidate's other fields (`finishReason`, `index`, `safetyRatings`,
    /// the merged `groundingMetadata`, `urlContextMetadata`, …).
    candidate: Map<String, Value>,
    /// Whether any chunk carried a candidate at all.
    had_candidate: bool,
    top: Map<String, Value>,
    /// Calls, searches, fetches and citations reported so far (not again).
    calls: usize,
    queries: HashSet<String>,
    urls: usize,
    cited: usize,
    /// The citations no longer match the grounding; what deriving them costs
    /// (the bytes of the events that last set its chunks and its supports);
    /// the bytes since they were last derived; whether a `finishReason` has
    /// been seen (the first one derives them whatever the bytes).
    stale: bool,
    chunks_cost: usize,
    supports_cost: usize,
    since: usize,
    finished: bool,
    /// The bytes of the event being read.
    event_bytes: usize,
    output_tokens: Option<u64>,
    events: u64,
}

impl Gemini {
    pub(super) fn new(head: WireResponse) -> Self {
        Gemini {
            head,
            parts: Vec::new(),
            candidate: Map::new(),
            had_candidate: false,
            top: Map::new(),
            calls: 0,
            queries: HashSet::new(),
            urls: 0,
            cited: 0,
            stale: false,
            chunks_cost: 0,
            supports_cost: 0,
            since: 0,
            finished: false,
            event_bytes: 0,
            output_tokens: None,
            events: 0,
        }
    }

    /// One part of a chunk: reported, then joined to the parts so far (moved
    /// in, not copied).
    fn part(&mut self, part: Value, out: &mut Vec<Delta>) {
        let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
        let text = part.get("text").and_then(Value::as_str);
        if let Some(t) = text.filter(|t| !thought && !t.is_empty()) {
            out.push(Delta::Text(t.to_string()));
        }
        if let Some(call) = part.get("functionCall") {
            out.extend(function_call(call, self.calls).map(Delta::ToolCallRequested));
            self.calls += 1;
        }
        let Some(text) = text else {
            self.parts.push(part);
            return;
        };
        if let Some(last) = self.parts.last_mut().filter(|last| joins(last, &part)) {
            if let Some(Value::String(joined)) = last.get_mut("text") {
                joined.push_str(text);
            }
            if let Some(sig) = part.get("thoughtSignature") {
                last["thoughtSignature"] = sig.clone();
            }
            return;
        }
        // An empty piece with nothing else (the usual last chunk) adds no part.
        if !(text.is_empty() && part.get("thoughtSignature").is_none()) {
            self.parts.push(part);
        }
    }

    /// The grounding of a chunk merged into what came before: each field it
    /// carries non-empty replaces the earlier one (the intermediate chunks carry
    /// `groundingMetadata: {}`); new queries are reported, and the citations
    /// marked for deriving again when the chunks or supports changed.
    fn grounding(&mut self, g: Value, out: &mut Vec<Delta>) {
        let Value::Object(fields) = g else { return };
        // The intermediate chunks' `{}` changes nothing and reports nothing.
        if fields.values().all(empty) {
            return;
        }
        let merged = self
            .candidate
            .entry("groundingMetadata")
            .or_insert_with(|| json!({}));
        let mut queries = false;
        for (k, v) in fields.into_iter().filter(|(_, v)| !empty(v)) {
            match k.as_str() {
                "webSearchQueries" => queries = true,
                "groundingChunks" => {
                    self.chunks_cost = self.event_bytes;
                    self.stale = true;
                }
                "groundingSupports" => {
                    self.supports_cost = self.event_bytes;
                    self.stale = true;
                }
                _ => {}
            }
            merged[k] = v;
        }
        if !queries {
            return;
        }
        // This event's own list (a field replaces the earlier one whole).
        let (calls, _) = searches(merged);
        for call in calls {
            let query = call.input.unwrap_or_default();
            if self.queries.insert(query.clone()) {
                out.push(Delta::ServerToolStarted {
                    id: String::new(),
                    tool: call.tool,
                    input: Some(query),
                });
            }
        }
    }

    /// Report the citations not reported yet, deriving them again when the
    /// grounding changed and enough bytes have come since the last time (or a
    /// `finishReason` came for the first time).
    fn cite(&mut self, finishing: bool, out: &mut Vec<Delta>) {
        self.since = self.since.saturating_add(self.event_bytes);
        let first_finish = finishing && !self.finished;
        self.finished |= finishing;
        let cost = self.chunks_cost.saturating_add(self.supports_cost);
        if !self.stale || !(first_finish || self.since >= cost) {
            return;
        }
        self.stale = false;
        self.since = 0;
        let Some(merged) = self.candidate.get("groundingMetadata") else {
            return;
        };
        let (cites, _) = citations(merged);
        out.extend(cites.iter().skip(self.cited).cloned().map(Delta::Citation));
        self.cited = self.cited.max(cites.len());
    }

    /// Fetched URLs: each reported as started and returned at once (Google says
    /// both in one field).
    fn url_context(&mut self, u: &Value, out: &mut Vec<Delta>) {
        if empty(u) {
            return;
        }
        self.candidate
            .insert("urlContextMetadata".into(), u.clone());
        let calls = fetches(u);
        for call in calls.iter().skip(self.urls) {
            out.push(Delta::ServerToolStarted {
                id: String::new(),
                tool: call.tool.clone(),
                input: call.input.clone(),
            });
            out.push(Delta::ServerToolReturned {
                id: String::new(),
                call: call.clone(),
            });
        }
        self.urls = self.urls.max(calls.len());
    }

    fn candidate(&mut self, c: Value, out: &mut Vec<Delta>) {
        self.had_candidate = true;
        let Value::Object(fields) = c else { return };
        for (k, mut v) in fields {
            match k.as_str() {
                "content" => {
                    if let Some(Value::Array(parts)) = v.get_mut("parts").map(Value::take) {
                        for part in parts {
                            self.part(part, out);
                        }
                    }
                }
                "groundingMetadata" => self.grounding(v, out),
                "urlContextMetadata" => self.url_context(&v, out),
                _ => {
                    self.candidate.insert(k, v);
                }
            }
        }
    }

    /// The one body the chunks add up to.
    fn body(self) -> Value {
        let mut body = Map::new();
        if self.had_candidate {
            // Built by moving the parts in: `json!` would copy them through serde.
            let mut content = Map::new();
            content.insert("parts".into(), Value::Array(self.parts));
            content.insert("role".into(), Value::from("model"));
            let mut candidate = Map::new();
            candidate.insert("content".into(), Value::Object(content));
            candidate.extend(self.candidate);
            body.insert(
                "candidates".into(),
                Value::Array(vec![Value::Object(candidate)]),
            );
        }
        body.extend(self.top);
        Value::Object(body)
    }
}

/// Whether a text piece continues the last part: both text of the same kind
/// (thought or answer), the piece carrying nothing else, and not both signed
/// (a second signature starts a part of its own).
fn joins(last: &Value, piece: &Value) -> bool {
    let text_only = |p: &Value| {
        p.as_object().is_some_and(|o| {
            o.contains_key("text")
                && o.keys()
                    .all(|k| matches!(k.as_str(), "text" | "thought" | "thoughtSignature"))
        })
    };
    let thought = |p: &Value| p.get("thought").and_then(Value::as_bool) == Some(true);
    let signed = |p: &Value| p.get("thoughtSignature").is_some();
    text_only(last)
        && text_only(piece)
        && thought(last) == thought(piece)
        && !(signed(last) && signed(piece))
}

/// `null`, `{}`, `[]` or `""`: a field a chunk carries without saying anything.
fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

impl WireAssembler for Gemini {
    fn event(&mut self, _name: Option<&str>, data: &str, out: &mut Vec<Delta>) -> Result<()> {
        self.events += 1;
        self.event_bytes = data.len();
        let mut v: Value = serde_json::from_str(data).map_err(|e| bad_event(PROVIDER, data, &e))?;
        if v.get("error").is_some_and(Value::is_object) {
            // The vendor error of its code, now (the decoder makes it).
            return decode_value(&self.head, &v).map(|_| ());
        }
        // The chunk's pieces are moved into the rebuilt body, not copied.
        let mut finishing = false;
        if let Some(c) = v
            .get_mut("candidates")
            .and_then(Value::as_array_mut)
            .and_then(|c| c.first_mut())
        {
            let c = c.take();
            finishing = c.get("finishReason").is_some_and(|r| !r.is_null());
            self.candidate(c, out);
        }
        self.cite(finishing, out);
        for key in TOP {
            if let Some(val) = v.get(key).filter(|v| !v.is_null()) {
                self.top.insert(key.to_string(), val.clone());
            }
        }
        let usage = v.get("usageMetadata");
        let count = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
        let (answer, thoughts) = (count("candidatesTokenCount"), count("thoughtsTokenCount"));
        if answer.is_some() || thoughts.is_some() {
            // Thinking is billed as output, as the decoder counts it.
            let n = answer.unwrap_or(0).saturating_add(thoughts.unwrap_or(0));
            if self.output_tokens != Some(n) {
                self.output_tokens = Some(n);
                out.push(Delta::OutputTokens(n));
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Completion> {
        let finished = self.candidate.contains_key("finishReason")
            || self
                .top
                .get("promptFeedback")
                .is_some_and(|f| f.get("blockReason").is_some());
        if !finished {
            return Err(incomplete(PROVIDER, "a finishReason", self.events));
        }
        let head = self.head.clone();
        decode_value(&head, &self.body())
    }
}

/// A whole `generateContent` body as the chunks Google would stream: the search
/// queries first (a search shows as it starts), each text part in small pieces
/// and every other part whole, then a last chunk with the finish reason, the
/// whole grounding, the URL context and the usage. A body with no candidate (a
/// blocked prompt) is one chunk as it is.
pub(crate) fn render(v: &Value) -> Vec<String> {
    let Some(candidate) = v.pointer("/candidates/0").and_then(Value::as_object) else {
        return vec![frame(None, v)];
    };
    let chunk = |mut c: Map<String, Value>, last: bool| {
        c.insert("index".into(), json!(0));
        let mut top = Map::new();
        top.insert("candidates".into(), json!([c]));
        if last {
            for key in TOP {
                if let Some(x) = v.get(key) {
                    top.insert(key.into(), x.clone());
                }
            }
        }
        frame(None, &Value::Object(top))
    };
    let with_parts = |parts: Vec<Value>| {
        let mut c = Map::new();
        c.insert("content".into(), json!({"role": "model", "parts": parts}));
        c
    };
    let mut out = Vec::new();
    if let Some(q) = candidate
        .get("groundingMetadata")
        .and_then(|g| g.get("webSearchQueries"))
        .filter(|q| !empty(q))
    {
        let mut c = with_parts(Vec::new());
        c.insert("groundingMetadata".into(), json!({"webSearchQueries": q}));
        out.push(chunk(c, false));
    }
    let parts = candidate
        .get("content")
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // Each piece with the index of the part it is cut from.
    let mut cut: Vec<(usize, Value)> = Vec::new();
    for (at, part) in parts.iter().enumerate() {
        match part
            .get("text")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            Some(text) => {
                let texts = pieces(text);
                let n = texts.len();
                for (i, piece) in texts.into_iter().enumerate() {
                    let mut p = part.clone();
                    p["text"] = json!(piece);
                    // A signature goes with the part's last piece, as Google sends it.
                    if i + 1 < n {
                        if let Some(o) = p.as_object_mut() {
                            o.remove("thoughtSignature");
                        }
                    }
                    cut.push((at, p));
                }
            }
            None => cut.push((at, part.clone())),
        }
    }
    let landed = landings(&cut, parts.len());
    out.extend(
        cut.into_iter()
            .map(|(_, p)| chunk(with_parts(vec![p]), false)),
    );
    let mut last = with_parts(vec![json!({"text": ""})]);
    for (k, x) in candidate.iter().filter(|(k, _)| k.as_str() != "content") {
        last.insert(k.clone(), x.clone());
    }
    if let Some(g) = last.get_mut("groundingMetadata") {
        restate_segments(g, &landed);
    }
    out.push(chunk(last, true));
    out
}

/// Where each of a body's parts lands among the parts the assembler rebuilds
/// from `cut` (its pieces, each with the index of the part it is cut from): the
/// rebuilt part and the bytes of its text before the part's first piece. Found
/// by the assembler itself, so it cannot disagree with it.
fn landings(cut: &[(usize, Value)], parts: usize) -> Vec<(usize, usize)> {
    let mut rebuilt = Gemini::new(WireResponse::default());
    let mut landed: Vec<Option<(usize, usize)>> = vec![None; parts];
    let mut sink = Vec::new();
    let text_len = |p: Option<&Value>| {
        p.and_then(|p| p.get("text"))
            .and_then(Value::as_str)
            .map_or(0, str::len)
    };
    for (at, piece) in cut {
        rebuilt.part(piece.clone(), &mut sink);
        if let Some(slot) = landed.get_mut(*at).filter(|s| s.is_none()) {
            let own = text_len(Some(piece));
            let before = text_len(rebuilt.parts.last()).saturating_sub(own);
            *slot = Some((rebuilt.parts.len().saturating_sub(1), before));
        }
    }
    landed
        .into_iter()
        .enumerate()
        .map(|(at, l)| l.unwrap_or((at, 0)))
        .collect()
}

/// A whole body's support segments restated as a stream's: Google measures a
/// streamed answer's segments in the text the chunks add up to (its recorded
/// streams carry no `partIndex`, and their offsets run over the joined text,
/// tests/fixtures/gemini/search_stream.sse), so a segment of part `i` becomes
/// one of the part the assembler joins it into, shifted by the text before it
/// there. Without this a body in several parts streamed would claim other
/// sentences than the same body whole.
fn restate_segments(g: &mut Value, landed: &[(usize, usize)]) {
    let supports = g.get_mut("groundingSupports").and_then(Value::as_array_mut);
    for segment in supports
        .into_iter()
        .flatten()
        .filter_map(|s| s.get_mut("segment").and_then(Value::as_object_mut))
    {
        let index = |k: &str, s: &Map<String, Value>| {
            s.get(k)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
        };
        let part = index("partIndex", segment).unwrap_or(0);
        let Some(&(to, shift)) = landed.get(part) else {
            continue;
        };
        if (to, shift) == (part, 0) {
            continue;
        }
        for k in ["startIndex", "endIndex"] {
            let n = index(k, segment).unwrap_or(0);
            if segment.contains_key(k) || shift > 0 {
                segment.insert(k.into(), json!(n + shift));
            }
        }
        if to == 0 {
            segment.remove("partIndex");
        } else {
            segment.insert("partIndex".into(), json!(to));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_join_unless_kinds_differ_or_both_are_signed() {
        let t = json!({"text": "a"});
        let signed = json!({"text": "b", "thoughtSignature": "s"});
        let thought = json!({"text": "c", "thought": true});
        assert!(joins(&t, &signed) && joins(&signed, &t));
        assert!(!joins(&signed, &signed) && !joins(&t, &thought));
        assert!(!joins(&json!({"functionCall": {"name": "f"}}), &t));
    }
}
