//! Claims (issue 29, items 1–2): what each source was cited for, read from each
//! vendor's recorded answer (tests/fixtures/<vendor>/); the one definition of a
//! sentence; a run's cited share, verified share and unsupported count on a
//! constructed run, the same through `Store::figures`; the lexical overlap.

#![allow(clippy::unwrap_used)]

use io_harness::core::claims::{ClaimFigures, claim_wording, overlap, sentences};
use io_harness::core::price::PriceTable;
use io_harness::core::vendor::{Vendor, Wire};
use io_harness::core::wire;
use io_harness::store::verdicts::VerdictRow;
use io_harness::store::{CHECKPOINT_FORMAT, Checkpoint, NewRun, ProviderCall, StepRecord, Store};
use io_harness::{Citation, Claim, Completion, RunId, TaskContract, Verification, WireResponse};
use pretty_assertions::assert_eq;

fn decoded(vendor: Vendor, path: &str) -> Completion {
    let file = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    let body = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let response = WireResponse {
        status: 200,
        headers: Vec::new(),
        body,
    };
    wire::decode(vendor, &response).unwrap()
}

fn decoded_wire(w: Wire, path: &str) -> Completion {
    let file = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    let body = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let response = WireResponse {
        status: 200,
        headers: Vec::new(),
        body,
    };
    wire::decode_wire(w, &response).unwrap()
}

fn texts(c: &Completion) -> Vec<&str> {
    c.claims.iter().map(|k| k.text(&c.text)).collect()
}

#[test]
fn anthropic_a_text_block_with_citations_is_its_claim() {
    let c = decoded(Vendor::Anthropic, "anthropic/search-ok.json");
    assert_eq!(
        texts(&c),
        [
            "Caroline Ellison has been sentenced to two years in prison and ordered to pay $11 billion in restitution."
        ]
    );
    assert_eq!(c.claims[0].urls, ["https://acecomments.mu.nu/?post=411647"]);
    // The blocks before it carry no citations: no claim, though in the text.
    assert!(c.text.starts_with("I'll search for today's tech news."));
}

#[test]
fn openai_chat_and_responses_claims_are_the_annotation_spans_in_characters() {
    let c = decoded(Vendor::OpenAi, "openai/search-ok.json");
    assert_eq!(c.claims.len(), 2);
    // start_index/end_index count characters: the span is the link OpenAI put in.
    let chars: String = c.text.chars().skip(112).take(263 - 112).collect();
    assert_eq!(texts(&c)[0], chars);
    assert!(
        texts(&c)[0].starts_with("([forbes.com]("),
        "{:?}",
        texts(&c)
    );
    // The wording a check looks for is the sentence, the link left out.
    let wording = claim_wording(&c.text, &c.claims[0]);
    assert_eq!(
        wording.trim(),
        "AI is significantly enhancing diagnostic accuracy and early disease detection."
    );

    let r = decoded_wire(Wire::OpenAiResponses, "openai/responses-web-search.json");
    assert_eq!(r.claims.len(), 5);
    for (k, text) in r.claims.iter().zip(texts(&r)) {
        assert!(text.starts_with("([axios.com]("), "{text}");
        assert_eq!(k.urls.len(), 1);
        assert!(text.contains(&k.urls[0]), "{text}");
    }
}

#[test]
fn openrouter_zero_or_impossible_indices_claim_the_whole_text() {
    let c = decoded(Vendor::OpenRouter, "openrouter/web-ok.json");
    assert_eq!(
        c.claims,
        [Claim {
            start: 0,
            end: c.text.len(),
            urls: vec![
                "https://github.com/pydantic/pydantic-ai".into(),
                "https://pydantic.dev/pydantic-ai".into()
            ],
        }]
    );
    // 100..200 of a 35-character answer: not a span of it, so the whole text.
    let d = decoded(Vendor::OpenRouter, "openrouter/web-ok-docs-shape.json");
    assert_eq!((d.claims[0].start, d.claims[0].end), (0, d.text.len()));
}

