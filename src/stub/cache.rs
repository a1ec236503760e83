//! The stub's emulation of the vendors' published prompt-cache accounting, for
//! demos and for measuring what caching saves. It is an emulation of the rules as
//! documented, not the vendors' caches:
//!
//! - tokens are estimated from bytes at one fixed ratio, `BYTES_PER_TOKEN`, over
//!   the compact JSON of each unit of the prompt (a tool definition, a content
//!   block, a message or input item);
//! - Anthropic (and OpenRouter's `anthropic/*` models, whose parts carry
//!   `cache_control`): the prompt is tools, then system, then messages; a
//!   breakpoint writes the prefix up to it when that prefix is at least the
//!   model's minimum (1,024 tokens; 2,048 for Haiku models); a later request reads
//!   the longest written prefix found at a breakpoint or up to 20 blocks before
//!   one; what lies between that and the last breakpoint is a write (5-minute or
//!   1-hour, as the breakpoint says); the rest is plain input;
//! - OpenAI and xAI (and OpenRouter's other models): automatic; the longest prefix seen
//!   before under the same `prompt_cache_key` is read when it is at least 1,024
//!   tokens, counted in steps of 128; nothing is billed as a write.
//!
//! `cache_control` marks are taken out of a unit before it is compared, so a
//! breakpoint that moves forward each step does not change the prefix.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};

use crate::core::vendor::Vendor;

/// The fixed ratio the emulation estimates tokens with.
pub const BYTES_PER_TOKEN: usize = 4;

/// Blocks before a breakpoint that Anthropic checks for an earlier write.
const LOOKBACK: usize = 20;

/// What the emulation says one request's prompt cost, in tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Accounting {
    /// Every prompt token.
    pub total: u64,
    /// Read from the cache.
    pub read: u64,
    /// Written with a 5-minute lifetime.
    pub write_5m: u64,
    /// Written with a 1-hour lifetime.
    pub write_1h: u64,
}

impl Accounting {
    /// Plain input: neither read nor written.
    pub fn plain(&self) -> u64 {
        self.total
            .saturating_sub(self.read + self.write_5m + self.write_1h)
    }
}

/// What the stub remembers between requests.
#[derive(Debug, Default)]
pub struct Ledger {
    /// Anthropic-style prefixes written at a breakpoint.
    written: HashSet<u64>,
    /// OpenAI-style prefixes seen, by cache key.
    seen: HashMap<String, HashSet<u64>>,
}

/// One unit of a prompt: its chained hash, its tokens so far, and the lifetime of
/// the breakpoint on it, if any.
struct Unit {
    chain: u64,
    through: u64,
    mark: Option<bool>,
}

fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN) as u64
}

/// Chain the units' hashes and running token counts.
fn units(parts: Vec<(Value, Option<bool>)>) -> Vec<Unit> {
    let mut chain = 0u64;
    let mut through = 0u64;
    parts
        .into_iter()
        .map(|(v, mark)| {
            let text = v.to_string();
            let mut h = DefaultHasher::new();
            chain.hash(&mut h);
            text.hash(&mut h);
            chain = h.finish();
            through += tokens(text.len());
            Unit {
                chain,
                through,
                mark,
            }
        })
        .collect()
}

/// A unit without its `cache_control`, and whether that mark asked for an hour.
fn unmarked(mut v: Value) -> (Value, Option<bool>) {
    let mark = v
        .as_object_mut()
        .and_then(|o| o.remove("cache_control"))
        .map(|c| c.get("ttl").and_then(Value::as_str) == Some("1h"));
    (v, mark)
}

/// A message's content as units, its role carried on the first.
fn content_units(role: &Value, content: &Value, out: &mut Vec<(Value, Option<bool>)>) {
    let blocks = match content {
        Value::Array(b) => b.clone(),
        Value::Null => Vec::new(),
        other => vec![json!({"type": "text", "text": other})],
    };
    for (i, b) in blocks.into_iter().enumerate() {
        let (b, mark) = unmarked(b);
        let unit = if i == 0 { json!([role, b]) } else { b };
        out.push((unit, mark));
    }
}

