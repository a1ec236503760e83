//! Streamed-answer helpers shared by the stream tests: feed a byte stream to a
//! wire's assembler cut at given offsets, seeded cut points, and recorded streams
//! (tests/fixtures/*/…chunks.jsonl) framed the way their vendor sends them.

#![allow(dead_code, clippy::unwrap_used)]

use io_harness::core::vendor::Wire;
use io_harness::core::wire::stream::{Delta, assembler_for};
use io_harness::{Completion, Vendor, WireResponse};
use pretty_assertions::assert_eq;

pub fn head() -> WireResponse {
    WireResponse {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: Vec::new(),
    }
}

/// Assemble `stream` fed as the pieces `cuts` (ascending byte offsets) make.
pub fn assemble(
    vendor: Vendor,
    stream: &[u8],
    cuts: &[usize],
) -> (Vec<Delta>, io_harness::Result<Completion>) {
    assemble_on(Wire::spec(vendor), stream, cuts)
}

pub fn assemble_on(
    wire: Wire,
    stream: &[u8],
    cuts: &[usize],
) -> (Vec<Delta>, io_harness::Result<Completion>) {
    let mut a = assembler_for(wire, head()).unwrap();
    let mut deltas = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&stream.len())) {
        if let Err(e) = a.feed(&stream[at..cut], &mut deltas) {
            return (deltas, Err(e));
        }
        at = cut;
    }
    (deltas, a.finish())
}

/// A small seeded generator (splitmix64), so a failure names its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Ascending cut points with pieces of 1..=max bytes.
    pub fn cuts(&mut self, len: usize, max: u64) -> Vec<usize> {
        let mut cuts = Vec::new();
        let mut at = 0usize;
        loop {
            at += 1 + (self.next() % max) as usize;
            if at >= len {
                return cuts;
            }
            cuts.push(at);
        }
    }
}

/// A recorded stream kept as its source keeps it (one JSON event a line), framed
/// as the vendor sends it: named events for Anthropic and OpenAI Responses;
/// `data:` lines and a final `data: [DONE]` for Chat Completions and xAI; `data:`
/// lines alone for Perplexity.
pub fn recorded(wire: Wire, name: &str) -> Vec<u8> {
    let vendor = wire.vendor();
    let path = format!(
        "{}/tests/fixtures/{vendor}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let named = vendor == Vendor::Anthropic || wire == Wire::OpenAiResponses;
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if named {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            out.push_str(&format!(
                "event: {}\ndata: {line}\n\n",
                v["type"].as_str().unwrap()
            ));
        } else {
            out.push_str(&format!("data: {line}\n\n"));
        }
    }
    // Perplexity sends no `[DONE]`; xAI and Chat Completions end with it.
    if !named && vendor != Vendor::Perplexity {
        out.push_str("data: [DONE]\n\n");
    }
    out.into_bytes()
}

/// A recorded stream assembled whole and under 32 seeds of random cuts: the same
/// deltas and the same completion every time.
pub fn recorded_the_same_however_cut(wire: Wire, name: &str) -> (Vec<Delta>, Completion) {
    let stream = recorded(wire, name);
    let (deltas, whole) = assemble_on(wire, &stream, &[]);
    let whole = whole.unwrap();
    for seed in 0..32u64 {
        let cuts = Rng(seed).cuts(stream.len(), 1 + seed * 13);
        let (d, got) = assemble_on(wire, &stream, &cuts);
        assert_eq!(got.unwrap(), whole, "{name}, seed {seed}");
        assert_eq!(d, deltas, "{name}, seed {seed}");
    }
    (deltas, whole)
}

/// The text the deltas carried, joined.
pub fn text_of(deltas: &[Delta]) -> String {
    deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// A completion with its raw blocks reduced to what a stream can carry: keys whose
/// value is `null` or empty are dropped (a stream never sends `"refusal": null`
/// or `"annotations": []`; the non-streamed body does). Everything else compared
/// as is, keys sorted (a stream's deltas arrive in their own order).
pub fn streamable(mut c: Completion) -> Completion {
    fn prune(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(map) => {
                let kept: std::collections::BTreeMap<String, serde_json::Value> = map
                    .into_iter()
                    .filter(|(_, v)| {
                        !(v.is_null()
                            || v.as_array().is_some_and(|a| a.is_empty())
                            || v.as_object().is_some_and(|o| o.is_empty()))
                    })
                    .map(|(k, v)| (k, prune(v)))
                    .collect();
                serde_json::Value::Object(kept.into_iter().collect())
            }
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(prune).collect())
            }
            other => other,
        }
    }
    c.blocks = c
        .blocks
        .iter()
        .map(|b| prune(serde_json::from_str(b).unwrap_or_default()).to_string())
        .collect();
    c
}
