//! `eval` on the field's published sets through the real binary (issue 36):
//! the subset (`--limit`, `--sample --seed`) and the file's hash reach every
//! report; BrowseComp's eval is private by default — its questions and answers
//! stay out of the search index and the OTLP export, and the report says so;
//! `--judge VENDOR` grades each answered run on the stub, its figures worked
//! out by hand, its cost counted in the total and under `--max-usd`.

#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common::cli::{at, json, place, run};
use io_harness::core::eval::Subset;
use io_harness::core::vendor::Vendor;
use io_harness::stub::{Script, ScriptedResponse, StubHandle, StubVendor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sets")
        .join(name)
}

/// `name` copied into a fresh place.
fn placed(name: &str) -> tempfile::TempDir {
    let dir = place();
    std::fs::copy(fixture(name), dir.path().join(name)).unwrap();
    dir
}

fn report(dir: &Path, args: &[&str]) -> Value {
    let (code, out, err) = run(at(dir).args(args));
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The question ids of a report, each once, in order.
fn ids(r: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for q in r["questions"].as_array().unwrap() {
        let id = q["id"].as_str().unwrap().to_string();
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

fn sha256(path: &Path) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, &std::fs::read(path).unwrap());
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_subset_is_reproducible_and_every_report_names_it_with_the_files_hash() {
    let name = "simple_qa_test_set.sample.csv";
    let dir = placed(name);
    let hash = sha256(&dir.path().join(name));
    let args = |extra: &[&'static str]| {
        let mut a = vec!["eval", name, "--demo", "--providers", "anthropic"];
        a.extend(extra);
        a
    };
    let r = report(
        dir.path(),
        &args(&["--sample", "2", "--seed", "7", "--json"]),
    );
    assert_eq!(r["set"], "simpleqa");
    assert_eq!(r["revision"], hash.as_str());
    assert_eq!(r["rows"], 4);
    assert_eq!(r["subset"], json!({"kind": "sample", "n": 2, "seed": 7}));
    assert_eq!(r["lower_bound"], true);
    assert_eq!(r["private"], false);
    let drawn: Vec<String> = Subset::Sample { n: 2, seed: 7 }
        .pick(4)
        .iter()
        .map(|i| format!("simpleqa-{i}"))
        .collect();
    assert_eq!(ids(&r), drawn);
    // The same draw again.
    let again = report(
        dir.path(),
        &args(&["--sample", "2", "--seed", "7", "--json"]),
    );
    assert_eq!(ids(&again), drawn);
    let first = report(dir.path(), &args(&["--limit", "3", "--json"]));
    assert_eq!(ids(&first), ["simpleqa-0", "simpleqa-1", "simpleqa-2"]);
    // The text, Markdown and CSV reports carry the set, the hash and the subset.
    let (code, text, err) = run(at(dir.path()).args(args(&["--sample", "2", "--seed", "7"])));
    assert_eq!(code, 0, "{err}");
    let line = format!(
        "set simpleqa · sha256 {} · 2 of 4 drawn with seed 7",
        &hash[..12]
    );
    assert!(text.contains(&line), "{text}");
    assert!(text.contains("anthropic  ≥"), "{text}");
    assert!(
        text.contains("a lower bound on the set's own grader"),
        "{text}"
    );
    assert!(
        text.contains("verifier: the quote found on the page fetched"),
        "{text}"
    );
    let (_, md, _) = run(at(dir.path()).args(args(&["--limit", "1", "--format", "markdown"])));
    assert!(
        md.contains(&format!(
            "set simpleqa · sha256 {} · the first 1 of 4",
            &hash[..12]
        )),
        "{md}"
    );
    let (_, csv, _) = run(at(dir.path()).args(args(&["--limit", "1", "--format", "csv"])));
    let row = csv.lines().nth(1).unwrap();
    assert!(
        row.starts_with(&format!(
            "{},simpleqa,{hash},the first 1 of 4,simpleqa-0,anthropic,",
            6
        )),
        "{row}"
    );
    // Nothing to run: refused before anything is recorded.
    let (code, _, err) = run(at(dir.path()).args(args(&["--limit", "0"])));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--limit 0 runs nothing"), "{err}");
    let (code, _, err) = run(at(dir.path()).args(args(&["--set", "trivia"])));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--set trivia: not a set eval reads"), "{err}");
}

#[test]
fn browsecomp_is_private_by_default_out_of_the_index_and_the_export() {
    let name = "browse_comp_test_set.sample.csv";
    let dir = placed(name);
    let base = [
        "eval",
        name,
        "--demo",
        "--providers",
        "anthropic",
        "--limit",
        "2",
    ];
    let (code, text, err) = run(at(dir.path()).args(base));
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains(
            "private: its questions and answers are kept out of the search index and exports"
        ),
        "{text}"
    );
    // Neither the decrypted question nor the goal is searchable.
    let hits = json(dir.path(), &["search", "football", "--json"]);
    assert_eq!(hits, json!([]), "{hits}");
    // The export leaves its runs out, and says so (the collector is never reached).
    let (_, _, err) = run(at(dir.path())
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        .args(["export", "otlp"]));
    assert!(err.contains("left out 2 runs of a private eval"), "{err}");
    // Made public on purpose, it is searchable like any eval.
    let mut public = base.to_vec();
    public.push("--private=false");
    let (code, text, err) = run(at(dir.path()).args(&public));
    assert_eq!(code, 0, "{err}");
    assert!(!text.contains("private:"), "{text}");
    let hits = json(dir.path(), &["search", "football", "--json"]);
    assert!(!hits.as_array().unwrap().is_empty(), "{hits}");
}

const ANSWERED: &str = r#"{"type":"message","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ANSWER"}],"stop_reason":"end_turn","usage":{"input_tokens":0,"output_tokens":0}}"#;
const GRADED: &str = r#"{"id":"c","object":"chat.completion","model":"gpt-5-search-api","choices":[{"index":0,"message":{"role":"assistant","content":"REPLY"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":10,"total_tokens":1010}}"#;

fn scripted(vendor: Vendor, matches: &str, body: String) -> ScriptedResponse {
    ScriptedResponse {
        vendor: Some(vendor),
        matches: Some(matches.into()),
        body: body.into_bytes(),
        ..ScriptedResponse::default()
    }
}

/// Anthropic answers SimpleQA's first three sample questions (right, "not
/// found", wrong) at no cost; OpenAI judges them (correct, not attempted,
/// incorrect) at a price.
async fn judged_stub() -> StubHandle {
    let answer = |m: &str, a: &str| scripted(Vendor::Anthropic, m, ANSWERED.replace("ANSWER", a));
    let grade = |m: &str, g: &str| {
        scripted(
            Vendor::OpenAi,
            m,
            GRADED.replace("REPLY", &format!("It is what it is.\\nGRADE: {g}")),
        )
    };
    let responses = vec![
        answer("Example Widget Prize", "It was Jane Q. Placeholder."),
        answer("Sample Bridge", "I could not find out."),
        answer("Example Songs", "It came out on 4 May 1999."),
        grade("<<<It was Jane", "CORRECT"),
        grade("<<<I could not", "NOT_ATTEMPTED"),
        grade("<<<It came out", "INCORRECT"),
    ];
    StubVendor::start(
        "127.0.0.1:0".parse().unwrap(),
        Script {
            responses,
            repeat: true,
            emulate_usage: false,
        },
    )
    .await
    .unwrap()
}

fn judged_place(stub: &StubHandle) -> tempfile::TempDir {
    let dir = placed("simple_qa_test_set.sample.csv");
    let mut toml = String::new();
    for v in [Vendor::Anthropic, Vendor::OpenAi] {
        toml.push_str(&format!(
            "[providers.{v}]\nbase_url = \"{}\"\napi_key_env = \"SETS_KEY\"\n",
            stub.base_url(v)
        ));
    }
    std::fs::write(dir.path().join("io.toml"), toml).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn a_judge_grades_each_answered_run_and_its_cost_is_the_evals() {
    let stub = judged_stub().await;
    let dir = judged_place(&stub);
    let eval = |extra: &[&str]| {
        let mut c = at(dir.path());
        c.env("SETS_KEY", "sk-test").args([
            "eval",
            "simple_qa_test_set.sample.csv",
            "--providers",
            "anthropic",
            "--limit",
            "3",
            "--jobs",
            "1",
        ]);
        c.args(extra);
        c
    };
    let (code, out, err) = run(&mut eval(&["--judge", "openai", "--json"]));
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["judge"], json!({"vendor": "openai"}));
    let a = &r["vendors"][0];
    // Worked by hand: grades correct, not attempted, incorrect. Judged
    // correct = 1/3; given attempted = 1/(1+1) = 1/2; F1 = 2·(1/3)·(1/2) /
    // (1/3 + 1/2) = (1/3)/(5/6) = 2/5.
    let f = &a["judge"];
    assert_eq!(
        (
            &f["correct"],
            &f["incorrect"],
            &f["not_attempted"],
            &f["ungraded"]
        ),
        (&json!(1), &json!(1), &json!(1), &json!(0))
    );
    assert!((f["accuracy"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(f["accuracy_given_attempted"], 0.5);
    assert!((f["f1"].as_f64().unwrap() - 0.4).abs() < 1e-12);
    // The judge-free match beside it: only "Jane Q. Placeholder" matches.
    assert_eq!((&a["correct"], &a["graded"]), (&json!(1), &json!(3)));
    let grades: Vec<&Value> = r["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| &q["grade"])
        .collect();
    assert_eq!(
        grades,
        [
            &json!("correct"),
            &json!("not_attempted"),
            &json!("incorrect")
        ]
    );
    // Answering was free; judging was not, and is in the total.
    let judging = r["judging_cost_micro_usd"].as_u64().unwrap();
    assert!(judging > 0, "{r}");
    assert_eq!(r["answering_cost_micro_usd"], 0);
    assert_eq!(r["cost_micro_usd"].as_u64().unwrap(), judging);
    assert_eq!(a["judging_cost_micro_usd"].as_u64().unwrap(), judging);
    // Each judging is a run of its own, labelled by its group's goal.
    let runs = json(dir.path(), &["runs", "--json"]);
    let judges = runs
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["provider"] == "openai")
        .count();
    assert_eq!(judges, 3);
    // Under --max-usd, judging counts: the first question's judging crosses a
    // one-millionth cap, so the second is not started though answering is free.
    let (code, out, err) = run(&mut eval(&[
        "--judge",
        "openai",
        "--max-usd",
        "0.000001",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["not_run"], json!(["simpleqa-1", "simpleqa-2"]), "{r}");
    // The text report names the judge and its three figures.
    let (code, text, err) = run(&mut eval(&["--judge", "openai"]));
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("judged correct"), "{text}");
    assert!(text.contains("33% (1/3)"), "{text}");
    assert!(
        text.contains("judge: openai, grading each answered run"),
        "{text}"
    );
    // Without --judge nothing grades.
    let (code, out, err) = run(&mut eval(&["--json"]));
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert!(r.get("judge").is_none(), "{r}");
    assert_eq!(r["judging_cost_micro_usd"], 0);
}

#[test]
fn show_prompt_prints_the_grading_prompt_and_runs_nothing() {
    let dir = place();
    let (code, out, err) = run(at(dir.path()).args(["eval", "--judge", "openai", "--show-prompt"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("You are grading one answer"), "{out}");
    assert!(out.contains("GRADE: NOT_ATTEMPTED"), "{out}");
    let (code, _, err) = run(at(dir.path()).args(["eval", "--judge", "acme", "--show-prompt"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--judge acme"), "{err}");
    assert_eq!(json(dir.path(), &["evals", "--json"]), json!([]));
}

/// `eval --demo --set simpleqa` runs the bundled SimpleQA-shaped sample on the
/// stub: answer match marked a lower bound beside the judge's figures, each
/// worked out from the script (demo/stub-eval.toml) by hand.
#[test]
fn the_demo_runs_a_simpleqa_shaped_sample_with_every_column() {
    let dir = place();
    let r = report(
        dir.path(),
        &[
            "eval",
            "--demo",
            "--set",
            "simpleqa",
            "--judge",
            "anthropic",
            "--json",
        ],
    );
    assert_eq!(
        (&r["file"], &r["set"], &r["rows"]),
        (
            &json!("demo/simple_qa_test_set.csv"),
            &json!("simpleqa"),
            &json!(3)
        )
    );
    assert_eq!(r["lower_bound"], true);
    let row = |v: &str| {
        r["vendors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["vendor"] == v)
            .unwrap()
            .clone()
    };
    // Answer match: Anthropic's "3 March 2001" is not "March 3, 2001" (2/3);
    // OpenAI's "Jane Placeholder" and "About 1,300" miss (1/3).
    assert_eq!(
        (
            row("anthropic")["correct"].clone(),
            row("openai")["correct"].clone()
        ),
        (json!(2), json!(1))
    );
    // The judge accepts both of Anthropic's and OpenAI's name: 3/3 and 2/3;
    // OpenRouter found nothing once: 2 correct of 3 graded, 2 of 2 attempted,
    // F1 = 2·(2/3)·1/(2/3 + 1) = 4/5.
    assert_eq!(row("anthropic")["judge"]["accuracy"], 1.0);
    let or = &row("openrouter")["judge"];
    assert_eq!(
        (&or["not_attempted"], &or["accuracy_given_attempted"]),
        (&json!(1), &json!(1.0))
    );
    assert!((or["f1"].as_f64().unwrap() - 0.8).abs() < 1e-12);
    // Anthropic cites the gold Wikipedia page in its mobile, percent-encoded
    // form: one of the two gold URLs of the first question.
    let first = r["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "simpleqa-0" && q["vendor"] == "anthropic")
        .unwrap();
    assert_eq!(first["url_recall"], 0.5);
    assert!(r["judging_cost_micro_usd"].as_u64().unwrap() > 0);
    // Every set has a bundled sample the demo runs.
    for (set, rows) in [
        ("simpleqa-verified", 4),
        ("frames", 3),
        ("sealqa", 3),
        ("deepsearchqa", 4),
        ("browsecomp", 4),
    ] {
        let r = report(
            dir.path(),
            &[
                "eval",
                "--demo",
                "--set",
                set,
                "--providers",
                "anthropic",
                "--json",
            ],
        );
        assert_eq!(
            (&r["set"], &r["rows"]),
            (&json!(set), &json!(rows)),
            "{set}"
        );
        assert_eq!(r["private"], set == "browsecomp", "{set}");
    }
}

/// The demo's bundled samples are the test fixtures, byte for byte (the
/// fixtures' README says where each form comes from).
#[test]
fn the_demos_samples_are_the_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in [
        "simpleqa_verified.sample.csv",
        "frames_test.sample.tsv",
        "seal-0.sample.jsonl",
        "DSQA-full.sample.csv",
        "browse_comp_test_set.sample.csv",
    ] {
        assert_eq!(
            std::fs::read(root.join("demo/sets").join(name)).unwrap(),
            std::fs::read(fixture(name)).unwrap(),
            "{name}"
        );
    }
}
