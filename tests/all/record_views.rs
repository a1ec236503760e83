//! What a run's record means is defined once (`core::record`), and every view
//! reads it: one run citing the same page as `www.docs.rs/x?utm_source=…` and
//! `docs.rs/x`, and a Google redirect `check-sources` followed to crates.io.
//! Compare's URLs and domains, eval's URL and domain recall, the Sources pane's
//! by-domain grouping, `search --domain` and the claims' final answer agree.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use io_harness::console::testing::Grouping;
use io_harness::core::eval::url_recall;
use io_harness::core::price::PriceTable;
use io_harness::core::record::{domain, identity};
use io_harness::core::verdict::Verdict;
use io_harness::store::verdicts::VerdictRow;
use io_harness::store::{
    CHECKPOINT_FORMAT, Checkpoint, CitationQuery, NewGroup, NewRun, ProviderCall, StepRecord, Store,
};
use io_harness::{Citation, RunId, TaskContract, Vendor, Verification};
use pretty_assertions::assert_eq;

use crate::common::console::state;

const WWW: &str = "https://www.docs.rs/x?utm_source=openai";
const BARE: &str = "https://docs.rs/x/";
const REDIRECT: &str = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZ";
const PAGE: &str = "https://crates.io/crates/x#readme";

fn cite(url: &str) -> Citation {
    Citation {
        url: url.into(),
        title: None,
        cited_text: None,
    }
}

fn step(store: &Store, run: RunId, n: u32, text: &str, cites: &[Citation]) {
    let checkpoint = Checkpoint {
        format: CHECKPOINT_FORMAT,
        step: n,
        observations: Vec::new(),
        tokens_used: 0,
        continuations: 0,
        contract: TaskContract::workspace("g", ".", Verification::None),
    };
    let record = StepRecord {
        step: n,
        attempt: 1,
        call: &ProviderCall {
            provider: Vendor::Gemini,
            model: "m".into(),
            ..ProviderCall::default()
        },
        server_tools: &[],
        citations: cites,
        claims: &[],
        text,
        observations: &[],
        exchange: None,
        search_suggestions: None,
    };
    store
        .record_step_whole(run, &record, &checkpoint, None)
        .unwrap();
}

/// The run: three citations of two pages on two domains, the redirect followed.
fn recorded() -> (tempfile::TempDir, Store, RunId, io_harness::GroupId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("s.db")).unwrap();
    let group = store
        .create_group(&NewGroup {
            goal: "g".into(),
            workspace: ".".into(),
            max_usd_micro: None,
            private: false,
        })
        .unwrap();
    let run = store
        .begin_run(&NewRun {
            goal: "g".into(),
            provider: Vendor::Gemini,
            model: "m".into(),
            group_id: Some(group),
            ..NewRun::default()
        })
        .unwrap();
    step(
        &store,
        run,
        1,
        "The answer is x.",
        &[cite(WWW), cite(BARE), cite(REDIRECT)],
    );
    // A later step that says nothing does not replace the final answer.
    step(&store, run, 2, "  ", &[]);
    store
        .record_verdicts(
            run,
            &[VerdictRow {
                run_id: run,
                step: 1,
                url: REDIRECT.into(),
                verdict: Verdict::NoQuote,
                detail: None,
                overlap: None,
                checked_at: String::new(),
                resolved_url: Some(PAGE.into()),
            }],
        )
        .unwrap();
    (dir, store, run, group)
}

#[test]
fn every_view_reads_one_definition_of_a_runs_record() {
    let (_dir, store, run, group) = recorded();
    let pages: BTreeSet<String> = [WWW, BARE, PAGE].iter().map(|u| identity(u)).collect();
    let domains: BTreeSet<String> = ["docs.rs", "crates.io"].map(String::from).into();

    // The record: the cited URLs, the redirect as the page it led to.
    let cited = store.cited_urls(run).unwrap();
    assert_eq!(cited, vec![WWW.to_string(), BARE.into(), PAGE.into()]);

    // Compare: the run's distinct pages and domains.
    let c = store
        .comparison(group, &PriceTable::default())
        .unwrap()
        .unwrap();
    assert_eq!(c.runs[0].urls, pages);
    assert_eq!(c.runs[0].domains, 2);
    assert_eq!(c.runs[0].answer, vec!["The answer is x.".to_string()]);

    // Eval: gold URLs written another way are found, and so are their domains.
    let gold = vec![
        "https://www.docs.rs/x".to_string(),
        "HTTPS://crates.io/crates/x/".to_string(),
    ];
    assert_eq!(url_recall(&gold, &cited), (Some(1.0), Some(1.0)));
    let gold = vec![
        "https://docs.rs/x".to_string(),
        "https://docs.rs/y".to_string(),
    ];
    assert_eq!(url_recall(&gold, &cited), (Some(0.5), Some(1.0)));

    // The Sources pane: grouped by the same domains, the redirect under its page's.
    let mut s = state();
    s.sources.citations = store.citations(run).unwrap();
    s.sources.checks = store.verdicts(run).unwrap();
    s.sources.grouping = Grouping::ByDomain;
    let shown: BTreeSet<String> = s
        .visible_citations()
        .iter()
        .map(|c| s.domain_of(c))
        .collect();
    assert_eq!(shown, domains);

    // `search --domain`: the operator's `www.docs.rs` and `docs.rs` find both links.
    for asked in ["docs.rs", "www.docs.rs"] {
        let hits = store
            .search_citations(&CitationQuery {
                domain: Some(asked.into()),
                ..CitationQuery::default()
            })
            .unwrap();
        let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls.len(), 2, "{asked}: {urls:?}");
    }
    assert!(
        cited
            .iter()
            .all(|u| domain(u).is_some_and(|d| domains.contains(&d)))
    );

    // Claims: the final answer is the same step's text.
    let claims = store.run_claims(run).unwrap();
    assert_eq!(claims.claims[0].text, "The answer is x.");
}
