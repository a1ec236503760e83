//! The console on small and ordinary terminals (issue 33 item 14): the help
//! overlay shows every `[console.keys]` name whole at 120 and 80 columns; the
//! header keeps `CTRL-R run` at 80 columns and `F1 help` at 60; Declare keeps
//! every field in sight at 80×24; the eval matrix keeps its total cost and wall
//! times at 80 columns; Ctrl-V's panes are never blank at 60×20 and break a
//! caution between words at 120×40; the demo's preview says the stub checks no
//! key, as `preview --demo` does.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::console_eval::listed;

use common::console::*;
use crossterm::event::KeyCode;
use io_harness::console::testing::{Msg, State, initial_state, update};

#[test]
fn help_shows_every_key_name_whole() {
    for (w, h) in [(120, 40), (80, 24)] {
        let mut s = state();
        update(&mut s, key(KeyCode::F(1)));
        let mut seen = String::new();
        for _ in 0..s.keys.bindings.len() {
            seen.push_str(&screen(&s, w, h));
            update(&mut s, key(KeyCode::Down));
        }
        for b in &s.keys.bindings {
            let whole = format!(" {} ", b.name);
            assert!(
                seen.contains(&whole) || seen.contains(&format!(" {}│", b.name)),
                "{w}x{h}: {} cut\n{}",
                b.name,
                screen(&s, w, h)
            );
        }
    }
}

fn header(s: &State, w: u16, h: u16) -> String {
    screen(s, w, h).lines().next().unwrap().to_string()
}

#[test]
fn the_header_keeps_its_hints_on_narrow_terminals() {
    let s = state();
    let at80 = header(&s, 80, 24);
    assert!(at80.contains("CTRL-R run"), "{at80}");
    assert!(at80.contains("F3 Run"), "{at80}");
    let at60 = header(&s, 60, 20);
    assert!(
        at60.contains("F1 help") && at60.contains("CTRL-Q quit"),
        "{at60}"
    );
    // Every screen's key is still there.
    for k in ["F2", "F3", "F4", "F5"] {
        assert!(at60.contains(k), "{at60}");
    }
}

#[test]
fn declare_keeps_every_field_in_sight_at_80x24() {
    let config = r#"
provider = "anthropic"

[task]
goal = "Find the current io-harness release and say which version it is."
workspace = "/home/operator/projects/io-harness-notes/workspace"
verify_file = "README.md"
verify_contains = "install"

[web]
search = true
max_uses = 3
allowed_domains = ["docs.rs", "crates.io", "github.com"]
"#;
    let s = state_of(&loaded(config), LIVE);
    let shown = screen(&s, 80, 24);
    for label in ["provider", "workspace", "verify file", "verify contains"] {
        assert!(shown.contains(label), "{label}\n{shown}");
    }
    assert!(shown.contains("install"), "{shown}");
}

#[test]
fn the_eval_matrix_keeps_its_money_and_time_at_80_columns() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(5)));
    let (eval, report) = listed();
    update(&mut s, Msg::Evals(vec![eval]));
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, Msg::Eval(Ok(Box::new(report))));
    let shown = screen(&s, 80, 24);
    for head in [
        "mean cost",
        "total cost",
        "p50 wall",
        "p95 wall",
        "accuracy",
    ] {
        assert!(shown.contains(head), "{head}\n{shown}");
    }
    assert!(shown.contains("$0.034295"), "anthropic's total\n{shown}");
}

#[test]
fn side_by_side_panes_are_never_blank_and_cautions_break_between_words() {
    let mut s = state();
    update(&mut s, ctrl('v'));
    let wide = screen(&s, 120, 40);
    assert!(
        wide.contains("filters for its Responses API only"),
        "the caution broken between words\n{wide}"
    );
    let narrow = screen(&s, 60, 20);
    // Every vendor's pane has a title and at least one row that says something.
    let rows: Vec<&str> = narrow.lines().collect();
    for vendor in ["anthropic", "openai", "openrouter", "gemini"] {
        let at = rows
            .iter()
            .position(|r| r.contains(&format!("┌{vendor}")))
            .unwrap_or_else(|| panic!("no {vendor} pane\n{narrow}"));
        let next = rows.get(at + 1).copied().unwrap_or_default();
        let inner = next.trim_matches(|c| c == '"' || c == '│' || c == ' ');
        assert!(!inner.is_empty(), "{vendor}'s pane is blank\n{narrow}");
    }
}

#[test]
fn the_demo_preview_says_the_stub_checks_no_key() {
    let s = initial_state(&loaded(""), &demo_plan(&loaded("")), "demo").unwrap();
    let shown = screen(&s, 120, 40);
    assert!(!shown.contains("$ANTHROPIC_API_KEY"), "{shown}");
    assert!(
        shown.contains("x-api-key: (none: the stub vendor checks no key)"),
        "{shown}"
    );
}
