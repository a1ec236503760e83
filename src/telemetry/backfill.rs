//! Stored runs as traces, with their original timestamps (`io-harness export
//! otlp`): each run read back from the store into the records `spans` sends,
//! children nested under their parent's `spawn_agent` call.
//!
//! What the store keeps decides what can be sent: a request's span ends when its
//! row was recorded and starts its latency earlier; retries within a request are
//! not stored, so a backfilled trace has one span per answered request; a local
//! tool call is read back from its observation (`[step N] name input: output`),
//! without its call id, and placed between its answer and the next request; a
//! child run's `spawn_agent` call spans the child. A request's endpoint, response
//! id and finish reason are the ones recorded with it (schema 10); a request an
//! older release recorded has none, and its span leaves those attributes out
//! rather than guess them.

use std::time::{Duration, SystemTime};

use opentelemetry::Context;

use super::spans::{self, AgentStart, Request, ServerCall, Shape, ToolRun};
use crate::core::error::{Error, Result};
use crate::core::id::RunId;
use crate::core::outcome::Outcome;
use crate::core::price::{PriceTable, Recorded};
use crate::store::Store;
use crate::store::types::{CitationRow, ProviderCallRow, RunRow, ServerToolCallRow};

/// An RFC 3339 time as the store writes it.
pub fn parse_time(text: &str) -> Option<SystemTime> {
    let t = chrono::DateTime::parse_from_rfc3339(text).ok()?;
    let ms = u64::try_from(t.timestamp_millis()).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(ms))
}

/// The runs to send: the ones named, else those started at or after `since`
/// (a date `YYYY-MM-DD` or an RFC 3339 time), each a root with its descendants
/// (a child whose parent is also chosen goes with the parent, not twice).
pub fn choose(store: &Store, ids: &[RunId], since: Option<&str>) -> Result<Vec<RunRow>> {
    let mut chosen = Vec::new();
    if ids.is_empty() {
        let since = since.unwrap_or("");
        let mut all = store.runs(None)?;
        all.retain(|r| r.started_at.as_str() >= since);
        all.reverse();
        chosen = all;
    } else {
        for id in ids {
            match store.run(*id)? {
                Some(r) => chosen.push(r),
                None => {
                    return Err(Error::refused(format!(
                        "there is no run {id} in the store; `io-harness runs` lists them. Nothing was sent."
                    )));
                }
            }
        }
    }
    let picked: Vec<RunId> = chosen.iter().map(|r| r.run_id).collect();
    chosen.retain(|r| r.parent_run_id.is_none_or(|p| !picked.contains(&p)));
    Ok(chosen)
}

/// Send one stored run (and its descendants) as a trace under `parent`
/// (an empty context for a root); the number of spans made. Each request names
/// the endpoint it was recorded going to, never the one `shape` names today: a
/// request recorded without one (by an older release) has no `server.address`.
pub fn send_run(
    shape: &Shape,
    store: &Store,
    prices: &PriceTable,
    run: &RunRow,
    agent: &str,
    parent: &Context,
) -> Result<usize> {
    let shape = &Shape {
        server: None,
        ..shape.clone()
    };
    let started = parse_time(&run.started_at).unwrap_or(SystemTime::UNIX_EPOCH);
    let cx = spans::start_agent(
        shape,
        parent,
        &AgentStart {
            run_id: run.run_id,
            agent: agent.to_string(),
            goal: run.goal.clone(),
            provider: run.provider,
            model: run.model.clone(),
            web: store.web_json(run.run_id)?,
            at: started,
        },
    );
    let mut count = 1;
    let calls = store.timed_calls(run.run_id)?;
    let servers = store.server_tool_calls(run.run_id)?;
    let citations = store.citations(run.run_id)?;
    let steps = store.steps(run.run_id)?;
    let mut children = store.children(run.run_id)?.into_iter();
    let finished = run
        .finished_at
        .as_deref()
        .and_then(parse_time)
        .unwrap_or(started);
    for (i, (call, at)) in calls.iter().enumerate() {
        let end = parse_time(at).unwrap_or(started);
        let start = end
            .checked_sub(Duration::from_millis(call.latency_ms))
            .unwrap_or(end);
        let step = steps.iter().find(|s| s.step == call.step);
        let request = Request {
            request_model: run.model.clone(),
            start: Some(start),
            end: Some(end),
            text: step.map(|s| s.text.clone()).unwrap_or_default(),
            ..request_of(call, &servers, &citations, prices)
        };
        spans::request(shape, &cx, &request);
        count += 1;
        // The step's tools fill the time up to the next request (or the run's end).
        let until = calls
            .get(i + 1)
            .and_then(|(c, at)| parse_time(at)?.checked_sub(Duration::from_millis(c.latency_ms)))
            .unwrap_or(finished)
            .max(end);
        let tools = step.map(|s| tools_of(&s.observations)).unwrap_or_default();
        let slot = until
            .duration_since(end)
            .unwrap_or_default()
            .checked_div(tools.len().max(1) as u32)
            .unwrap_or_default();
        for (j, t) in tools.iter().enumerate() {
            let t_start = end + slot * j as u32;
            let t_end = t_start + slot;
            if t.name == "spawn_agent" {
                if let Some(child) = children.next() {
                    count += send_child(shape, store, prices, t, &child, &cx)?;
                    continue;
                }
            }
            spans::tool(shape, &cx, t, t_start, t_end);
            count += 1;
        }
    }
    let error = (run.outcome == Some(Outcome::Error)).then(|| {
        run.outcome_detail
            .clone()
            .unwrap_or_else(|| "the run ended in error".into())
    });
    spans::end_agent(&cx, run.outcome, error.as_deref(), finished);
    Ok(count)
}

