//! The headless command line, run as the real binary: `preview` bytes and refusals,
//! config errors, and `run --json` → `runs` → `citations` against the loopback stub.

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

use std::path::Path;

use io_harness::core::tools::offered_tools;
use io_harness::core::vendor::Vendor;
use io_harness::core::wire;
use io_harness::stub::{Script, StubVendor};
use io_harness::{Config, Turn};

fn example() -> String {
    format!("{}/io.toml.example", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn preview_body_only_prints_the_exact_encoded_bytes() {
    let config = Config::load(Path::new(&example())).unwrap();
    for v in [Vendor::Anthropic, Vendor::OpenAi] {
        let contract = config.task_contract();
        // The example's roster is commented out: no spawn_agent. Its [run] asks
        // for a cached transcript, which the contract carries.
        let turn = Turn::for_step(
            &contract,
            config.model(v),
            config.max_tokens(v),
            offered_tools(&[], &[]),
            vec![],
            vec![],
        );
        let want = wire::encode(&config.endpoint(v), &turn).unwrap().body;
        let out = bin()
            .args([
                "preview",
                "--config",
                &example(),
                "--provider",
                v.as_str(),
                "--body-only",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(out.stdout, want, "{v}");
    }
}

#[test]
fn preview_shows_url_redacted_headers_and_the_caution() {
    let (code, out, _) = run(bin()
        .args(["preview", "--config", &example(), "--provider", "openai"])
        .env("OPENAI_API_KEY", "sk-test-SECRET"));
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        &lines[..4],
        [
            "POST https://api.openai.com/v1/chat/completions",
            "authorization: Bearer $OPENAI_API_KEY (set)",
            "content-type: application/json",
            ""
        ]
    );
    assert!(lines[4].starts_with("{\"model\":\"gpt-5-search-api\""));
    assert!(out.contains("caution: OpenAI documents domain filters for its Responses API only"));
    assert!(!out.contains("sk-test-SECRET"));
}

#[test]
fn refusals_exit_2_with_the_text_and_nothing_on_stdout() {
    let (code, out, err) = run(bin().args([
        "preview",
        "--config",
        &example(),
        "--provider",
        "openrouter",
        "--body-only",
    ]));
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err.trim_end(),
        "provider \"openrouter\" cannot restrict search to individual domains — its web plugin takes no domain filter; remove the allowed domains (docs.rs, crates.io) or use provider \"anthropic\". OpenRouter's server tools can carry this declaration: use `api = \"server-tools\"` in [providers.openrouter]. No request was sent."
    );
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(
        &cfg,
        "[web]\nsearch = true\nblocked_domains = [\"evil.test\"]\n",
    )
    .unwrap();
    let (code, out, err) = run(bin().args([
        "preview",
        "--config",
        cfg.to_str().unwrap(),
        "--provider",
        "openai",
    ]));
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err.trim_end(),
        "provider \"openai\" cannot block individual domains — its web search filter is allow-list only; state the hosts to allow instead of the ones to block. No request was sent."
    );
}

#[test]
fn a_config_error_names_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, "[web]\nsearch = true\nblocked_domain = [\"x\"]\n").unwrap();
    let (code, out, err) = run(bin().args(["preview", "--config", cfg.to_str().unwrap()]));
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err.trim_end(),
        format!(
            "{}:3: unknown key `blocked_domain` in [web]; expected one of: search, fetch, max_uses, allowed_domains, blocked_domains, from_policy, location, x_search, x_handles, x_dates",
            cfg.display()
        )
    );
    let (code, _, err) =
        run(bin().args(["preview", "--config", &example(), "--provider", "mistral"]));
    assert_eq!(code, 2);
    assert_eq!(
        err.trim_end(),
        "unknown provider \"mistral\"; use one of: anthropic, openai, openrouter, gemini, xai, perplexity"
    );
}

