//! One run as spans in the OpenTelemetry GenAI semantic conventions (v1.41, the
//! `gen_ai.*` names): `invoke_agent {agent}` per run, `chat {model}` (CLIENT) per
//! vendor request attempt, `execute_tool {name}` per local tool call. The live
//! observer and the backfill from the store both describe what happened as the
//! plain records below and hand them here, so both send the same spans; every
//! span gets explicit start and end times, which is what lets a stored run be
//! sent with its original timestamps.
//!
//! Content (answer text, search queries, cited text, tool arguments and results,
//! the goal) is put on a span only when `capture_content` is set; counts always
//! are. Costs have no `gen_ai.*` name: they go under `io_harness.cost.*`, with
//! `io_harness.cost.source` saying whether the figure is the vendor's own.

use std::time::SystemTime;

use opentelemetry::trace::{Span, SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};
use serde_json::json;

use crate::core::completion::{Citation, ToolCall, Usage};
use crate::core::event::Cost;
use crate::core::id::RunId;
use crate::core::outcome::Outcome;
use crate::core::vendor::Vendor;

/// The conventions followed.
pub const SEMCONV_VERSION: &str = "1.41.0";

/// What every span builder needs besides its record.
#[derive(Clone)]
pub struct Shape {
    /// The tracer spans are started on.
    pub tracer: opentelemetry_sdk::trace::SdkTracer,
    /// Put content on spans.
    pub capture_content: bool,
    /// `server.address` and `server.port` of the vendor, credentials removed.
    pub server: Option<(String, u16)>,
}

/// A base URL's host and port (`server.address`, `server.port`); `None` when it
/// names neither.
pub fn server_of(base_url: &str) -> Option<(String, u16)> {
    let u = url::Url::parse(base_url).ok()?;
    Some((u.host_str()?.to_string(), u.port_or_known_default()?))
}

/// A run's start.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentStart {
    /// The run.
    pub run_id: RunId,
    /// `gen_ai.agent.name`: `io-harness` for a root, the roster name for a child.
    pub agent: String,
    /// The goal (content).
    pub goal: String,
    /// The vendor.
    pub provider: Vendor,
    /// The model asked for.
    pub model: String,
    /// Its web declaration as JSON (a child's: its parent's narrowed by its
    /// own table), on the span as `io_harness.web`; `None` when it has none.
    pub web: Option<String>,
    /// When it started.
    pub at: SystemTime,
}

/// One provider-executed search or fetch, as the answer reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerCall {
    /// `web_search`, `web_fetch`.
    pub tool: String,
    /// The vendor's error code when it failed.
    pub error: Option<String>,
    /// Its query or URL (content).
    pub input: Option<String>,
}

/// One attempt at one vendor request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    /// The step it belongs to.
    pub step: u32,
    /// 1 for the first attempt; a retry is a request of its own.
    pub attempt: u32,
    /// The vendor.
    pub provider: Vendor,
    /// The model asked for.
    pub request_model: String,
    /// The model that answered.
    pub response_model: Option<String>,
    /// Sent.
    pub start: Option<SystemTime>,
    /// Answered or failed.
    pub end: Option<SystemTime>,
    /// `server.address` and `server.port` this request went to, where known
    /// apart from the shape's (a stored request's own endpoint).
    pub server: Option<(String, u16)>,
    /// `gen_ai.response.id`.
    pub response_id: Option<String>,
    /// The stop reason, when it answered.
    pub finish_reason: Option<String>,
    /// Its counts.
    pub usage: Option<Usage>,
    /// Its cost, when priced.
    pub cost: Option<Cost>,
    /// `error.type` and what went wrong, when it failed.
    pub error: Option<(String, String)>,
    /// The searches and fetches the vendor ran.
    pub server_calls: Vec<ServerCall>,
    /// The sources the answer cited (content).
    pub citations: Vec<Citation>,
    /// The answer text (content).
    pub text: String,
    /// The local tools it asked for.
    pub tool_calls: Vec<ToolCall>,
}

/// One local tool call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolRun {
    /// The tool.
    pub name: String,
    /// The vendor's id for the call, when known.
    pub call_id: Option<String>,
    /// Whether it succeeded.
    pub ok: bool,
    /// Its arguments (content).
    pub input: String,
    /// Its result or error (content).
    pub output: String,
}

fn text(s: impl Into<String>) -> Value {
    Value::String(StringValue::from(s.into()))
}

