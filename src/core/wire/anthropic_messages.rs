//! Anthropic's `messages` and prompt-cache breakpoints. Flattened, one user
//! message (its observations as separate text blocks when caching); a transcript,
//! the answer's own content back as `assistant` messages, one `tool_result` per
//! `tool_use`, a paused turn continued by its content unchanged; and up to three
//! `cache_control` breakpoints that move forward every step.

use serde_json::{Value, json};

use crate::core::error::Result;
use crate::core::transcript::{CacheTtl, Caching};
use crate::core::turn::Turn;
use crate::core::vendor::Wire;

/// The `messages` array. Flattened: the one user message (its observations as
/// separate text blocks when caching, so the earlier ones stay a cacheable
/// prefix). Transcript: the opening user message, then per step the answer's
/// content unchanged as an `assistant` message and a `user` message with one
/// `tool_result` per `tool_use`, in order, and any other observation as text. A
/// paused step adds nothing after its content: the continuation ends with it.
pub(crate) fn messages(turn: &Turn, wire: Wire) -> Result<Vec<Value>> {
    let Some((opening, history)) = turn.history_for(wire) else {
        let content = match (&turn.cache, turn.observations.is_empty()) {
            (Some(_), false) => observation_blocks(turn),
            _ => json!(turn.user_message()),
        };
        return Ok(vec![json!({"role": "user", "content": content})]);
    };
    let mut messages = vec![json!({"role": "user", "content": turn.opening(opening)})];
    let mut notes = Vec::new();
    for (i, exchange) in history.iter().enumerate() {
        let blocks = exchange.resend(i)?;
        push(&mut messages, "assistant", blocks);
        notes.extend(exchange.notes.iter().cloned());
        if exchange.paused {
            continue;
        }
        let mut content: Vec<Value> = exchange
            .results
            .iter()
            .map(|r| {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": r.call_id, "content": r.output});
                if r.is_error {
                    block["is_error"] = json!(true);
                }
                block
            })
            .collect();
        content.extend(notes.drain(..).map(|n| json!({"type": "text", "text": n})));
        if !content.is_empty() {
            push(&mut messages, "user", content);
        }
    }
    Ok(messages)
}

/// The flattened user message as text blocks: the goal, then the observations
/// (the first one headed as `user_message` heads them); joined, the same text.
fn observation_blocks(turn: &Turn) -> Value {
    let mut blocks = vec![json!({"type": "text", "text": turn.goal})];
    for (i, o) in turn.observations.iter().enumerate() {
        let text = if i == 0 {
            format!("Observations so far:\n{o}")
        } else {
            o.clone()
        };
        blocks.push(json!({"type": "text", "text": text}));
    }
    Value::Array(blocks)
}

/// Append `content` as a message of `role`, merged into the last message when it
/// has the same role (a paused answer and its continuation are one turn).
fn push(messages: &mut Vec<Value>, role: &str, content: Vec<Value>) {
    if let Some(last) = messages.last_mut().filter(|m| m["role"] == role) {
        let mut merged = blocks_of(&last["content"]);
        merged.extend(content);
        last["content"] = Value::Array(merged);
        return;
    }
    messages.push(json!({"role": role, "content": content}));
}

/// A message's content as blocks (a string is one text block).
fn blocks_of(content: &Value) -> Vec<Value> {
    match content {
        Value::Array(blocks) => blocks.clone(),
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        _ => Vec::new(),
    }
}

/// Prompt caching: `cache_control` on the last local tool definition, on the end of
/// what the previous step sent (its read prefix, however many blocks this step
/// added), and on the newest message's last block — at most 3 of the 4
/// breakpoints Anthropic allows. Thinking blocks take no breakpoint; the nearest
/// block before one does.
pub(crate) fn mark_cache(
    cache: &Caching,
    tools: &mut [Value],
    messages: &mut [Value],
    previous: Option<(usize, usize)>,
) {
    let mark = match cache.ttl {
        CacheTtl::FiveMinutes => json!({"type": "ephemeral"}),
        CacheTtl::OneHour => json!({"type": "ephemeral", "ttl": "1h"}),
    };
    // The last local tool (the vendor's own web tools follow the local ones), so
    // the tools' breakpoint does not move when the declaration changes; the
    // newest message's breakpoint covers the web tools in any case.
    let last_local = tools.iter().rposition(|t| t.get("type").is_none());
    if let Some(tool) = last_local
        .or(tools.len().checked_sub(1))
        .and_then(|i| tools.get_mut(i))
    {
        tool["cache_control"] = mark.clone();
    }
    let newest = messages.len().checked_sub(1).map(|m| {
        let blocks = blocks_of(&messages[m]["content"]);
        (m, blocks.len().saturating_sub(1))
    });
    for (m, b) in [previous, newest].into_iter().flatten() {
        let mut blocks = blocks_of(&messages[m]["content"]);
        let Some(at) = (0..=b.min(blocks.len().saturating_sub(1)))
            .rev()
            .find(|&i| blocks.get(i).is_some_and(cacheable))
        else {
            continue;
        };
        blocks[at]["cache_control"] = mark.clone();
        messages[m]["content"] = Value::Array(blocks);
    }
}

fn cacheable(block: &Value) -> bool {
    !matches!(
        block.get("type").and_then(Value::as_str),
        Some("thinking" | "redacted_thinking")
    )
}

/// Where the previous step's request ended — the last block of its last message —
/// in this step's messages: the transcript without its newest exchange.
pub(crate) fn previous_end(turn: &Turn, wire: Wire) -> Result<Option<(usize, usize)>> {
    let Some((_, history)) = turn.history_for(wire) else {
        return Ok(None);
    };
    if history.is_empty() {
        return Ok(None);
    }
    let mut before = turn.clone();
    before.history.pop();
    let earlier = messages(&before, wire)?;
    Ok(earlier.last().map(|m| {
        (
            earlier.len() - 1,
            blocks_of(&m["content"]).len().saturating_sub(1),
        )
    }))
}