#[tokio::test]
async fn run_json_then_runs_then_citations_against_the_stub() {
    let stub = StubVendor::start("127.0.0.1:0".parse().unwrap(), Script::demo())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The workspace apart from the store: the tool's listing (sent back in the
    // transcript, so counted in the emulated usage) is the same on every run.
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("notes.md"), "release notes\n").unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, format!(
        "[providers.anthropic]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_CLI_TEST_KEY\"\n[task]\ngoal = \"find the release\"\nworkspace = \"{}\"\n[web]\nsearch = true\nmax_uses = 3\n[store]\npath = \"runs.db\"\n[run]\nconversation = \"transcript\"\ncache = true\n",
        stub.base_url(Vendor::Anthropic), ws.display())).unwrap();
    let cfg = cfg.to_str().unwrap().to_string();
    let (code, out, err) = tokio::task::spawn_blocking({
        let cfg = cfg.clone();
        move || {
            run(bin()
                .args(["run", "--config", &cfg, "--json"])
                .env("IO_HARNESS_CLI_TEST_KEY", "sk-test-SECRET"))
        }
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{err}");
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(last["kind"]["event"], "finished");
    assert_eq!(last["kind"]["outcome"]["outcome"], "passed");
    let run_id = last["run_id"].as_i64().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["kind"]["event"] == "server_tool_used"
                && e["kind"]["ok"] == false
                && e["kind"]["error"] == "max_uses_exceeded")
    );
    // It streamed (io.toml's default): each step's live events come before its
    // summary, the search with its query first of all.
    let at = |kind: &str, step: i64| {
        events
            .iter()
            .position(|e| e["kind"]["event"] == kind && e["step"] == step)
            .unwrap_or_else(|| panic!("no {kind} in step {step}: {out}"))
    };
    for step in [1, 3] {
        assert!(at("server_tool_started", step) < at("server_tool_returned", step));
        assert!(at("server_tool_returned", step) < at("provider_called", step));
        assert!(at("provider_called", step) < at("server_tool_used", step));
    }
    assert!(at("text_delta", 1) < at("provider_called", 1));
    assert_eq!(
        events[at("server_tool_started", 1)]["kind"]["input"],
        "io-harness latest release crates.io"
    );
    assert!(
        stub.requests()
            .iter()
            .all(|r| r.body.ends_with(b",\"stream\":true}"))
    );
    assert!(!out.contains("sk-test-SECRET") && !err.contains("sk-test-SECRET"));
    // The stub saw the key; its record of it is redacted.
    assert!(stub.requests().iter().all(|r| {
        r.headers
            .iter()
            .any(|(n, v)| n == "x-api-key" && v == "<redacted>")
    }));

    // Every request carries its cost, itemised; no [prices] needed (the built-in
    // table prices claude-sonnet-4-5). The demo script's usage is the stub's cache
    // emulation of this transcript: step 2 writes the prefix, step 3 reads it.
    let costs: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["kind"]["event"] == "provider_called")
        .map(|e| &e["kind"]["cost"])
        .collect();
    let per_request: Vec<u64> = costs
        .iter()
        .map(|c| c["total_micro_usd"].as_u64().unwrap())
        .collect();
    assert_eq!(per_request, [14_020, 22_795, 3_398]);
    assert_eq!(
        costs
            .iter()
            .map(|c| c["fees_micro_usd"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [10_000, 10_000, 0]
    );

    let (code, out, _) = run(bin().args(["runs", "--config", &cfg, "--json"]));
    assert_eq!(code, 0);
    let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(runs[0]["run_id"].as_i64(), Some(run_id));
    assert_eq!(runs[0]["citation_count"].as_u64(), Some(3));
    // The run's total is the sum of its requests' costs, on every surface.
    assert_eq!(
        runs[0]["cost_micro_usd"].as_u64(),
        Some(per_request.iter().sum::<u64>())
    );
    assert_eq!(runs[0]["cost_micro_usd"].as_u64(), Some(40_213));
    assert_eq!(runs[0]["fees_micro_usd"].as_u64(), Some(20_000));
    let (code, table, _) = run(bin().args(["runs", "--config", &cfg]));
    assert_eq!(code, 0);
    assert!(
        table.contains("$0.020000   $0.040213  ") && table.contains("  find the release"),
        "{table}"
    );

    let (code, out, _) = run(bin().args(["citations", &run_id.to_string(), "--config", &cfg]));
    assert_eq!(code, 0);
    assert!(out.contains("https://crates.io/crates/io-harness"), "{out}");
    assert!(
        out.contains("https://docs.rs/io-harness/latest/io_harness/"),
        "{out}"
    );
    assert!(
        out.contains("anthropic web_search failed (max_uses_exceeded)"),
        "{out}"
    );

    let (code, _, err) = run(bin().args(["citations", "999", "--config", &cfg]));
    assert_eq!(code, 2);
    assert!(err.contains("there is no run 999"), "{err}");
    // The store never holds the key.
    let db = std::fs::read(dir.path().join("runs.db")).unwrap();
    assert!(!db.windows(14).any(|w| w == b"sk-test-SECRET"));
}

#[test]
fn run_without_a_key_is_a_config_error_naming_the_variable() {
    let (code, _, err) = run(bin().args(["run", "--config", &example(), "--goal", "g"]));
    assert_eq!(code, 2);
    assert!(err.starts_with("ANTHROPIC_API_KEY is not set"), "{err}");
}

#[test]
fn prices_lists_every_row_dated_and_sourced_with_io_toml_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(
        &cfg,
        "[prices.claude-sonnet-4-5]\ninput_per_mtok = 2.5\n[prices.\"my-model\"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n",
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    let (code, out, err) = run(bin().args(["prices", "--config", cfg, "--json"]));
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |m: &str| rows.iter().find(|r| r["model"] == m).unwrap().clone();
    let sonnet = row("claude-sonnet-4-5");
    for key in [
        "vendor",
        "model",
        "input_per_mtok",
        "output_per_mtok",
        "cache_write_per_mtok",
        "cache_read_per_mtok",
        "per_search_request",
        "per_fetch_request",
        "read_on",
        "source",
    ] {
        assert!(sonnet.get(key).is_some(), "{key} missing from {sonnet}");
    }
    // io.toml replaced one field; the rest, the date and the page stay.
    assert_eq!(sonnet["input_per_mtok"], 2.5);
    assert_eq!(sonnet["output_per_mtok"], 15.0);
    assert_eq!(sonnet["read_on"], "2026-12-03");
    assert_eq!(sonnet["overridden"], serde_json::json!(["input_per_mtok"]));
    let mine = row("my-model");
    assert_eq!(
        (mine["source"].as_str(), mine["read_on"].is_null()),
        (Some("io.toml"), true)
    );

    let (code, out, _) = run(bin().args(["prices", "--config", cfg]));
    assert_eq!(code, 0);
    assert!(
        out.contains("https://platform.claude.com/docs/en/about-claude/pricing"),
        "{out}"
    );
    assert!(
        out.contains("The vendor's invoice is the authority."),
        "{out}"
    );
}

#[test]
fn a_price_for_a_new_model_without_both_token_prices_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(&cfg, "[prices.\"my-model\"]\ninput_per_mtok = 1.0\n").unwrap();
    let (code, _, err) = run(bin().args(["prices", "--config", cfg.to_str().unwrap()]));
    assert_eq!(code, 2);
    assert_eq!(
        err.trim_end(),
        format!(
            "{}:1: `output_per_mtok` in [prices.my-model]: is missing; expected it to be set, since the built-in price table has no row for my-model (`io-harness prices` lists the rows)",
            cfg.display()
        )
    );
}

#[test]
fn a_location_gemini_cannot_carry_is_refused_before_sending() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(
        &cfg,
        "[web]\nsearch = true\nlocation = { country = \"GB\" }\n",
    )
    .unwrap();
    let preview = |provider: &str| {
        run(bin().args([
            "preview",
            "--config",
            cfg.to_str().unwrap(),
            "--provider",
            provider,
            "--goal",
            "find the release",
        ]))
    };
    let (code, out, err) = preview("gemini");
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err.trim_end(),
        "provider \"gemini\" cannot localise search to a location — its google_search tool takes no location; remove [web] location or use provider \"anthropic\". No request was sent."
    );
    let (code, out, _) = preview("anthropic");
    assert_eq!(code, 0);
    assert!(
        out.contains(r#""user_location":{"type":"approximate","country":"GB"}"#),
        "{out}"
    );
}