fn int(n: u64) -> Value {
    Value::I64(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The GenAI conventions' name for a vendor (the registry's `gcp.gemini` for
/// Google's Gemini API, `x_ai` for xAI, `perplexity`); the others are named as
/// this crate names them.
pub fn provider_name(vendor: Vendor) -> &'static str {
    match vendor {
        Vendor::Gemini => "gcp.gemini",
        Vendor::Xai => "x_ai",
        other => other.as_str(),
    }
}

fn kv(key: &'static str, value: Value) -> KeyValue {
    KeyValue::new(key, value)
}

/// Start a run's `invoke_agent` span under `parent` (a root under an empty
/// context); the context returned carries it, for its children and its end.
pub fn start_agent(shape: &Shape, parent: &Context, a: &AgentStart) -> Context {
    let mut attrs = vec![
        kv("gen_ai.operation.name", text("invoke_agent")),
        kv("gen_ai.provider.name", text(provider_name(a.provider))),
        kv("gen_ai.agent.name", text(a.agent.clone())),
        kv("gen_ai.agent.id", text(format!("run-{}", a.run_id))),
        kv("gen_ai.request.model", text(a.model.clone())),
        kv("io_harness.run_id", Value::I64(a.run_id.0)),
    ];
    if let Some(web) = &a.web {
        attrs.push(kv("io_harness.web", text(web.clone())));
    }
    if shape.capture_content {
        let messages = json!([{"role": "user", "parts": [{"type": "text", "content": a.goal}]}]);
        attrs.push(kv("gen_ai.input.messages", text(messages.to_string())));
    }
    let span = shape
        .tracer
        .span_builder(format!("invoke_agent {}", a.agent))
        .with_kind(SpanKind::Internal)
        .with_start_time(a.at)
        .with_attributes(attrs)
        .start_with_context(&shape.tracer, parent);
    parent.with_span(span)
}

/// End a run's span with its outcome (`passed`, `failed`, …; `unfinished` for a
/// run that never recorded one) and, for a run that ended in error,
/// `error.type` and the message.
pub fn end_agent(cx: &Context, outcome: Option<Outcome>, error: Option<&str>, at: SystemTime) {
    let outcome = outcome.map_or("unfinished", Outcome::as_str);
    let span = cx.span();
    span.set_attribute(kv("io_harness.outcome", text(outcome)));
    if let Some(message) = error {
        span.set_attribute(kv("error.type", text(outcome)));
        span.set_status(Status::error(message.to_string()));
    }
    span.end_with_timestamp(at);
}

/// Send one request attempt as a finished `chat {model}` span under its run.
pub fn request(shape: &Shape, parent: &Context, r: &Request) {
    let start = r.start.or(r.end).unwrap_or_else(SystemTime::now);
    let end = r.end.unwrap_or(start);
    let mut attrs = vec![
        kv("gen_ai.operation.name", text("chat")),
        kv("gen_ai.provider.name", text(provider_name(r.provider))),
        kv("gen_ai.request.model", text(r.request_model.clone())),
        kv("io_harness.step", int(r.step.into())),
        kv("io_harness.attempt", int(r.attempt.into())),
    ];
    if r.attempt > 1 {
        attrs.push(kv("http.request.resend_count", int((r.attempt - 1).into())));
    }
    if let Some((host, port)) = r.server.as_ref().or(shape.server.as_ref()) {
        attrs.push(kv("server.address", text(host.clone())));
        attrs.push(kv("server.port", int((*port).into())));
    }
    if let Some(m) = &r.response_model {
        attrs.push(kv("gen_ai.response.model", text(m.clone())));
    }
    if let Some(id) = &r.response_id {
        attrs.push(kv("gen_ai.response.id", text(id.clone())));
    }
    if let Some(f) = &r.finish_reason {
        let reasons = Array::String(vec![StringValue::from(f.clone())]);
        attrs.push(kv("gen_ai.response.finish_reasons", Value::Array(reasons)));
    }
    if let Some(u) = r.usage {
        attrs.extend(usage(&u));
    }
    attrs.extend(server_counts(r));
    if let Some(c) = &r.cost {
        attrs.extend(cost(c));
    }
    if let Some((kind, _)) = &r.error {
        attrs.push(kv("error.type", text(kind.clone())));
    }
    if shape.capture_content && r.error.is_none() {
        attrs.push(kv("gen_ai.output.messages", text(output_messages(r))));
    }
    let mut span = shape
        .tracer
        .span_builder(format!("chat {}", r.request_model))
        .with_kind(SpanKind::Client)
        .with_start_time(start)
        .with_attributes(attrs)
        .start_with_context(&shape.tracer, parent);
    if let Some((_, message)) = &r.error {
        span.set_status(Status::error(message.clone()));
    }
    span.end_with_timestamp(end);
}

/// Input counts the conventions' way: `gen_ai.usage.input_tokens` includes the
/// cached tokens (read and written), which are also given on their own.
fn usage(u: &Usage) -> Vec<KeyValue> {
    vec![
        kv("gen_ai.usage.input_tokens", int(u.all_input_tokens())),
        kv("gen_ai.usage.output_tokens", int(u.output_tokens)),
        kv(
            "gen_ai.usage.cache_read.input_tokens",
            int(u.cache_read_tokens),
        ),
        kv(
            "gen_ai.usage.cache_creation.input_tokens",
            int(u.cache_write_tokens),
        ),
        kv(
            "io_harness.usage.server_tool_requests",
            int(u.server_tool_requests),
        ),
    ]
}

/// The searches and fetches the vendor ran, as counts (never content).
fn server_counts(r: &Request) -> Vec<KeyValue> {
    let count = |f: &dyn Fn(&ServerCall) -> bool| r.server_calls.iter().filter(|c| f(c)).count();
    let searches = count(&|c| c.tool.contains("search"));
    let fetches = count(&|c| c.tool.contains("fetch"));
    let failed = count(&|c| c.error.is_some());
    vec![
        kv(
            "io_harness.server_tool.calls",
            int(r.server_calls.len() as u64),
        ),
        kv("io_harness.server_tool.searches", int(searches as u64)),
        kv("io_harness.server_tool.fetches", int(fetches as u64)),
        kv("io_harness.server_tool.failed", int(failed as u64)),
        kv("io_harness.citations", int(r.citations.len() as u64)),
    ]
}

fn dollars(micro: u64) -> Value {
    Value::F64(micro as f64 / 1e6)
}

/// `io_harness.cost.*`: the total, its parts, and whose figure it is.
fn cost(c: &Cost) -> Vec<KeyValue> {
    let mut out = Vec::new();
    let source = if c.vendor_micro_usd.is_some() {
        "vendor"
    } else {
        "price_table"
    };
    out.push(kv("io_harness.cost.source", text(source)));
    for (key, v) in [
        ("io_harness.cost.usd", c.total_micro_usd),
        ("io_harness.cost.tokens_usd", c.tokens_micro_usd),
        ("io_harness.cost.cache_usd", c.cache_micro_usd),
        ("io_harness.cost.fees_usd", c.fees_micro_usd),
    ] {
        if let Some(m) = v {
            out.push(kv(key, dollars(m)));
        }
    }
    if c.fees_counted_here {
        out.push(kv("io_harness.cost.fees_counted_here", Value::Bool(true)));
    }
    if let Some(why) = &c.unpriced {
        out.push(kv("io_harness.cost.unpriced", text(why.clone())));
    }
    out
}

/// The answer as one assistant message: each search or fetch as a
/// `server_tool_call` part and its `server_tool_call_response` (with the sources
/// cited), the text, and the local tool calls.
fn output_messages(r: &Request) -> String {
    let mut parts = Vec::new();
    for (i, c) in r.server_calls.iter().enumerate() {
        let id = format!("server-{}-{i}", r.step);
        let key = if c.tool.contains("fetch") {
            "url"
        } else {
            "query"
        };
        parts.push(json!({
            "type": "server_tool_call", "id": id, "name": c.tool,
            "server_tool_call": {"type": c.tool, key: c.input},
        }));
        let mut response = json!({"type": c.tool, "ok": c.error.is_none()});
        if let Some(code) = &c.error {
            response["error"] = json!(code);
        }
        parts.push(json!({
            "type": "server_tool_call_response", "id": id,
            "server_tool_call_response": response,
        }));
    }
    if !r.citations.is_empty() {
        let sources: Vec<_> = r
            .citations
            .iter()
            .map(|c| json!({"url": c.url, "title": c.title, "cited_text": c.cited_text}))
            .collect();
        parts.push(json!({"type": "io_harness.citations", "content": sources}));
    }
    if !r.text.is_empty() {
        parts.push(json!({"type": "text", "content": r.text}));
    }
    for call in &r.tool_calls {
        parts.push(json!({
            "type": "tool_call", "id": call.id, "name": call.name, "arguments": call.input,
        }));
    }
    let message = json!([{
        "role": "assistant",
        "parts": parts,
        "finish_reason": r.finish_reason.clone().unwrap_or_default(),
    }]);
    message.to_string()
}

/// Start an `execute_tool {name}` span (for a tool whose end comes later, such as
/// `spawn_agent`, whose child run nests under it).
pub fn start_tool(shape: &Shape, parent: &Context, name: &str, at: SystemTime) -> Context {
    let span = shape
        .tracer
        .span_builder(format!("execute_tool {name}"))
        .with_kind(SpanKind::Internal)
        .with_start_time(at)
        .with_attributes(vec![
            kv("gen_ai.operation.name", text("execute_tool")),
            kv("gen_ai.tool.name", text(name.to_string())),
            kv("gen_ai.tool.type", text("function")),
        ])
        .start_with_context(&shape.tracer, parent);
    parent.with_span(span)
}

/// End a tool span with what the call was and how it went.
pub fn end_tool(shape: &Shape, cx: &Context, t: &ToolRun, at: SystemTime) {
    let span = cx.span();
    if let Some(id) = &t.call_id {
        span.set_attribute(kv("gen_ai.tool.call.id", text(id.clone())));
    }
    if shape.capture_content {
        span.set_attribute(kv("gen_ai.tool.call.arguments", text(t.input.clone())));
        span.set_attribute(kv("gen_ai.tool.call.result", text(t.output.clone())));
    }
    if !t.ok {
        span.set_attribute(kv("error.type", text("tool_error")));
        // The result says why; it is content, so only a fixed text otherwise.
        let why = if shape.capture_content {
            t.output.clone()
        } else {
            "the tool failed or was refused".into()
        };
        span.set_status(Status::error(why));
    }
    span.end_with_timestamp(at);
}

/// A finished tool call as one span.
pub fn tool(shape: &Shape, parent: &Context, t: &ToolRun, start: SystemTime, end: SystemTime) {
    let cx = start_tool(shape, parent, &t.name, start);
    end_tool(shape, &cx, t, end);
}
