//! Issue 14 in the console: the Declare screen shows the active `[policy]` by
//! layer and the `from_policy` projection, a projection that fails shows at the
//! field (and nothing runs), and the approval prompt offers "allow for this run".

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::console::{key, screen};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use io_harness::config::{Config, Loaded, Scope};
use io_harness::console::testing::update;
use io_harness::console::testing::{Effect, Msg, State};
use io_harness::{Answer, Vendor};

fn scope(layer: &str, path: &str, text: &str) -> Scope {
    Scope {
        layer: layer.into(),
        path: path.into(),
        text: text.into(),
    }
}

fn state_of(config: Config) -> State {
    let loaded = Loaded { config, path: None };
    common::console::state_of(&loaded, "live")
}

const USER: &str = "[policy]\ndeny = [\"read:.env\"]\n";
const PROJECT: &str = "[task]\ngoal = \"g\"\n[policy]\nallow = [\"write:src/**\", \"net:docs.rs:443\", \"net:crates.io:443\"]\ndeny = [\"net:*.example.com\"]\n[web]\nsearch = true\nfrom_policy = true\n";

#[test]
fn declare_shows_the_rules_by_layer_and_the_projection() {
    let config = Config::from_scopes(vec![
        scope("user", "user/io.toml", USER),
        scope("project", "io.toml", PROJECT),
    ])
    .unwrap();
    let s = state_of(config);
    assert_eq!(s.form.allowed, ["docs.rs", "crates.io"]);
    assert_eq!(s.form.blocked, ["*.example.com"]);
    let shown = screen(&s, 140, 40);
    insta::assert_snapshot!("declare_policy_140x40", shown);
    // Every pane's text, wrapped or not, is on screen somewhere.
    let flat: String = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "user rules deny read:.env",
        "project rules deny net:*.example.com",
        "docs.rs, crates.io (from [policy])",
    ] {
        assert!(flat.contains(want), "{want} not in\n{shown}");
    }
    // The preview says where each host came from.
    let p = s
        .previews
        .iter()
        .find(|p| p.vendor == Vendor::Anthropic)
        .unwrap();
    assert!(p.cautions.iter().any(|c| c.contains(
        "allowed_domains docs.rs ← allow \"net:docs.rs:443\" in layer \"project\" (io.toml:4)"
    )));
}

#[test]
fn the_projected_lists_are_not_edited_in_the_form() {
    let config = Config::from_scopes(vec![scope("project", "io.toml", PROJECT)]).unwrap();
    let mut s = state_of(config);
    assert!(
        s.form
            .set(io_harness::console::testing::Field::Allowed, "evil.test")
            .unwrap_err()
            .contains("[policy]")
    );
    assert_eq!(s.form.allowed, ["docs.rs", "crates.io"]);
    let _ = &mut s;
}

#[test]
fn a_from_policy_error_shows_at_the_field_and_nothing_runs() {
    let text = "[task]\ngoal = \"g\"\n[policy]\nask = [\"net:docs.rs\"]\n[web]\nsearch = true\nfrom_policy = true\n";
    // The command line refuses the file outright…
    assert!(Config::from_scopes(vec![scope("project", "io.toml", text)]).is_err());
    // …the console opens and says why at the field.
    let config = Config::from_scopes_lenient(vec![scope("project", "io.toml", text)]).unwrap();
    let mut s = state_of(config);
    let shown = screen(&s, 140, 40);
    // Under the allowed-domains field, in the form pane (the left column).
    let at = shown
        .lines()
        .position(|l| l.contains("allowed domains none (from [policy])"))
        .unwrap();
    assert!(
        shown
            .lines()
            .nth(at + 1)
            .unwrap()
            .starts_with("\"│[web] from_policy = true: policy rule ask_net(\"docs.rs\")"),
        "{shown}"
    );
    let effects = update(
        &mut s,
        Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)),
    );
    assert_eq!(effects, vec![]);
    let (notice, is_error) = s.notice.clone().unwrap();
    assert!(
        is_error && notice.contains("ask_net(\"docs.rs\")"),
        "{notice}"
    );
}

#[test]
fn the_approval_prompt_offers_allow_for_this_run() {
    let config = Config::from_scopes(vec![scope("project", "io.toml", PROJECT)]).unwrap();
    let mut s = state_of(config);
    let ask = io_harness::ApprovalRequest {
        act: io_harness::Act::Write,
        target: "notes.md".into(),
        tool: "write_file".into(),
        why: "the built-in fallback ask(\"**\")".into(),
    };
    update(&mut s, Msg::Approval(ask));
    let shown = screen(&s, 80, 24);
    assert!(shown.contains("a allow for this run"), "{shown}");
    assert!(
        shown.contains("why: the built-in fallback ask(\"**\")"),
        "{shown}"
    );
    assert_eq!(
        update(&mut s, key(KeyCode::Char('a'))),
        vec![Effect::Answer(Answer::ForRun)]
    );
}
