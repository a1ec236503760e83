//! Claims agree however the answer came (issue 33 item 6): a sentence never ends
//! inside a URL, a Markdown link or inline code; and the same answer streamed and
//! whole gives the same sentences, sources and cited share — on every wire's
//! recorded response fixtures (tests/fixtures/, plus the demo's bodies), each
//! decoded whole and streamed as its vendor streams it, and on a Gemini answer in
//! several parts whose supports name a `partIndex`, decoded and run both ways.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::stream_assemble::response_fixtures;

use common::stream::{assemble_on, head};
use common::{Harness, contract, ok};
use io_harness::core::claims::{ClaimFigures, ClaimSentence, by_sentence, sentences};
use io_harness::core::vendor::Wire;
use io_harness::core::wire;
use io_harness::core::wire::stream::render::render;
use io_harness::{Completion, WireResponse};
use pretty_assertions::assert_eq;

fn cut(text: &str) -> Vec<&str> {
    sentences(text).iter().map(|(s, e)| &text[*s..*e]).collect()
}

#[test]
fn a_sentence_never_ends_inside_a_url_a_link_or_inline_code() {
    // OpenAI's inserted link, as `claims 3` cut it (issue 33 item 6).
    let openai = "The current release is 0.22.0 ([crates.io](https://crates.io/crates/io-harness?utm_source=openai)). Install it with cargo.";
    assert_eq!(
        cut(openai),
        [
            "The current release is 0.22.0 ([crates.io](https://crates.io/crates/io-harness?utm_source=openai)).",
            "Install it with cargo."
        ]
    );
    let bare = "See https://example.com/a?b=c!d. Then stop.";
    assert_eq!(
        cut(bare),
        ["See https://example.com/a?b=c!d.", "Then stop."]
    );
    let code = "Run `cargo install io-harness. --version 0.22.0` now. Done.";
    assert_eq!(
        cut(code),
        [
            "Run `cargo install io-harness. --version 0.22.0` now.",
            "Done."
        ]
    );
    let link = "Read [the notes. Really!](https://x.test/a_(b)?c=d) first. Ok.";
    assert_eq!(
        cut(link),
        [
            "Read [the notes. Really!](https://x.test/a_(b)?c=d) first.",
            "Ok."
        ]
    );
    // A line break still ends a sentence; what is not a link still breaks.
    assert_eq!(
        cut("A [link](https://a.test/x?y) here\nNext? Yes."),
        ["A [link](https://a.test/x?y) here", "Next?", "Yes."]
    );
}

/// What `claims` makes of a completion: its sentences with their sources, and
/// the cited share.
fn claimed(c: &Completion) -> (Vec<ClaimSentence>, Option<f64>) {
    let s = by_sentence(1, &c.text, &c.claims, |_| (None, None));
    let share = ClaimFigures::of(&s, []).cited_share;
    (s, share)
}

fn whole(wire: Wire, body: &[u8]) -> Completion {
    wire::decode_wire(
        wire,
        &WireResponse {
            status: 200,
            headers: head().headers,
            body: body.to_vec(),
        },
    )
    .unwrap()
}

fn streamed(wire: Wire, body: &[u8]) -> Completion {
    let stream = render(wire, body).unwrap().concat().into_bytes();
    assemble_on(wire, &stream, &[]).1.unwrap()
}

/// A Gemini answer in three parts — text, signed text, text — whose supports
/// name their part (`partIndex`) and carry no `text` of their own, as a
/// non-streamed `generateContent` body may.
const PARTS: &str = r#"{"candidates":[{"content":{"role":"model","parts":[
  {"text":"The crate is io-harness. "},
  {"text":"Its release is 0.22.0. It is on crates.io.","thoughtSignature":"c2ln"},
  {"text":" Nothing else was found."}]},
 "finishReason":"STOP","index":0,
 "groundingMetadata":{"webSearchQueries":["io-harness release"],
  "groundingChunks":[{"web":{"uri":"https://crates.io/crates/io-harness","title":"crates.io"}}],
  "groundingSupports":[
   {"segment":{"partIndex":1,"startIndex":0,"endIndex":22},"groundingChunkIndices":[0]},
   {"segment":{"partIndex":2,"startIndex":1,"endIndex":24},"groundingChunkIndices":[0]}]}}],
 "usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":20,"totalTokenCount":30},
 "modelVersion":"gemini-3.5-flash"}"#;

#[test]
fn every_fixture_gives_the_same_claims_streamed_and_whole() {
    let mut fixtures = response_fixtures();
    fixtures.push(("gemini in parts".into(), Wire::Gemini, PARTS.into()));
    let mut cited = 0;
    for (name, wire, body) in &fixtures {
        let (w, s) = (whole(*wire, body), streamed(*wire, body));
        assert_eq!(claimed(&s), claimed(&w), "{name}");
        cited += usize::from(claimed(&w).1.is_some_and(|x| x > 0.0));
    }
    assert!(cited >= 5, "too few fixtures cite anything: {cited}");
    // The parts' own figures, as their offsets say: the second part's first
    // sentence and the third part's sentence are cited, nothing else.
    let (s, share) = claimed(&whole(Wire::Gemini, PARTS.as_bytes()));
    let got: Vec<(&str, usize)> = s
        .iter()
        .map(|s| (s.text.as_str(), s.citations.len()))
        .collect();
    assert_eq!(
        got,
        [
            ("The crate is io-harness.", 0),
            ("Its release is 0.22.0.", 1),
            ("It is on crates.io.", 0),
            ("Nothing else was found.", 1)
        ]
    );
    assert_eq!(share, Some(0.5));
}

#[tokio::test]
async fn a_gemini_run_in_parts_stores_the_same_claims_streamed_and_whole() {
    let mut figures = Vec::new();
    for stream in [false, true] {
        let mut h = Harness::wire(Wire::Gemini, vec![ok(PARTS)]).await;
        if stream {
            h = h.streamed(std::time::Duration::from_secs(10));
        }
        let r = h.run(contract("which release?")).await;
        let claims = h.store.run_claims(r.run_id).unwrap();
        figures.push((
            claims
                .claims
                .iter()
                .map(|c| (c.text.clone(), c.citations.len()))
                .collect::<Vec<_>>(),
            claims.figures.cited_share,
        ));
    }
    assert_eq!(figures[1], figures[0], "streamed, then whole");
    assert_eq!(figures[0].1, Some(0.5));
}
