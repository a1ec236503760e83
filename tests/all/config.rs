//! `io.toml`: the spec's `[web]`, presence semantics, exact error texts naming file,
//! line and key, `apply_to`, store paths, `write_web` keeping the rest of the file,
//! and the example file loading.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use io_harness::{Budget, Config, TaskContract, Vendor, Verification, WebAccess, write_web};
use pretty_assertions::assert_eq;

fn err(text: &str) -> String {
    Config::parse(text, "io.toml").unwrap_err().to_string()
}

#[test]
fn the_spec_web_table() {
    let c = Config::parse("[web]\nsearch = true\nfetch = false\nmax_uses = 3\nallowed_domains = [\"docs.rs\", \"crates.io\"]\n", "io.toml").unwrap();
    assert_eq!(
        c.web,
        Some(
            WebAccess::search()
                .max_uses(3)
                .allow("docs.rs")
                .allow("crates.io")
        )
    );
}

#[test]
fn present_means_carried_and_absent_means_none() {
    let c = Config::parse("[web]\nsearch = false\n", "io.toml").unwrap();
    assert_eq!(c.web, Some(WebAccess::default()));
    let mut contract = TaskContract::workspace("g", ".", Verification::None);
    c.apply_to(&mut contract);
    assert_eq!(contract.web, Some(WebAccess::default()));
    assert_eq!(
        Config::parse("provider = \"openai\"\n", "io.toml")
            .unwrap()
            .web,
        None
    );
}

#[test]
fn unknown_keys_name_key_line_and_table() {
    assert_eq!(
        err("provider = \"anthropic\"\n\n[web]\nsearch = true\nblocked_domain = [\"x\"]\n"),
        "io.toml:5: unknown key `blocked_domain` in [web]; expected one of: search, fetch, max_uses, allowed_domains, blocked_domains, from_policy, location, x_search, x_handles, x_dates"
    );
    assert_eq!(
        err("providr = \"anthropic\"\n"),
        "io.toml:1: unknown key `providr` in the top level; expected one of: provider, providers, task, budget, web, prices, store, console, agent, mcp, run, telemetry, policy"
    );
    assert_eq!(
        err("[providers.anthropic]\nmodel = \"m\"\napi_key = \"sk-...\"\n"),
        "io.toml:3: unknown key `api_key` in [providers.anthropic]; expected one of: model, base_url, api_key_env, max_tokens, max_response_bytes, request_timeout_secs, api, web_tools, stream, idle_timeout_secs, responses_state, search_classifier, search_recency_filter, search_context_size"
    );
    assert!(err("[providers.mistral]\nmodel = \"m\"\n").starts_with("io.toml:1: unknown name `mistral` in [providers]; expected one of: anthropic, openai, openrouter"), "{}", err("[providers.mistral]\nmodel = \"m\"\n"));
}

#[test]
fn wrong_types_and_half_verifications_are_errors() {
    assert_eq!(
        err("[web]\nmax_uses = -1\n"),
        "io.toml:2: `max_uses` in [web]: found integer -1; expected a whole number from 1 to 10000"
    );
    assert_eq!(
        err("[task]\nverify_file = \"README.md\"\n"),
        "io.toml:2: `verify_file` in [task]: is set without verify_contains; expected both verify_file and verify_contains, or neither"
    );
    assert!(
        err("provider = \"mistral\"\n")
            .starts_with("io.toml:1: `provider` in the top level: unknown name `mistral`")
    );
}

#[test]
fn task_contract_and_apply_to() {
    let c = Config::parse("[task]\ngoal = \"g\"\nworkspace = \"/w\"\nverify_file = \"R.md\"\nverify_contains = \"x\"\n[budget]\nsteps = 3\n[web]\nsearch = true\n", "io.toml").unwrap();
    let t = c.task_contract();
    assert_eq!(t.goal, "g");
    assert_eq!(
        t.verification,
        Verification::WorkspaceFileContains {
            file: "R.md".into(),
            needle: "x".into()
        }
    );
    assert_eq!(
        t.budget,
        Budget {
            steps: 3,
            ..Budget::default()
        }
    );
    assert_eq!(t.web, Some(WebAccess::search()));
}

#[test]
fn endpoints_default_and_override() {
    let c = Config::parse(
        "[providers.openrouter]\nbase_url = \"http://127.0.0.1:9/api\"\napi_key_env = \"MY_KEY\"\n",
        "io.toml",
    )
    .unwrap();
    let e = c.endpoint(Vendor::OpenRouter);
    assert_eq!(
        (e.base_url.as_str(), e.api_key_env.as_str()),
        ("http://127.0.0.1:9/api", "MY_KEY")
    );
    assert_eq!(
        c.endpoint(Vendor::Anthropic).base_url,
        "https://api.anthropic.com"
    );
    assert_eq!(c.model(Vendor::OpenAi), "gpt-5-search-api");
    assert_eq!(c.max_tokens(Vendor::OpenAi), 4096);
}

#[test]
fn store_path_is_relative_to_the_config_file() {
    let c = Config::parse("[store]\npath = \"data/runs.db\"\n", "io.toml").unwrap();
    assert_eq!(
        c.store_path(Some(Path::new("/etc/io/io.toml"))),
        Path::new("/etc/io/data/runs.db")
    );
    let abs = Config::parse("[store]\npath = \"/var/runs.db\"\n", "io.toml").unwrap();
    assert_eq!(
        abs.store_path(Some(Path::new("/etc/io/io.toml"))),
        Path::new("/var/runs.db")
    );
}

