//! The console's claims view (issue 29, items 1 and 3): on Sources, `a` shows the
//! selected run's final answer sentence by sentence, each with its sources and
//! their verdicts, a sentence without a source marked so, under the run's three
//! figures; Esc closes it. On Compare, Enter opens the chosen run's claims — on
//! the pure state and driven for real against the demo stub.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::*;
use crossterm::event::KeyCode;
use io_harness::RunId;
use io_harness::console::testing::{Effect, Msg, Screen, update};
use io_harness::core::claims::{ClaimFigures, ClaimSentence, Source};
use io_harness::core::verdict::Verdict;
use io_harness::store::RunClaims;
use pretty_assertions::assert_eq;

fn claims() -> RunClaims {
    let sentence = |start, text: &str, citations| ClaimSentence {
        step: 2,
        start,
        end: start + text.len(),
        text: text.into(),
        citations,
    };
    RunClaims {
        run_id: RunId(1),
        claims: vec![
            sentence(
                0,
                "The crate is at 0.22.0.",
                vec![Source {
                    url: "https://crates.io/crates/io-harness".into(),
                    verdict: Some(Verdict::Found),
                    overlap: None,
                }],
            ),
            sentence(
                24,
                "It was released on a Tuesday.",
                vec![Source {
                    url: "https://docs.rs/io-harness".into(),
                    verdict: Some(Verdict::NoQuote),
                    overlap: Some(0.4),
                }],
            ),
            sentence(54, "Nobody said so.", Vec::new()),
        ],
        figures: ClaimFigures {
            cited_share: Some(2.0 / 3.0),
            verified_share: Some(0.5),
            unsupported: Some(1),
            ..ClaimFigures::default()
        },
    }
}

#[test]
fn a_shows_the_answer_by_sentence_with_sources_and_esc_closes_it() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(4)));
    let row = io_harness::store::RunRow {
        run_id: RunId(1),
        goal: "release".into(),
        ..Default::default()
    };
    update(&mut s, Msg::Runs(vec![row]));
    assert_eq!(
        update(&mut s, key(KeyCode::Char('a'))),
        vec![Effect::LoadClaims(RunId(1))]
    );
    assert!(screen(&s, 100, 30).contains("reading"));
    update(&mut s, Msg::Claims(Box::new(claims())));
    let text = screen(&s, 100, 30);
    for want in [
        "claims · run 1 · 3 sentences · a closes",
        "cited share 67% · verified share 50% · unsupported 1",
        "1. The crate is at 0.22.0.",
        "[found] https://crates.io/crates/io-harness",
        "[no_quote · lexical overlap 0.40, a hint] https://docs.rs/io-harness",
        "3. Nobody said so.",
        "no source",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    assert!(!text.contains("not checked"), "{text}");
    // Another run's claims are not shown as this one's.
    let mut other = claims();
    other.run_id = RunId(2);
    update(&mut s, Msg::Claims(Box::new(other)));
    assert!(screen(&s, 100, 30).contains("reading"));
    update(&mut s, Msg::Claims(Box::new(claims())));
    // Small terminals draw without a panic.
    for (w, h) in [(40, 10), (60, 12)] {
        assert!(screen(&s, w, h).contains("F4"), "{w}x{h}");
    }
    // Esc closes the view: the citations are back.
    update(&mut s, key(KeyCode::Esc));
    let text = screen(&s, 100, 30);
    assert!(text.contains("citations ·"), "{text}");
    assert!(!text.contains("cited share"), "{text}");
    // The help lists the key.
    update(&mut s, key(KeyCode::F(1)));
    for _ in 0..12 {
        update(&mut s, key(KeyCode::Down));
    }
    let help = screen(&s, 100, 40);
    assert!(
        help.contains("claims: the answer by sentence, with sources"),
        "{help}"
    );
}

#[test]
fn an_unchecked_run_says_how_to_check_it() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(4)));
    let row = io_harness::store::RunRow {
        run_id: RunId(1),
        ..Default::default()
    };
    update(&mut s, Msg::Runs(vec![row]));
    update(&mut s, key(KeyCode::Char('a')));
    let mut c = claims();
    c.figures.verified_share = None;
    c.figures.unsupported = None;
    for s in &mut c.claims {
        for src in &mut s.citations {
            src.verdict = None;
        }
    }
    update(&mut s, Msg::Claims(Box::new(c)));
    let text = screen(&s, 110, 30);
    assert!(
        text.contains("verified share not checked · unsupported not checked"),
        "{text}"
    );
    assert!(
        text.contains("not checked: k checks this run's sources"),
        "{text}"
    );
    assert!(text.contains("[not checked] https://crates.io"), "{text}");
}

#[tokio::test]
async fn enter_on_compare_opens_the_chosen_runs_claims_for_real() {
    let mut c = LiveConsole::demo().await;
    c.send(ctrl('g'));
    c.until(|s| s.compare.result.is_some()).await;
    let chosen = c.state.compare.result.as_ref().unwrap().runs[0].run_id;
    c.send(key(KeyCode::Enter));
    assert_eq!(c.state.screen, Screen::Sources);
    c.until(|s| {
        s.sources
            .claims
            .as_ref()
            .is_some_and(|k| k.run_id == chosen)
    })
    .await;
    let text = screen(&c.state, 120, 40);
    assert!(text.contains(&format!("claims · run {chosen}")), "{text}");
    assert!(text.contains("cited share"), "{text}");
    assert!(text.contains("verified share not checked"), "{text}");
    // The figures are the ones the comparison showed.
    let shown = c.state.compare.result.as_ref().unwrap().runs[0]
        .figures
        .claims();
    assert_eq!(c.state.sources.claims.as_ref().unwrap().figures, shown);
}
