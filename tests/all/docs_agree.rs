//! The documents say what the binary does (issue 33 item 15): the figures
//! table in docs/compare.md names exactly the fields `runs --json` and
//! `compare --json` give a run, and both name its citations `citations` (with
//! the same count); io.toml.example has a table for every vendor; Ctrl-V's help
//! and the docs count four vendors, not three; `export otlp` exits as
//! docs/telemetry.md says; `citations` shows a Google redirect as docs/vendors.md
//! does.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use crate::common;

use common::cli::{at, json, place, run};
use io_harness::Vendor;
use pretty_assertions::assert_eq;

fn doc(name: &str) -> String {
    std::fs::read_to_string(format!("{}/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The field names in the first column of docs/compare.md's figures table.
fn table_fields() -> BTreeSet<String> {
    let page = doc("docs/compare.md");
    let start = page.find("| field | what it counts |").unwrap();
    page[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| {
            let first = l.split('|').nth(1).unwrap_or("").to_string();
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_figures_table_names_the_json_fields_and_citations_are_named_once() {
    let dir = place();
    let (code, _, err) =
        run(at(dir.path()).args(["run", "--demo", "--providers", "anthropic,openai"]));
    assert_eq!(code, 0, "{err}");
    let runs = json(dir.path(), &["runs", "--json"]);
    let compared = json(dir.path(), &["compare", "1", "--json"]);
    let fields = table_fields();
    // The run's own columns, not figures.
    let not_figures = [
        "run_id",
        "started_at",
        "finished_at",
        "goal",
        "provider",
        "model",
        "wire",
        "outcome",
        "outcome_detail",
        "parent_run_id",
        "session_id",
        "group_id",
        "user",
        "host",
        "by",
        "citation_count",
        "vendor",
        "domains",
        "answer",
        "workspace",
    ];
    for (what, row) in [
        ("runs --json", &runs[0]),
        ("compare --json", &compared["runs"][0]),
    ] {
        let keys: BTreeSet<String> = row
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| !not_figures.contains(&k.as_str()))
            .cloned()
            .collect();
        assert_eq!(
            keys, fields,
            "{what}'s figures against docs/compare.md's table"
        );
    }
    for r in compared["runs"].as_array().unwrap() {
        let listed = runs
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["run_id"] == r["run_id"])
            .unwrap();
        assert_eq!(listed["citations"], r["citations"], "run {}", r["run_id"]);
        // The former name, kept for scripts, says the same.
        assert_eq!(listed["citation_count"], r["citations"]);
    }
}

#[test]
fn the_example_has_a_table_for_every_vendor_and_help_counts_four() {
    let example = doc("io.toml.example");
    for v in Vendor::ALL {
        assert!(
            example.contains(&format!("\n[providers.{v}]\n")),
            "io.toml.example has no [providers.{v}]"
        );
    }
    let config = io_harness::Config::parse(&example, "io.toml.example").unwrap();
    assert_eq!(config.model(Vendor::Gemini), "gemini-3.5-flash");
    for page in ["README.md", "docs/console.md", "docs/web-access.md"] {
        assert!(!doc(page).contains("all three"), "{page} says all three");
    }
}

#[test]
fn export_to_a_closed_port_exits_as_documented() {
    let dir = place();
    let (code, _, err) = run(at(dir.path()).args(["run", "--demo"]));
    assert_eq!(code, 0, "{err}");
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        dir.path().join("io.toml"),
        format!("[telemetry]\notlp_endpoint = \"http://127.0.0.1:{port}\"\n"),
    )
    .unwrap();
    let (code, _, err) = run(at(dir.path()).args(["export", "otlp", "1"]));
    let page = doc("docs/telemetry.md");
    assert!(
        page.contains("and 1 when the collector could not take the spans"),
        "docs/telemetry.md says another code"
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("could not take the spans"), "{err}");
    assert!(!err.contains("tracing paused"), "a live run's words: {err}");
    // No endpoint at all: refused before anything is sent, exit 2.
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let (code, _, err) = run(at(dir.path()).args(["export", "otlp", "1"]));
    assert_eq!(code, 2, "{err}");
}

#[test]
fn citations_show_a_google_redirect_as_documented() {
    let dir = place();
    let (code, _, err) = run(at(dir.path()).args(["run", "--demo", "--provider", "gemini"]));
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = run(at(dir.path()).args(["citations", "1"]));
    let said = "crates.io · via Google redirect (vertexaisearch.cloud.google.com)";
    assert!(
        doc("docs/vendors.md").contains("via Google redirect (vertexaisearch.cloud.google.com)")
    );
    assert!(out.contains(said), "{out}");
}