#[test]
fn gemini_claims_are_the_grounding_support_segments() {
    let c = decoded(Vendor::Gemini, "gemini/search_grounded.json");
    let v: serde_json::Value = serde_json::from_slice(
        &std::fs::read(format!(
            "{}/tests/fixtures/gemini/search_grounded.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    let g = &v["candidates"][0]["groundingMetadata"];
    let segments: Vec<&str> = g["groundingSupports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["segment"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts(&c), segments);
    // Byte offsets: the segment after "°F." lands on the same text.
    let chunk = |i: usize| g["groundingChunks"][i]["web"]["uri"].as_str().unwrap();
    assert_eq!(c.claims[2].urls, [chunk(1)]);
    assert_eq!(c.claims[0].start, 55);
}

#[test]
fn gemini_a_segment_whose_offsets_miss_its_text_is_found_by_its_text() {
    let body = serde_json::json!({"candidates": [{"content": {"parts": [{"text": "Ça va. Oui, 69°F today."}]},
    "finishReason": "STOP",
    "groundingMetadata": {
        "groundingChunks": [{"web": {"uri": "https://a.test/", "title": "a"}}],
        "groundingSupports": [
            {"segment": {"endIndex": 7, "text": "Ça va."}, "groundingChunkIndices": [0]},
            {"segment": {"startIndex": 2, "endIndex": 9, "text": "69°F today."}, "groundingChunkIndices": [0, 7]}
        ]}}]});
    let c = wire::decode(
        Vendor::Gemini,
        &WireResponse {
            status: 200,
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
        },
    )
    .unwrap();
    assert_eq!(texts(&c), ["Ça va.", "69°F today."]);
    assert_eq!(
        c.claims[1].urls,
        ["https://a.test/"],
        "index 7 names no chunk"
    );
}

#[test]
fn a_sentence_is_a_unicode_sentence_trimmed() {
    let text =
        "  Ça va. The crate is 0.22.0! Is it?\n- one item\n\n## Heading\nDr. Smith said so.  ";
    let got: Vec<&str> = sentences(text).iter().map(|(s, e)| &text[*s..*e]).collect();
    assert_eq!(
        got,
        [
            "Ça va.",
            "The crate is 0.22.0!",
            "Is it?",
            "- one item",
            "## Heading",
            // UAX #29 breaks after an abbreviation before a capital: two sentences.
            "Dr.",
            "Smith said so."
        ]
    );
    assert!(sentences(" \n\t ").is_empty());
    assert!(sentences("").is_empty());
}

fn record(store: &Store, run: RunId, step: u32, text: &str, cites: &[Citation], claims: &[Claim]) {
    let checkpoint = Checkpoint {
        format: CHECKPOINT_FORMAT,
        step,
        observations: Vec::new(),
        tokens_used: 0,
        continuations: 0,
        contract: TaskContract::workspace("g", ".", Verification::None),
    };
    let record = StepRecord {
        step,
        attempt: 1,
        call: &ProviderCall {
            provider: Vendor::OpenAi,
            model: "m".into(),
            ..ProviderCall::default()
        },
        server_tools: &[],
        citations: cites,
        claims,
        text,
        observations: &[],
        exchange: None,
        search_suggestions: None,
    };
    store
        .record_step_whole(run, &record, &checkpoint, None)
        .unwrap();
}

fn cite(url: &str) -> Citation {
    Citation {
        url: url.into(),
        title: None,
        cited_text: None,
    }
}

fn check(run: RunId, url: &str, verdict: &str) -> VerdictRow {
    VerdictRow {
        run_id: run,
        step: 2,
        url: url.into(),
        verdict: verdict.parse().unwrap(),
        detail: None,
        overlap: None,
        resolved_url: None,
        checked_at: String::new(),
    }
}

#[test]
fn the_three_figures_of_a_constructed_run_and_figures_reads_the_same() {
    let store = Store::open_in_memory().unwrap();
    let run = store.begin_run(&NewRun::default()).unwrap();
    let (a, b) = ("https://a.test/", "https://b.test/");
    // An earlier step's claims are not the final answer's.
    record(
        &store,
        run,
        1,
        "Searching.",
        &[cite(a)],
        &[claim(0, 10, &[a])],
    );
    let text = "Rust 1.85 shipped in 2025. It has edition 2024. Nobody cited this.";
    record(
        &store,
        run,
        2,
        text,
        &[cite(a), cite(b)],
        &[claim(0, 26, &[a]), claim(27, 47, &[a, b])],
    );
    let c = store.run_claims(run).unwrap();
    let shape: Vec<(u32, &str, usize)> = c
        .claims
        .iter()
        .map(|s| (s.step, s.text.as_str(), s.citations.len()))
        .collect();
    assert_eq!(
        shape,
        [
            (2, "Rust 1.85 shipped in 2025.", 1),
            (2, "It has edition 2024.", 2),
            (2, "Nobody cited this.", 0)
        ]
    );
    let unchecked = ClaimFigures {
        cited_share: Some(2.0 / 3.0),
        verified_share: None,
        unsupported: None,
        ..ClaimFigures::default()
    };
    assert_eq!(c.figures, unchecked);
    let f = store.figures(run, &PriceTable::default()).unwrap();
    assert_eq!(f.claims(), unchecked);

    store
        .record_verdicts(run, &[check(run, a, "found"), check(run, b, "not_found")])
        .unwrap();
    let c = store.run_claims(run).unwrap();
    assert_eq!(
        c.claims[1].citations[1].verdict.map(|v| v.as_str()),
        Some("not_found")
    );
    let half = ClaimFigures {
        cited_share: Some(2.0 / 3.0),
        verified_share: Some(0.5),
        // Sentence 2 has a found source: supported.
        unsupported: Some(0),
        ..ClaimFigures::default()
    };
    assert_eq!(c.figures, half);
    assert_eq!(
        store.figures(run, &PriceTable::default()).unwrap().claims(),
        half
    );

    store
        .record_verdicts(run, &[check(run, a, "unreachable")])
        .unwrap();
    // An unreachable page says nothing about its source: `a` is unchecked
    // again, so only `b` (read, quote not found) counts, and no sentence has
    // every source read and none supporting it (issue 33, item 7).
    let none = store.run_claims(run).unwrap().figures;
    assert_eq!(
        (none.verified_share, none.unsupported),
        (Some(0.0), Some(0))
    );

    // A resumed step recorded again replaces its claims.
    record(&store, run, 2, text, &[], &[]);
    let again = store.run_claims(run).unwrap();
    assert!(again.claims.iter().all(|s| s.citations.is_empty()));
    assert_eq!(again.figures.cited_share, Some(0.0));
}

fn claim(start: usize, end: usize, urls: &[&str]) -> Claim {
    Claim {
        start,
        end,
        urls: urls.iter().map(|u| u.to_string()).collect(),
    }
}

#[test]
fn overlap_is_the_share_of_content_words_in_the_best_window() {
    let claim = "The harness records every citation in SQLite.";
    // harness, records, every, citation, sqlite: 4 of 5 near each other.
    let page = "Intro text. io-harness records each citation in a SQLite store. Unrelated words follow here.";
    assert_eq!(overlap(claim, page), Some(0.8));
    // The same words spread far apart are not one window.
    let far = format!(
        "harness {} records {} citation",
        "x ".repeat(50),
        "y ".repeat(50)
    );
    assert_eq!(overlap(claim, &far), Some(0.2));
    assert_eq!(overlap(claim, ""), Some(0.0));
    assert_eq!(overlap("the of and", "the of and"), None);
}

#[test]
fn a_gemini_run_stored_before_claims_is_backfilled_from_its_segments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    drop(Store::open_at_schema(&path, 10).unwrap());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (started_at, goal, provider, model) VALUES ('2026-01-01T00:00:00Z', 'g', 'gemini', 'm');
             INSERT INTO runs (started_at, goal, provider, model) VALUES ('2026-01-01T00:00:00Z', 'g', 'anthropic', 'm');
             INSERT INTO steps (run_id, step, text, observations_json) VALUES (1, 1, 'Ça va. It is 69°F today.', '[]');
             INSERT INTO steps (run_id, step, text, observations_json) VALUES (2, 1, 'It is 69°F today.', '[]');
             INSERT INTO citations (run_id, step, url, title, cited_text) VALUES (1, 1, 'https://a.test/', NULL, 'It is 69°F today.');
             INSERT INTO citations (run_id, step, url, title, cited_text) VALUES (1, 1, 'https://b.test/', NULL, 'not in the answer');
             INSERT INTO citations (run_id, step, url, title, cited_text) VALUES (2, 1, 'https://a.test/', NULL, 'It is 69°F today.');",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let claims = store.claims(RunId(1)).unwrap();
    assert_eq!(claims.len(), 1, "{claims:?}");
    // Byte offsets: "Ça va. " is 8 bytes.
    assert_eq!(
        claims[0].claim,
        claim(8, 8 + "It is 69°F today.".len(), &["https://a.test/"])
    );
    assert_eq!(claims[0].text, "It is 69°F today.");
    let figures = store.run_claims(RunId(1)).unwrap().figures;
    assert_eq!(figures.cited_share, Some(0.5));
    // Anthropic's stored quote is the page's, not the answer's: not backfilled.
    assert!(store.claims(RunId(2)).unwrap().is_empty());
}