/// A stored request's record (its times and model asked for filled in by the
/// caller): its counts, cost, searches and sources.
fn request_of(
    call: &ProviderCallRow,
    servers: &[ServerToolCallRow],
    citations: &[CitationRow],
    prices: &PriceTable,
) -> Request {
    let server_calls: Vec<ServerCall> = servers
        .iter()
        .filter(|s| s.step == call.step)
        .map(|s| ServerCall {
            tool: s.tool.clone(),
            error: s.error.clone(),
            input: s.input.clone(),
        })
        .collect();
    let recorded = Recorded::of(
        server_calls
            .iter()
            .map(|s| (s.tool.as_str(), s.error.is_none())),
    );
    Request {
        step: call.step,
        attempt: 1,
        provider: call.provider,
        response_model: Some(call.model.clone()),
        // What the vendor said, as recorded; left out where it was not.
        server: call.endpoint.as_deref().and_then(spans::server_of),
        response_id: call.response_id.clone(),
        finish_reason: call.finish_reason.clone(),
        usage: call.usage,
        cost: Some(prices.cost(&call.model, call.usage.as_ref(), recorded)),
        server_calls,
        citations: citations
            .iter()
            .filter(|c| c.step == call.step)
            .map(|c| crate::core::completion::Citation {
                url: c.url.clone(),
                title: c.title.clone(),
                cited_text: c.cited_text.clone(),
            })
            .collect(),
        ..Request::default()
    }
}

/// A `spawn_agent` call spanning its child run, the child's trace inside it.
fn send_child(
    shape: &Shape,
    store: &Store,
    prices: &PriceTable,
    tool: &ToolRun,
    child: &RunRow,
    parent: &Context,
) -> Result<usize> {
    let start = parse_time(&child.started_at).unwrap_or(SystemTime::UNIX_EPOCH);
    let end = child
        .finished_at
        .as_deref()
        .and_then(parse_time)
        .unwrap_or(start);
    let cx = spans::start_tool(shape, parent, &tool.name, start);
    let agent = agent_of(&tool.input).unwrap_or_else(|| "agent".into());
    let n = send_run(shape, store, prices, child, &agent, &cx)?;
    spans::end_tool(shape, &cx, tool, end);
    Ok(n + 1)
}

/// The roster name a `spawn_agent` call's arguments (as shortened JSON) give.
fn agent_of(input: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(input).ok()?;
    v.get("agent")?.as_str().map(str::to_string)
}

/// The local tool calls a step's observations record, in order.
pub fn tools_of(observations: &[String]) -> Vec<ToolRun> {
    observations
        .iter()
        .filter_map(|o| {
            let rest = o.strip_prefix("[step ")?;
            let (_, rest) = rest.split_once("] ")?;
            let (name, rest) = rest.split_once(' ')?;
            let known = crate::core::tools::local_tool_specs()
                .iter()
                .any(|t| t.name == name)
                || name == "spawn_agent"
                || name.starts_with("mcp__");
            if !known {
                return None;
            }
            // The input is JSON; the output follows the ": " after it.
            let (input, output) = split_input(rest);
            let failed = output.starts_with("refused")
                || output.contains(" is not among this agent's tools")
                || output.starts_with("error");
            Some(ToolRun {
                name: name.to_string(),
                call_id: None,
                ok: !failed,
                input,
                output,
            })
        })
        .collect()
}

/// `{json}: output` split after the JSON value (which may itself hold ": ").
fn split_input(rest: &str) -> (String, String) {
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    if let Some(Ok(_)) = stream.next() {
        let at = stream.byte_offset();
        let (input, tail) = rest.split_at(at);
        let output = tail.strip_prefix(": ").unwrap_or(tail);
        return (input.to_string(), output.to_string());
    }
    match rest.split_once(": ") {
        Some((i, o)) => (i.to_string(), o.to_string()),
        None => (rest.to_string(), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_give_back_the_tool_calls() {
        let obs = vec![
            "[step 2] write_file {\"path\":\"a: b\",\"content\":\"x\"}: wrote 1 bytes".to_string(),
            "[step 2] provider web tool: web_search failed (max_uses_exceeded)".to_string(),
        ];
        let tools = tools_of(&obs);
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].name, "write_file");
        assert_eq!(tools[0].input, "{\"path\":\"a: b\",\"content\":\"x\"}");
        assert_eq!(tools[0].output, "wrote 1 bytes");
    }

    #[test]
    fn store_times_read_back() {
        let t = parse_time("2026-01-02T03:04:05.678Z").expect("parses");
        let ms = t
            .duration_since(SystemTime::UNIX_EPOCH)
            .expect("after the epoch")
            .as_millis();
        assert_eq!(ms % 1000, 678);
    }
}
