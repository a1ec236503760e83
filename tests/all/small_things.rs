//! The small things of issue 33 item 14 a new user meets on the command line:
//! `prices` lines up however long a model's name; `config` with no io.toml says
//! where it looked; `search` lists one place once; an eval's mean cost a run is
//! rounded, not cut.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cli::{at, bin, json, place, run};
use pretty_assertions::assert_eq;

#[test]
fn prices_line_up_on_a_long_model_name() {
    let dir = place();
    std::fs::write(
        dir.path().join("io.toml"),
        "[prices.\"a-model-whose-name-is-longer-than-eighteen\"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n",
    )
    .unwrap();
    let (code, out, err) = run(at(dir.path()).arg("prices"));
    assert_eq!(code, 0, "{err}");
    // Every row's "read on" cell starts where its header does (a date, or —).
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with("US dollars"))
        .collect();
    let col = |l: &str, b: usize| l[..b].chars().count();
    let header = col(lines[0], lines[0].find("read on").unwrap());
    let date = regex::Regex::new(r"\d{4}-\d{2}-\d{2}").unwrap();
    for l in &lines[1..] {
        let cell: String = l.chars().skip(header).take(10).collect();
        assert!(
            date.is_match(&cell) || cell.starts_with('—'),
            "{l:?}: {cell:?} under \"read on\"\n{out}"
        );
        if let Some(m) = date.find(l) {
            assert_eq!(col(l, m.start()), header, "{out}");
        }
    }
    assert!(
        out.contains("a-model-whose-name-is-longer-than-eighteen"),
        "{out}"
    );
}

#[test]
fn config_with_no_io_toml_says_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(bin().current_dir(dir.path()).arg("config"));
    assert_eq!(code, 0, "{err}");
    let looked = dir.path().join("io.toml");
    assert!(
        err.contains(&format!(
            "no io.toml found: looked for {}",
            looked.display()
        )),
        "{err}"
    );
    // With one, nothing of the kind.
    let (_, _, err) = run(at(place().path()).arg("config"));
    assert!(!err.contains("no io.toml found"), "{err}");
}

#[test]
fn search_lists_a_place_once() {
    let dir = place();
    let (code, _, err) = run(at(dir.path()).args(["run", "--demo"]));
    assert_eq!(code, 0, "{err}");
    let hits = json(dir.path(), &["search", "crates.io", "--json"]);
    let places: Vec<(u64, u64, String, String)> = hits
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| !h["url"].is_null())
        .map(|h| {
            (
                h["run_id"].as_u64().unwrap(),
                h["step"].as_u64().unwrap(),
                h["kind"].as_str().unwrap().to_string(),
                h["url"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut once = places.clone();
    once.dedup();
    assert_eq!(places, once, "{hits:#}");
    // Step 1 cited crates.io twice (two quotes): one hit.
    assert_eq!(
        places
            .iter()
            .filter(|p| p.1 == 1 && p.3.contains("crates.io"))
            .count(),
        1
    );
    // The limit counts hits, not indexed rows.
    let two = json(
        dir.path(),
        &["search", "crates.io", "--json", "--limit", "2"],
    );
    assert_eq!(two.as_array().unwrap().len(), 2);
}

#[test]
fn an_evals_mean_cost_is_rounded() {
    let dir = place();
    let (code, out, err) = run(at(dir.path()).args(["eval", "--demo", "--json"]));
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut checked = 0;
    for v in report["vendors"].as_array().unwrap() {
        let (total, runs) = (v["cost_micro_usd"].as_u64(), v["runs"].as_u64().unwrap());
        if let (Some(total), true) = (total, runs > 0) {
            let mean = (total as f64 / runs as f64).round() as u64;
            assert_eq!(v["mean_cost_micro_usd"].as_u64(), Some(mean), "{v}");
            checked += 1;
        }
    }
    assert!(checked >= 2, "{out}");
}
