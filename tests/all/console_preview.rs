//! The Declare preview keeps what the declaration adds in view: lines the web
//! declaration adds are marked, local tool schemas fold to one line each (a key
//! unfolds them), the view anchors on the first added line, and side by side lists
//! every wire with its verdict. Drawn into a `TestBackend` at 120×40.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::{ctrl, focus, key, loaded, plan_with, screen};

use crossterm::event::KeyCode;
use io_harness::Vendor;
use io_harness::console::testing::State;
use io_harness::console::testing::initial_state;
use io_harness::console::testing::update;
use io_harness::core::endpoint::Endpoint;
use io_harness::core::vendor::Wire;

/// Six local tools: the five built-ins and spawn_agent (a roster is configured).
fn config() -> String {
    format!(
        "{}\n[[agent]]\nname = \"researcher\"\ndescription = \"looks things up\"\n",
        common::console::CONFIG
    )
}

fn state_with(endpoints: Vec<(Vendor, Endpoint)>) -> State {
    state_from(&config(), endpoints)
}

fn state_from(config: &str, endpoints: Vec<(Vendor, Endpoint)>) -> State {
    let loaded = loaded(config);
    initial_state(&loaded, &plan_with(&loaded, endpoints), "live").unwrap()
}

fn state() -> State {
    state_with(
        Vendor::ALL
            .iter()
            .map(|&v| (v, Endpoint::public(v)))
            .collect(),
    )
}

#[test]
fn six_local_tools_fold_and_the_web_entry_is_on_screen_at_120x40() {
    let mut s = state();
    let body = s.previews[0].text();
    assert_eq!(body.matches(" {…},").count(), 6, "{body}");
    let shown = screen(&s, 120, 40);
    assert!(
        shown.contains("+       \"type\": \"web_search_20250305\""),
        "{shown}"
    );
    insta::assert_snapshot!("preview_single_120x40", shown);
    // Unfolded, the schemas are long, and the view still anchors on the web entry.
    update(&mut s, ctrl('o'));
    assert!(!s.previews[0].text().contains("{…}"));
    let shown = screen(&s, 120, 40);
    assert!(shown.contains("web_search_20250305"), "{shown}");
    assert!(shown.contains("\"allowed_domains\""), "{shown}");
}

#[test]
fn side_by_side_lists_every_wire_and_keeps_each_web_entry_in_view() {
    let mut s = state();
    update(&mut s, ctrl('v'));
    let shown = screen(&s, 120, 40);
    for wire in Wire::ALL {
        assert!(
            shown.contains(&wire.label()),
            "{} missing:\n{shown}",
            wire.label()
        );
    }
    assert!(
        shown.contains("✗ refused — allow-list: its web plugin takes no domain filter"),
        "{shown}"
    );
    // Each vendor that carries it shows its web part without scrolling.
    assert!(shown.contains("web_search_20250305"), "{shown}");
    assert!(shown.contains("\"web_search_options\""), "{shown}");
    insta::assert_snapshot!("preview_side_by_side_120x40", shown);
}

#[test]
fn the_configured_wire_is_previewed_and_marked() {
    let s = state_with(vec![
        (
            Vendor::Anthropic,
            Endpoint::public(Vendor::Anthropic).with_wire(Wire::Anthropic2026),
        ),
        (
            Vendor::OpenAi,
            Endpoint::public(Vendor::OpenAi).with_wire(Wire::OpenAiResponses),
        ),
        (
            Vendor::OpenRouter,
            Endpoint::public(Vendor::OpenRouter).with_wire(Wire::OpenRouterServerTools),
        ),
    ]);
    let texts: Vec<String> = s.previews.iter().map(|p| p.text()).collect();
    assert!(texts[0].contains("web_search_20260318"), "{}", texts[0]);
    assert!(texts[1].starts_with("POST https://api.openai.com/v1/responses"));
    assert!(texts[2].contains("openrouter:web_search"), "{}", texts[2]);
    let mut s = s;
    update(&mut s, ctrl('v'));
    let shown = screen(&s, 120, 40);
    assert!(shown.contains("▸ openai · api = \"responses\""), "{shown}");
    assert!(
        shown.contains("openrouter (api = \"server-tools\") ✓"),
        "{shown}"
    );
}

#[test]
fn an_edit_brings_the_declaration_back_into_view() {
    let mut s = state();
    update(&mut s, key(KeyCode::PageDown));
    assert_eq!(s.preview_scroll, 10);
    // Any edit: toggle fetch.
    for _ in 0..12 {
        if s.form.focus.label() == "fetch" {
            break;
        }
        update(&mut s, key(KeyCode::Tab));
    }
    update(&mut s, key(KeyCode::Enter));
    assert!(s.form.fetch);
    assert_eq!(s.preview_scroll, 0);
    // The web part of the body is in view (issue 27: a block taller than the
    // pane is shown from the body, not from fetch's beta header) …
    let shown = screen(&s, 120, 40);
    assert!(shown.contains("\"type\": \"web_fetch_"), "{shown}");
    // … and the header is a scroll up.
    for _ in 0..3 {
        update(&mut s, key(KeyCode::PageUp));
    }
    let shown = screen(&s, 120, 40);
    assert!(
        shown.contains("+ anthropic-beta: web-fetch-2025-09-10"),
        "{shown}"
    );
}