impl Ledger {
    /// Account one request, when the stub estimates usage: `None` for a body that
    /// is not JSON.
    pub fn account(&mut self, vendor: Vendor, responses: bool, body: &[u8]) -> Option<Accounting> {
        let v: Value = serde_json::from_slice(body).ok()?;
        let model = v.get("model").and_then(Value::as_str).unwrap_or_default();
        let minimum = if model.contains("haiku") { 2048 } else { 1024 };
        Some(match vendor {
            // Gemini and Perplexity cache implicitly, unasked: the stub emulates
            // no cache for them.
            Vendor::Gemini | Vendor::Perplexity => return None,
            // xAI caches automatically by prompt_cache_key, as OpenAI does, on
            // its Responses-shaped input.
            Vendor::Xai => {
                let key = v
                    .get("prompt_cache_key")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                self.automatic(&key, responses_units(&v))
            }
            Vendor::Anthropic => self.breakpoints(anthropic_units(&v), minimum),
            Vendor::OpenRouter if body_has_marks(&v) => {
                self.breakpoints(chat_units(&v, true), minimum)
            }
            Vendor::OpenAi | Vendor::OpenRouter => {
                let key = v
                    .get("prompt_cache_key")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let parts = if responses {
                    responses_units(&v)
                } else {
                    chat_units(&v, false)
                };
                self.automatic(&key, parts)
            }
        })
    }

    fn breakpoints(&mut self, parts: Vec<(Value, Option<bool>)>, minimum: u64) -> Accounting {
        let units = units(parts);
        let total = units.last().map_or(0, |u| u.through);
        let marks: Vec<usize> = (0..units.len())
            .filter(|&i| units[i].mark.is_some())
            .collect();
        let read_at = marks
            .iter()
            .filter_map(|&b| {
                (b.saturating_sub(LOOKBACK)..=b)
                    .rev()
                    .find(|&j| self.written.contains(&units[j].chain))
            })
            .max();
        let read = read_at.map_or(0, |j| units[j].through);
        let mut out = Accounting {
            total,
            read,
            ..Accounting::default()
        };
        let mut from = read;
        for &b in &marks {
            let unit = &units[b];
            if unit.through < minimum {
                continue;
            }
            self.written.insert(unit.chain);
            if unit.through > from {
                let part = unit.through - from;
                if unit.mark == Some(true) {
                    out.write_1h += part;
                } else {
                    out.write_5m += part;
                }
                from = unit.through;
            }
        }
        out
    }

    fn automatic(&mut self, key: &str, parts: Vec<(Value, Option<bool>)>) -> Accounting {
        let units = units(parts);
        let total = units.last().map_or(0, |u| u.through);
        let seen = self.seen.entry(key.to_string()).or_default();
        let hit = units
            .iter()
            .rev()
            .find(|u| seen.contains(&u.chain))
            .map_or(0, |u| u.through);
        seen.extend(units.iter().map(|u| u.chain));
        let read = if hit < 1024 {
            0
        } else {
            1024 + (hit - 1024) / 128 * 128
        };
        Accounting {
            total,
            read,
            ..Accounting::default()
        }
    }
}

/// The elements of the array under `key` (none when it is not an array).
fn items<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

fn body_has_marks(v: &Value) -> bool {
    v.to_string().contains("\"cache_control\"")
}

fn anthropic_units(v: &Value) -> Vec<(Value, Option<bool>)> {
    let mut out: Vec<_> = items(v, "tools").map(|t| unmarked(t.clone())).collect();
    if let Some(system) = v.get("system") {
        content_units(&json!("system"), system, &mut out);
    }
    for m in items(v, "messages") {
        content_units(&m["role"], &m["content"], &mut out);
    }
    out
}

/// Chat messages as units: whole messages, or (OpenRouter's marked parts) each
/// content part, the rest of the message riding on its first part.
fn chat_units(v: &Value, parts: bool) -> Vec<(Value, Option<bool>)> {
    let mut out: Vec<_> = items(v, "tools").map(|t| unmarked(t.clone())).collect();
    for m in items(v, "messages") {
        if parts && m["content"].is_array() {
            let mut head = m.clone();
            if let Some(o) = head.as_object_mut() {
                o.remove("content");
            }
            content_units(&head, &m["content"], &mut out);
        } else {
            out.push((m.clone(), None));
        }
    }
    out
}

fn responses_units(v: &Value) -> Vec<(Value, Option<bool>)> {
    let mut out = Vec::new();
    if let Some(i) = v.get("instructions") {
        out.push((i.clone(), None));
    }
    for tool in v
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push((tool.clone(), None));
    }
    match v.get("input") {
        Some(Value::Array(items)) => out.extend(items.iter().map(|i| (i.clone(), None))),
        Some(other) => out.push((other.clone(), None)),
        None => {}
    }
    out
}

