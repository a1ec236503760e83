//! What a transcript costs with and without prompt caching, on the stub's
//! emulation of the vendors' published cache accounting: the ten-step search run
//! of `common::cost`, priced at the built-in table. Deterministic (tokens are
//! estimated from bytes), so the ratio is checked here; `cargo bench --bench
//! conversation` prints all four figures.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cost::input_cost;
use io_harness::core::transcript::{CacheTtl, Conversation};

#[tokio::test]
async fn a_cached_transcript_costs_at_most_035_of_an_uncached_one() {
    let plain = input_cost(Conversation::Transcript, None).await;
    let cached = input_cost(Conversation::Transcript, Some(CacheTtl::FiveMinutes)).await;
    assert_eq!((plain.requests, cached.requests), (10, 10));
    assert_eq!((plain.cache_read, plain.cache_write), (0, 0), "{plain:?}");
    assert!(
        cached.cache_read > 0 && cached.cache_write > 0,
        "{cached:?}"
    );
    // Every prompt token is counted once, cached or not.
    assert_eq!(
        cached.input + cached.cache_write + cached.cache_read,
        plain.input,
        "{cached:?} {plain:?}"
    );
    let ratio = cached.micro_usd as f64 / plain.micro_usd as f64;
    assert!(
        ratio <= 0.35,
        "cached {cached:?} / plain {plain:?} = {ratio:.3}"
    );
}

#[tokio::test]
async fn flattened_sends_far_less_and_stays_under_the_cacheable_minimum() {
    let flat = input_cost(Conversation::Flattened, None).await;
    let flat_cached = input_cost(Conversation::Flattened, Some(CacheTtl::FiveMinutes)).await;
    let transcript = input_cost(Conversation::Transcript, None).await;
    assert!(
        flat.input < transcript.input / 20,
        "{flat:?} {transcript:?}"
    );
    // The flattened prompt (goal, tools, one line an observation) never reaches
    // 1,024 tokens here: marking it writes and reads nothing, and the text blocks
    // cost a little more than one string.
    assert_eq!((flat_cached.cache_write, flat_cached.cache_read), (0, 0));
    assert!(flat_cached.input >= flat.input, "{flat_cached:?} {flat:?}");
}
