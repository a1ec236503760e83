//! The command line on first use, run as the real binary: `runs` lines up under
//! its header, `preview` refuses an empty goal as `run` does, `--demo` runs and previews against the built-in stub with no key,
//! and `io.toml.example` starts nothing optional until its parts are uncommented.

// The binary is built with every default feature, and these tests run it.
#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cli::{bin, run};

use io_harness::Config;
use io_harness::core::vendor::Vendor;
use io_harness::store::{NewRun, Store};

fn example() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/io.toml.example")).unwrap()
}

/// The example with every optional part turned on, as its comments say to.
fn uncommented(text: &str) -> String {
    text.lines()
        .map(|l| match l.strip_prefix('#') {
            Some(rest) if !rest.starts_with([' ', '#']) && !rest.is_empty() => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn runs_ids_sit_under_their_header() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let store = Store::open(&db).unwrap();
    for _ in 0..12 {
        store
            .begin_run(&NewRun {
                goal: "g".into(),
                provider: Vendor::Anthropic,
                model: "m".into(),
                ..Default::default()
            })
            .unwrap();
    }
    let empty = dir.path().join("io.toml");
    std::fs::write(&empty, "").unwrap();
    let (code, out, err) = run(bin().args([
        "runs",
        "--config",
        empty.to_str().unwrap(),
        "--store",
        db.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let end = lines[0].find("run").unwrap() + 3;
    for row in &lines[1..] {
        let id = row[..end].trim_start();
        assert!(
            !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()),
            "the id is not right-aligned under `run`: {row:?}"
        );
    }
    assert!(lines[1].starts_with("   12  "), "{:?}", lines[1]);
}

#[test]
fn preview_without_a_goal_refuses_as_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, "[web]\nsearch = true\n").unwrap();
    let (code, out, err) = run(bin().args(["preview", "--config", cfg.to_str().unwrap()]));
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err.trim_end(),
        "no goal: pass --goal TEXT or set `goal` under [task] in io.toml"
    );
}

#[test]
fn run_and_preview_take_demo_and_need_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, "").unwrap();
    let (code, out, err) = run(bin().current_dir(dir.path()).args([
        "preview",
        "--demo",
        "--config",
        cfg.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    // No port is printed that nothing listens on: the stub's port is chosen when
    // `run --demo` starts it, and the preview says so.
    assert!(
        out.starts_with("POST http://127.0.0.1:<port>/v1/messages\n"),
        "{out}"
    );
    assert!(
        out.contains("note: `run --demo` starts the stub vendor on a free loopback port"),
        "{out}"
    );
    assert!(out.contains("\"web_search_20250305\""), "{out}");
    let (code, out, err) = run(bin().current_dir(dir.path()).args([
        "run",
        "--demo",
        "--json",
        "--config",
        cfg.to_str().unwrap(),
        "--store",
        dir.path().join("runs.db").to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{err}");
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"]["outcome"]["outcome"], "passed", "{out}");
    // The demo's key is not a secret (the stub checks none), so it is never
    // scrubbed from what the stub says: ids such as `toolu_demo_1` reach the events
    // whole, where scrubbing the key "demo" had turned them into `toolu_[redacted]_1`.
    assert!(out.contains("\"id\":\"toolu_demo_1\""), "{out}");
    assert!(!out.contains("[redacted]"), "{out}");
    // Without --demo and without a key it still says which variable is missing.
    let (code, _, err) = run(bin().current_dir(dir.path()).args([
        "run",
        "--goal",
        "g",
        "--config",
        cfg.to_str().unwrap(),
    ]));
    assert_eq!(code, 2);
    assert!(err.contains("ANTHROPIC_API_KEY is not set"), "{err}");
    assert!(
        err.contains("--demo"),
        "the error points at the demo: {err}"
    );
}

#[test]
fn the_example_starts_nothing_optional_until_uncommented() {
    let text = example();
    let plain = Config::parse(&text, "io.toml.example").unwrap();
    assert!(
        plain.mcp.is_empty(),
        "no MCP server starts from a plain copy"
    );
    assert!(plain.agents.is_empty());
    let contract = plain.task_contract();
    assert_eq!(contract.verification, io_harness::Verification::None);
    // Each optional part says how to turn it on, and turned on it is valid.
    for part in ["[[mcp]]", "[[agent]]", "verify_file"] {
        let at = text.find(&format!("#{part}")).unwrap();
        let before = &text[..at];
        let said = before.lines().rev().take(4).any(|l| l.contains("To turn"));
        assert!(said, "no line says how to turn on {part}");
    }
    let on = Config::parse(&uncommented(&text), "io.toml.example (uncommented)").unwrap();
    assert_eq!(on.mcp[0].command, "npx");
    assert_eq!(on.agents[0].name, "researcher");
    assert!(matches!(
        on.task_contract().verification,
        io_harness::Verification::WorkspaceFileContains { .. }
    ));
}

#[test]
fn the_mcp_preview_note_reads_as_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, uncommented(&example())).unwrap();
    let (code, out, err) = run(bin().args(["preview", "--config", cfg.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note: a run also offers the tools of the MCP server `everything` once it starts; preview starts no process, so they are not in this body"),
        "{out}"
    );
}

/// OpenRouter reports what a request cost, search fees included, without
/// itemising them: `runs` says the fees are included in that figure rather than
/// showing them as $0.000000, which reads as "the searches were free".
#[test]
fn runs_says_fees_are_included_in_a_vendor_reported_cost() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, "provider = \"openrouter\"\n").unwrap();
    let db = dir.path().join("runs.db");
    let args = |cmd: &'static str| {
        let mut c = bin();
        c.current_dir(dir.path()).args([
            cmd,
            "--config",
            cfg.to_str().unwrap(),
            "--store",
            db.to_str().unwrap(),
        ]);
        c
    };
    let (code, _, err) = run(args("run").arg("--demo"));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&mut args("runs"));
    assert_eq!(code, 0, "{err}");
    let row = out.lines().nth(1).unwrap();
    assert!(row.contains("openrouter"), "{out}");
    assert!(row.contains("incl."), "{out}");
    assert!(row.contains("$0.012723v"), "{out}");
}