/// Write the accounting into a 2xx answer's usage, in the vendor's own fields.
pub fn patch(body: &mut Value, vendor: Vendor, responses: bool, a: &Accounting) {
    let Some(usage) = body.get_mut("usage").and_then(Value::as_object_mut) else {
        return;
    };
    let output = |u: &serde_json::Map<String, Value>, key: &str| {
        u.get(key).and_then(Value::as_u64).unwrap_or(0)
    };
    match (vendor, responses) {
        (Vendor::Anthropic, _) => {
            usage.insert("input_tokens".into(), json!(a.plain()));
            usage.insert(
                "cache_creation_input_tokens".into(),
                json!(a.write_5m + a.write_1h),
            );
            usage.insert("cache_read_input_tokens".into(), json!(a.read));
            usage.insert(
                "cache_creation".into(),
                json!({"ephemeral_5m_input_tokens": a.write_5m, "ephemeral_1h_input_tokens": a.write_1h}),
            );
        }
        (Vendor::Xai, _) | (_, true) => {
            let out = output(usage, "output_tokens");
            usage.insert("input_tokens".into(), json!(a.total));
            usage.insert(
                "input_tokens_details".into(),
                json!({"cached_tokens": a.read}),
            );
            usage.insert("total_tokens".into(), json!(a.total + out));
        }
        (_, false) => {
            let out = output(usage, "completion_tokens");
            usage.insert("prompt_tokens".into(), json!(a.total));
            let mut details = json!({"cached_tokens": a.read});
            if vendor == Vendor::OpenRouter {
                details["cache_write_tokens"] = json!(a.write_5m + a.write_1h);
            }
            usage.insert("prompt_tokens_details".into(), details);
            usage.insert("total_tokens".into(), json!(a.total + out));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anthropic(blocks: &[&str], marks: &[usize]) -> Vec<u8> {
        let content: Vec<Value> = blocks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut b = json!({"type": "text", "text": t});
                if marks.contains(&i) {
                    b["cache_control"] = json!({"type": "ephemeral"});
                }
                b
            })
            .collect();
        json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": content}]})
            .to_string()
            .into_bytes()
    }

    #[test]
    fn a_marked_prefix_is_written_then_read_and_the_growth_written() {
        let big = "x".repeat(8_000);
        let mut ledger = Ledger::default();
        let first = ledger
            .account(Vendor::Anthropic, false, &anthropic(&[&big], &[0]))
            .unwrap();
        assert_eq!(first.read, 0);
        assert!(first.write_5m >= 2_000, "{first:?}");
        let second = ledger
            .account(Vendor::Anthropic, false, &anthropic(&[&big, &big], &[1]))
            .unwrap();
        assert_eq!(second.read, first.write_5m, "read through the lookback");
        assert_eq!(second.write_5m, second.total - second.read);
        assert_eq!(second.plain(), 0);
    }

    #[test]
    fn a_prefix_under_the_minimum_is_neither_written_nor_read() {
        let mut ledger = Ledger::default();
        for _ in 0..2 {
            let a = ledger
                .account(Vendor::Anthropic, false, &anthropic(&["short"], &[0]))
                .unwrap();
            assert_eq!((a.read, a.write_5m), (0, 0));
            assert_eq!(a.plain(), a.total);
        }
    }

    #[test]
    fn openai_reads_the_longest_prefix_in_steps_of_128() {
        let body = |n: usize| {
            let messages: Vec<Value> = (0..n)
                .map(|i| json!({"role": "user", "content": format!("{i}{}", "y".repeat(2_000))}))
                .collect();
            json!({"model": "gpt-5", "messages": messages, "prompt_cache_key": "run-1"})
                .to_string()
                .into_bytes()
        };
        let mut ledger = Ledger::default();
        let first = ledger.account(Vendor::OpenAi, false, &body(3)).unwrap();
        assert_eq!(first.read, 0);
        let second = ledger.account(Vendor::OpenAi, false, &body(4)).unwrap();
        assert!(
            second.read >= 1024 && second.read <= first.total,
            "{second:?}"
        );
        assert_eq!((second.read - 1024) % 128, 0);
    }
}
