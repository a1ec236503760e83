//! A run's conversation as data, for the wires to send back: the mode
//! (`[run] conversation`), prompt caching (`[run] cache`, `cache_ttl`), and one
//! `Exchange` per step — the answer's own blocks exactly as the vendor sent them,
//! and what goes back (each local tool's result, any other observation).
//!
//! `"flattened"` (the spec's default) sends one user message: the goal and every
//! observation so far. `"transcript"` sends the vendor's own blocks back — search
//! results with their `encrypted_content`, thinking with its `signature`, tool calls
//! — so the model works from the sources, not from its summary of them. Each wire
//! renders an `Exchange` in its own shape (`anthropic_messages`, `chat`,
//! `openai_responses`).
//!
//! Encrypted content is readable only by the vendor that produced it, so an
//! exchange belongs to one conversation family (`same_family`): a fallback to
//! another vendor starts its transcript afresh from the goal and the observations
//! made so far (`Turn::history_for`).

use serde::{Deserialize, Serialize};

use crate::core::vendor::Wire;

/// How a run's steps reach the vendor (`[run] conversation`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Conversation {
    /// One user message: the goal and every observation so far (the spec's).
    #[default]
    Flattened,
    /// The vendor's own blocks sent back, step by step.
    Transcript,
}

impl Conversation {
    /// The name in io.toml.
    pub fn as_str(self) -> &'static str {
        match self {
            Conversation::Flattened => "flattened",
            Conversation::Transcript => "transcript",
        }
    }
}

/// How long a cache entry lives (`[run] cache_ttl`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CacheTtl {
    /// Five minutes, refreshed on each read (the vendors' default).
    #[default]
    #[serde(rename = "5m")]
    FiveMinutes,
    /// One hour (Anthropic; written at a higher rate).
    #[serde(rename = "1h")]
    OneHour,
}

impl CacheTtl {
    /// The name in io.toml and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheTtl::FiveMinutes => "5m",
            CacheTtl::OneHour => "1h",
        }
    }
}

/// Where OpenAI Responses keeps a transcript (`[providers.openai] responses_state`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponsesState {
    /// Every request carries the whole transcript (`store: false`; reasoning comes
    /// back as `encrypted_content`).
    #[default]
    Stateless,
    /// OpenAI keeps it (`store: true`): a request names `previous_response_id` and
    /// carries only what is new.
    Server,
}

/// Prompt caching for a run (`[run] cache = true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Caching {
    /// How long a written entry lives.
    pub ttl: CacheTtl,
    /// A key stable for the whole run (OpenAI's `prompt_cache_key`).
    pub key: String,
}

impl Caching {
    /// The prompt-cache key of a run: `io-harness-` and a stable hash (FNV-1a,
    /// the same on every machine and release) of its goal and model, so a run's
    /// requests — a resumed run's too, and a re-run of the same task — share it,
    /// and a preview shows the key the run will send.
    pub fn key_for(goal: &str, model: &str) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in goal.bytes().chain([0]).chain(model.bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("io-harness-{h:016x}")
    }
}

/// One local tool call's result, as it goes back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolReturn {
    /// The vendor's id for the call (`tool_use.id`, `tool_calls[].id`, `call_id`).
    pub call_id: String,
    /// What the tool returned, or why it failed or was refused.
    pub output: String,
    /// True for a failed or refused call.
    pub is_error: bool,
}

/// One step of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// The wire that answered (its blocks go back to it and its family only).
    pub wire: Wire,
    /// The answer's blocks, each the vendor's JSON with every field in its order:
    /// Anthropic `content` blocks, Responses `output` items, or the one Chat
    /// `message`.
    pub blocks: Vec<String>,
    /// The vendor's id of the response (`previous_response_id` on Responses).
    #[serde(default)]
    pub response_id: Option<String>,
    /// The vendor paused the turn (`pause_turn`): the continuation resends the
    /// blocks and adds nothing after them.
    #[serde(default)]
    pub paused: bool,
    /// One per local tool call the answer asked for, in its order.
    #[serde(default)]
    pub results: Vec<ToolReturn>,
    /// Observations other than tool results (a failed server tool), as text.
    #[serde(default)]
    pub notes: Vec<String>,
    /// How many of the run's observations were made before this exchange's: a
    /// fallback vendor starts from the goal and those.
    #[serde(default)]
    pub observations_before: usize,
}

impl Exchange {
    /// The blocks parsed back into JSON values; a block that is not JSON is an
    /// error naming its index (a damaged store, never the vendor's answer).
    pub fn values(&self) -> std::result::Result<Vec<serde_json::Value>, String> {
        self.blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                serde_json::from_str(b).map_err(|e| format!("block {i} is not JSON: {e}"))
            })
            .collect()
    }

    /// The blocks to send back as the transcript's `i`-th exchange; a block that is
    /// not JSON is a config error naming the exchange and the block.
    pub(crate) fn resend(&self, i: usize) -> crate::core::error::Result<Vec<serde_json::Value>> {
        self.values().map_err(|why| {
            crate::core::error::Error::refused(format!("the transcript's exchange {i}: {why}"))
        })
    }
}

/// Whether blocks from one wire can be sent to another: the same vendor and the
/// same API shape (Anthropic's two tool versions share one Messages API;
/// OpenRouter's plugin and server tools one Chat API; OpenAI's Responses and
/// Perplexity's Sonar are shapes apart from their vendor's other wire).
pub fn same_family(a: Wire, b: Wire) -> bool {
    let apart = |w: Wire| matches!(w, Wire::OpenAiResponses | Wire::PerplexitySonar);
    a.vendor() == b.vendor() && (apart(a) == apart(b))
}