/// A goal in wide characters (two columns each) wraps by columns, not by
/// characters: every character of it is on screen, none cut off at the edge.
#[test]
fn a_goal_in_wide_characters_wraps_by_display_width() {
    let goal = "東京の天気".repeat(12);
    let text = config().replace(
        "Find the current io-harness release and say which version it is.",
        &goal,
    );
    let all = Vendor::ALL.iter().map(|&v| (v, Endpoint::public(v)));
    let s = state_from(&text, all.collect());
    let shown = screen(&s, 120, 40);
    // The preview pane's rows from the message content to the line closing it.
    let pane: Vec<&str> = shown
        .lines()
        .filter_map(|l| l.rsplit_once("││").map(|(_, right)| right))
        .skip_while(|r| !r.contains("\"content\":"))
        .take_while(|r| !r.trim_start().starts_with('}'))
        .collect();
    let shown_goal: String = pane.concat();
    assert_eq!(shown_goal.matches('京').count(), 12, "{shown}");
}

/// OpenRouter's search tool silently ignores `excluded_domains` with OpenAI's native
/// search, so with its default model (`openai/gpt-5.2`) a block-list is refused
/// there; the every-wire list says so too instead of "carried" beside a pane that
/// refuses.
#[test]
fn the_every_wire_list_knows_a_refusal_that_depends_on_the_model() {
    let text = config().replace(
        "allowed_domains = [\"docs.rs\", \"crates.io\"]",
        "blocked_domains = [\"evil.test\"]",
    );
    let tools = Endpoint::public(Vendor::OpenRouter).with_wire(Wire::OpenRouterServerTools);
    let mut s = state_from(&text, vec![(Vendor::OpenRouter, tools)]);
    assert!(s.previews[2].request.is_err(), "the pane refuses");
    update(&mut s, ctrl('v'));
    let shown = screen(&s, 120, 40);
    let row = shown
        .lines()
        .find(|l| l.contains("openrouter · api = \"server-tools\""))
        .unwrap();
    assert!(
        row.contains("✗ refused — block-list with openai/gpt-5.2: OpenRouter documents"),
        "{shown}"
    );
}

/// The conversation field cycles flattened → transcript → cached (5m, 1h), and the
/// preview is recomputed with it: caching marks the prefix in the body.
#[test]
fn the_conversation_field_cycles_and_the_preview_follows() {
    let mut s = state();
    focus(&mut s, "conversation");
    assert_eq!(s.form.value(s.form.focus), "flattened");
    assert!(!s.previews[0].text().contains("cache_control"));
    let mut seen = Vec::new();
    for _ in 0..4 {
        update(&mut s, key(KeyCode::Enter));
        seen.push(s.form.value(s.form.focus));
    }
    assert_eq!(
        seen,
        [
            "transcript",
            "transcript · cache 5m",
            "transcript · cache 1h",
            "flattened"
        ]
    );
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, key(KeyCode::Enter));
    let body = s.previews[0].text();
    assert!(body.contains("\"cache_control\""), "{body}");
    assert!(screen(&s, 120, 40).contains("conversation transcript · cache 5m"));
}

/// `[web] x_search` (xAI's) is said on the Declare form beside search, with the
/// accounts and days it is narrowed to; an agent's narrowed web names it; the xAI
/// preview carries the `x_search` tool and every other vendor refuses it in the
/// side-by-side.
#[test]
fn the_declare_form_says_x_search_with_its_handles_and_days() {
    let text = r#"
provider = "xai"

[task]
goal = "What did xAI post about Grok this week?"

[web]
search = true
x_search = true
x_handles = { allow = ["xai", "@grok"] }
x_dates = { from = "2025-10-01", to = "2025-10-10" }

[[agent]]
name = "researcher"
description = "looks things up on X"
web = { search = false, x_search = true }
"#;
    let all = Vendor::ALL.iter().map(|&v| (v, Endpoint::public(v)));
    let mut s = state_from(text, all.collect());
    assert_eq!(
        s.form.value(io_harness::console::testing::Field::Search),
        "on · X search only @xai @grok 2025-10-01..2025-10-10"
    );
    let xai = Vendor::ALL.iter().position(|&v| v == Vendor::Xai).unwrap();
    let body = s.previews[xai].text();
    assert!(body.contains("\"type\": \"x_search\""), "{body}");
    assert!(body.contains("\"from_date\": \"2025-10-01\""), "{body}");
    focus(&mut s, "verify contains");
    let shown = screen(&s, 100, 30);
    assert!(shown.contains("search on · X search only @xai"), "{shown}");
    assert!(shown.contains("@grok 2025-10-01..2025-10-10"), "{shown}");
    assert!(shown.contains("(narrowed: X search)"), "{shown}");
    insta::assert_snapshot!("declare_x_search_100x30", shown);
    // Side by side: xAI carries it, every other vendor refuses it.
    update(&mut s, ctrl('v'));
    let shown = screen(&s, 120, 40);
    let refused = "✗ refused — x_search: it has no X search tool (x_search is xAI's)";
    assert_eq!(
        shown.matches(refused).count(),
        Wire::ALL.len() - 1,
        "{shown}"
    );
    let row = shown.lines().find(|l| l.contains("xai · api")).unwrap();
    assert!(row.contains("✓ carried"), "{shown}");
    assert!(
        shown.contains("provider \"perplexity\" cannot search X"),
        "{shown}"
    );
}