#[test]
fn write_web_keeps_everything_else_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("io.toml");
    let before = "# my settings\nprovider = \"anthropic\" # chosen\n\n[web] # the boundary\nsearch = true\nmax_uses = 9\n\n[budget]\n# careful\nsteps = 5\n";
    std::fs::write(&path, before).unwrap();
    write_web(&path, &WebAccess::search().with_fetch().allow("docs.rs")).unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        after,
        "# my settings\nprovider = \"anthropic\" # chosen\n\n[web] # the boundary\nsearch = true\nfetch = true\nallowed_domains = [\"docs.rs\"]\nblocked_domains = []\n\n[budget]\n# careful\nsteps = 5\n"
    );
    assert_eq!(
        Config::load(&path).unwrap().web,
        Some(WebAccess::search().with_fetch().allow("docs.rs"))
    );
}

#[test]
fn write_web_creates_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("io.toml");
    write_web(&path, &WebAccess::search().max_uses(2)).unwrap();
    assert_eq!(
        Config::load(&path).unwrap().web,
        Some(WebAccess::search().max_uses(2))
    );
}

/// The temporary file is a new one: a link planted at the name it used to take
/// (`.io.toml.tmp-PID`) is not written through.
#[cfg(unix)]
#[test]
fn write_web_never_writes_through_a_planted_link() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("io.toml");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "untouched").unwrap();
    let planted = dir
        .path()
        .join(format!(".io.toml.tmp-{}", std::process::id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    write_web(&path, &WebAccess::search()).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
    assert!(!path.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(Config::load(&path).unwrap().web, Some(WebAccess::search()));
}

#[test]
fn the_example_file_loads_with_every_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("io.toml.example");
    let c = Config::load(&path).unwrap();
    assert_eq!(
        c.providers.len(),
        io_harness::Vendor::ALL.len(),
        "a table for every vendor"
    );
    assert_eq!(
        c.endpoint(io_harness::Vendor::Xai).url(),
        "https://api.x.ai/v1/responses"
    );
    assert_eq!(
        c.endpoint(io_harness::Vendor::Perplexity).url(),
        "https://api.perplexity.ai/v1/agent"
    );
    assert!(c.task.is_some() && c.budget.is_some() && c.store.is_some());
    assert_eq!(
        c.web,
        Some(
            WebAccess::search()
                .max_uses(3)
                .allow("docs.rs")
                .allow("crates.io")
        )
    );
    assert_eq!(c.prices["claude-sonnet-4-5"].per_search_request, Some(0.01));
    assert_eq!(
        c.prices["claude-sonnet-4-5"].cache_read_per_mtok,
        Some(0.30)
    );
    let budget = c.task_contract().budget;
    assert_eq!((budget.tokens, budget.usd_micro), (2_000_000, None));
    // The commented `usd` line, turned on.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("# usd = 2.00", "usd = 2.00");
    let on = Config::parse(&text, "io.toml.example").unwrap();
    assert_eq!(on.task_contract().budget.usd_micro, Some(2_000_000));
    let bad = Config::parse("[budget]\nusd = -1.0\n", "io.toml").unwrap_err();
    assert_eq!(
        bad.to_string(),
        "io.toml:2: `usd` in [budget]: -1 is not a price; expected US dollars as a finite number, 0 or more"
    );
    let zero = Config::parse("[budget]\nusd = 0.0\n", "io.toml").unwrap_err();
    assert_eq!(
        zero.to_string(),
        "io.toml: [budget] usd = 0 is not a positive number of US dollars"
    );
    assert_eq!(io_harness::Budget::default().tokens, 2_000_000);
    assert_eq!(c.console.theme.as_deref(), Some("dark"));
    // The optional parts are commented out (tests/cli_first_use.rs turns them on).
    assert!(c.agents.is_empty() && c.mcp.is_empty());
}

#[test]
fn a_missing_explicit_file_is_an_error_naming_it() {
    let e = Config::discover(Some(Path::new("/nonexistent/io.toml")))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("cannot read config /nonexistent/io.toml"),
        "{e}"
    );
}

#[test]
fn web_location_parses_checks_and_survives_a_console_write() {
    use io_harness::core::web::Location;
    let text = "[web]\nsearch = true\nlocation = { country = \"GB\", timezone = \"Europe/London\" } # where I am\n";
    let c = Config::parse(text, "io.toml").unwrap();
    assert_eq!(
        c.web,
        Some(WebAccess::search().near(Location {
            country: Some("GB".into()),
            timezone: Some("Europe/London".into()),
            ..Location::default()
        }))
    );
    assert_eq!(
        err("[web]\nsearch = true\nlocation = {}\n"),
        "io.toml: [web] location names nothing; give at least one of country, region, city, timezone (country = \"GB\", timezone = \"Europe/London\"), or remove it"
    );
    assert_eq!(
        err("[web]\nsearch = true\nlocation = { country = \"Britain\" }\n"),
        "io.toml: [web] location country = \"Britain\" is not a two-letter ISO 3166-1 code; write it as the vendors take it, such as \"GB\" or \"US\""
    );
    assert_eq!(
        err("[web]\nsearch = true\nlocation = { town = \"London\" }\n"),
        "io.toml:3: unknown key `town` in [web.location]; expected one of: country, region, city, timezone"
    );
    // The console writes the declaration it edits and leaves the location as written.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("io.toml");
    std::fs::write(&path, text).unwrap();
    write_web(&path, &WebAccess::search().max_uses(2)).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written
            .contains("location = { country = \"GB\", timezone = \"Europe/London\" } # where I am"),
        "{written}"
    );
}
