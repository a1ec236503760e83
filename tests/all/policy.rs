//! Issue 14: `[policy]` in io.toml, its two scopes, `[web] from_policy`, and the
//! command line following the policy — against real files, the real binary and
//! the loopback stub vendor.

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

use std::path::Path;

use common::cli::{bin, run};

use io_harness::core::policy::{Act, Effect};
use io_harness::stub::{Script, StubVendor};
use io_harness::{Config, Vendor};
use pretty_assertions::assert_eq;

/// The issue's example.
const EXAMPLE_POLICY: &str = r#"[policy]
allow = ["write:src/**", "write:README.md", "net:docs.rs", "spawn:researcher"]
ask   = ["write:Cargo.toml"]
deny  = ["read:.env", "net:*.example.com"]
"#;

fn err(text: &str) -> String {
    Config::parse(text, "io.toml").unwrap_err().to_string()
}

#[test]
fn the_example_policy_decides_as_the_issue_says() {
    let c = Config::parse(EXAMPLE_POLICY, "io.toml").unwrap();
    let p = c.policy();
    assert_eq!(p.decide(Act::Write, "src/x.rs").effect, Effect::Allow);
    assert_eq!(p.decide(Act::Write, "Cargo.toml").effect, Effect::Ask);
    assert_eq!(p.decide(Act::Read, ".env").effect, Effect::Deny);
    assert_eq!(p.decide(Act::Spawn, "researcher").effect, Effect::Allow);
    assert_eq!(p.decide(Act::Net, "docs.rs:443").effect, Effect::Allow);
    assert_eq!(
        p.decide(Act::Net, "api.example.com:443").effect,
        Effect::Deny
    );
    // Where the operator said nothing, the fallback.
    let d = p.decide(Act::Write, "notes.md");
    assert_eq!(d.effect, Effect::Ask);
    assert!(d.rule.unwrap().fallback);
    let d = p.decide(Act::Write, "Cargo.toml");
    assert_eq!(
        d.rule.unwrap().describe(),
        "rule ask(\"Cargo.toml\") in layer \"project\" (io.toml:3)"
    );
}

#[test]
fn a_broken_policy_entry_is_named_with_file_and_line() {
    assert_eq!(
        err("[policy]\nallow = [\"write:src/**\",\n  \"wrte:docs/**\"]\n"),
        "io.toml:3: [policy] allow entry \"wrte:docs/**\" names an unknown act \"wrte\"; expected one of read, write, exec, net, spawn"
    );
    assert_eq!(
        err("[policy]\ndeny = [\"read:\"]\n"),
        "io.toml:2: [policy] deny entry \"read:\" has an empty pattern; write what the rule covers after \"read:\" (`*` for everything)"
    );
    assert_eq!(
        err("[policy]\nallow = [\"net:https://docs.rs/std\"]\n"),
        "io.toml:2: [policy] allow entry \"net:https://docs.rs/std\" carries a scheme; a net rule names a bare host, so write \"net:docs.rs\" (or \"net:docs.rs:443\") instead"
    );
    assert_eq!(
        err("[policy]\nask = [\"write:/etc/passwd\"]\n"),
        "io.toml:2: [policy] ask entry \"write:/etc/passwd\" is an absolute path; write rules are globs relative to the workspace, e.g. \"write:src/**\""
    );
    assert!(
        err("[policy]\nalow = [\"write:x\"]\n")
            .starts_with("io.toml:2: unknown key `alow` in [policy]"),
        "{}",
        err("[policy]\nalow = [\"write:x\"]\n")
    );
}

fn two_scopes(user: &str, project: &str) -> (tempfile::TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    let (u, p) = (dir.path().join("user.toml"), dir.path().join("io.toml"));
    std::fs::write(&u, user).unwrap();
    std::fs::write(&p, project).unwrap();
    let loaded = Config::discover_with(Some(&p), Some(&u)).unwrap();
    assert_eq!(loaded.path.as_deref(), Some(p.as_path()));
    (dir, loaded.config)
}

#[test]
fn a_user_deny_survives_a_project_allow() {
    let (dir, c) = two_scopes(
        "[policy]\ndeny = [\"write:secrets/**\"]\n[budget]\nsteps = 7\ntokens = 9\n",
        "[policy]\nallow = [\"write:**\"]\n[budget]\nsteps = 3\n",
    );
    let d = c.policy().decide(Act::Write, "secrets/key");
    assert_eq!(d.effect, Effect::Deny);
    let rule = d.rule.unwrap();
    assert_eq!(rule.layer, "user");
    assert_eq!(
        rule.source,
        Some(format!("{}:2", dir.path().join("user.toml").display()))
    );
    assert_eq!(
        c.policy().decide(Act::Write, "src/a.rs").effect,
        Effect::Allow
    );
    // Values: project over user, key by key.
    let b = c.budget.unwrap();
    assert_eq!((b.steps, b.tokens), (Some(3), Some(9)));
}

#[test]
fn from_policy_projects_the_spec_example_and_names_where_each_host_came_from() {
    let text = "[policy]\nallow = [\"net:docs.rs:443\", \"net:crates.io:443\"]\ndeny = [\"net:*.example.com\"]\n[web]\nsearch = true\nfrom_policy = true\n";
    let c = Config::parse(text, "io.toml").unwrap();
    let web = c.web.clone().unwrap();
    assert_eq!(web.allowed_domains, ["docs.rs", "crates.io"]);
    assert_eq!(web.blocked_domains, ["*.example.com"]);
    assert_eq!(
        c.web_provenance(),
        [
            "[web] from_policy: allowed_domains docs.rs ← allow \"net:docs.rs:443\" in layer \"project\" (io.toml:2)",
            "[web] from_policy: allowed_domains crates.io ← allow \"net:crates.io:443\" in layer \"project\" (io.toml:2)",
            "[web] from_policy: blocked_domains *.example.com ← deny \"net:*.example.com\" in layer \"project\" (io.toml:3)",
        ]
    );
    // `net:*` allowed projects to no allow-list; the fallback is never projected.
    let c = Config::parse(
        "[policy]\nallow = [\"net:*\", \"net:docs.rs\"]\n[web]\nsearch = true\nfrom_policy = true\n",
        "io.toml",
    )
    .unwrap();
    assert_eq!(c.web.unwrap().allowed_domains, Vec::<String>::new());
    let c = Config::parse("[web]\nsearch = true\nfrom_policy = true\n", "io.toml").unwrap();
    assert_eq!(c.web, Some(io_harness::WebAccess::search()));
}

#[test]
fn from_policy_refuses_an_ask_rule_a_url_and_stated_lists_naming_each() {
    assert_eq!(
        err("[policy]\nask = [\"net:docs.rs\"]\n[web]\nsearch = true\nfrom_policy = true\n"),
        "[web] from_policy = true: policy rule ask_net(\"docs.rs\") in layer \"project\" (io.toml:2) cannot be honoured by a provider-executed search: the provider dials the URL, so there is no connection here to pause and no approver to consult; allow the host, deny it, or leave web access off"
    );
    let e = err(
        "[policy]\nallow = [\"net:https://docs.rs/std\"]\n[web]\nsearch = true\nfrom_policy = true\n",
    );
    assert!(e.contains("\"net:https://docs.rs/std\""), "{e}");
    assert!(e.contains("write \"net:docs.rs\""), "{e}");
    assert_eq!(
        err("[web]\nsearch = true\nallowed_domains = [\"docs.rs\"]\nfrom_policy = true\n"),
        "io.toml:4: [web] states allowed_domains and from_policy = true; the lists come from one place: remove it and write the hosts as [policy] net rules (\"net:docs.rs\"), or remove from_policy"
    );
}

#[test]
fn config_lists_every_value_and_rule_with_path_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (u, p) = (dir.path().join("user.toml"), dir.path().join("io.toml"));
    std::fs::write(
        &u,
        "provider = \"openai\"\n[policy]\ndeny = [\"read:.env\"]\n",
    )
    .unwrap();
    std::fs::write(
        &p,
        "provider = \"anthropic\"\n[policy]\nallow = [\"net:docs.rs:443\"]\n[web]\nsearch = true\nfrom_policy = true\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(bin()
        .args(["config", "--config", p.to_str().unwrap()])
        .env(io_harness::USER_CONFIG_ENV, &u));
    assert_eq!(code, 0, "{stderr}");
    let (u, p) = (u.display(), p.display());
    let want = format!(
        "provider = \"anthropic\"  {p}:1
web.search = true  {p}:5
web.from_policy = true  {p}:6
policy.user.deny = \"read:.env\"  {u}:3
policy.project.allow = \"net:docs.rs:443\"  {p}:3
policy.fallback.allow = \"read:**\"  (applies only where no rule above matches)  built-in
policy.fallback.ask = \"write:**\"  (applies only where no rule above matches)  built-in
policy.fallback.ask = \"exec:*\"  (applies only where no rule above matches)  built-in
policy.fallback.ask = \"net:*\"  (applies only where no rule above matches)  built-in
policy.fallback.ask = \"spawn:*\"  (applies only where no rule above matches)  built-in
web.allowed_domains = \"docs.rs\"  (from_policy: allow \"net:docs.rs:443\" in layer \"project\")  {p}:3
"
    );
    assert_eq!(stdout, want);
    let (code, json, _) = run(bin()
        .args(["config", "--json", "--config", &p.to_string()])
        .env(io_harness::USER_CONFIG_ENV, u.to_string()));
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["key"], "provider");
    assert_eq!(v[0]["origin"], format!("{p}:1"));
}

/// The issue's done-when: the example policy, `run` with no --approve-all.
#[tokio::test]
async fn run_follows_the_policy_without_approve_all() {
    let script = Script {
        responses: vec![
            common::ok(&common::tool_use(
                "write_file",
                r#"{"path":"src/x.rs","content":"fn x() {}\n"}"#,
            )),
            common::ok(&common::tool_use(
                "write_file",
                r#"{"path":"Cargo.toml","content":"[package]\n"}"#,
            )),
            common::ok(&common::tool_use("read_file", r#"{"path":".env"}"#)),
            common::ok(common::ANSWER),
        ],
        repeat: false,
        emulate_usage: false,
    };
    let stub = StubVendor::start("127.0.0.1:0".parse().unwrap(), script)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join(".env"), "TOKEN=secret\n").unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(
        &cfg,
        format!(
            "{EXAMPLE_POLICY}[providers.anthropic]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_POLICY_TEST_KEY\"\n[task]\ngoal = \"g\"\nworkspace = \"{}\"\n[store]\npath = \"runs.db\"\n",
            stub.base_url(Vendor::Anthropic),
            ws.display()
        ),
    )
    .unwrap();
    let cfg = cfg.display().to_string();
    let (code, stdout, stderr) = tokio::task::spawn_blocking(move || {
        run(bin()
            .args(["run", "--config", &cfg, "--json"])
            .env("IO_HARNESS_POLICY_TEST_KEY", "k"))
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.join("src/x.rs")).unwrap(),
        "fn x() {}\n"
    );
    assert!(!ws.join("Cargo.toml").exists());
    let tools: Vec<(bool, String)> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["kind"]["event"] == "tool_called")
        .map(|e| {
            (
                e["kind"]["ok"].as_bool().unwrap(),
                e["kind"]["output"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [
            (true, "wrote 10 bytes to src/x.rs".to_string()),
            (
                false,
                format!(
                    "refused: write Cargo.toml is asked by rule ask(\"Cargo.toml\") in layer \"project\" ({}:3) and there is nobody to ask on the command line; an allow cannot outrank an ask, so change \"write:Cargo.toml\" under [policy] ask ({}:3) to allow, or pass --approve-all",
                    dir.path().join("io.toml").display(),
                    dir.path().join("io.toml").display()
                )
            ),
            (
                false,
                format!(
                    "refused: read .env is denied by rule deny(\".env\") in layer \"project\" ({}:4)",
                    dir.path().join("io.toml").display()
                )
            ),
        ]
    );
    // The model never saw the secret.
    assert!(!stdout.contains("TOKEN=secret"));
}

#[test]
fn the_example_file_documents_policy_and_from_policy() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("io.toml.example");
    let text = std::fs::read_to_string(&path).unwrap();
    let c = Config::parse(&text, "io.toml.example").unwrap();
    assert!(!c.rules.is_empty());
    assert!(
        text.contains("# from_policy = true"),
        "io.toml.example documents from_policy"
    );
    // Uncommented (and the stated lists removed), from_policy projects the example's rules.
    let with: String = text
        .replace("# from_policy = true", "from_policy = true")
        .lines()
        .filter(|l| !l.starts_with("allowed_domains") && !l.starts_with("blocked_domains"))
        .map(|l| format!("{l}\n"))
        .collect();
    let c = Config::parse(&with, "io.toml.example").unwrap();
    assert!(c.web_from_policy());
    assert_eq!(c.web.unwrap().allowed_domains, ["docs.rs", "crates.io"]);
}

#[tokio::test]
async fn http_get_to_a_host_the_policy_denies_is_refused() {
    let c = Config::parse(EXAMPLE_POLICY, "io.toml").unwrap();
    let policy = c.policy();
    let dir = tempfile::tempdir().unwrap();
    let emit = |_: io_harness::EventKind| {};
    let env = io_harness::run::tools::ToolEnv {
        workspace: dir.path(),
        policy: &policy,
        approver: &io_harness::ApproveAll,
        emit: &emit,
    };
    let call = io_harness::ToolCall {
        id: "t".into(),
        name: "http_get".into(),
        input: serde_json::json!({"url": "https://api.example.com/v1"}),
    };
    let r = io_harness::run::tools::execute(&env, &call).await;
    assert!(!r.ok);
    assert_eq!(
        r.output,
        "refused: net api.example.com:443 is denied by rule deny(\"*.example.com\") in layer \"project\" (io.toml:4)"
    );
}

#[test]
fn saving_web_under_from_policy_writes_no_lists() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("io.toml");
    let text = "[policy]\nallow = [\"net:docs.rs\"]\n[web]\nsearch = true\nfrom_policy = true\n";
    std::fs::write(&path, text).unwrap();
    let web = Config::load(&path).unwrap().web.unwrap();
    io_harness::write_web(&path, &web.max_uses(2)).unwrap();
    let back = std::fs::read_to_string(&path).unwrap();
    assert!(!back.contains("allowed_domains"), "{back}");
    let c = Config::load(&path).unwrap();
    assert_eq!(c.web.unwrap().allowed_domains, ["docs.rs"]);
}

#[test]
fn preview_says_where_the_projected_lists_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.toml");
    std::fs::write(
        &cfg,
        "[policy]\nallow = [\"net:docs.rs:443\"]\ndeny = [\"net:*.example.com\"]\n[web]\nsearch = true\nfrom_policy = true\n",
    )
    .unwrap();
    // A goal, since preview refuses an empty one as run does.
    let (code, stdout, stderr) = run(bin().args([
        "preview",
        "--config",
        cfg.to_str().unwrap(),
        "--goal",
        "find the docs",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(r#""allowed_domains":["docs.rs"]"#),
        "{stdout}"
    );
    let at = cfg.display();
    assert!(
        stdout.contains(&format!(
            "[web] from_policy: allowed_domains docs.rs ← allow \"net:docs.rs:443\" in layer \"project\" ({at}:2)\n[web] from_policy: blocked_domains *.example.com ← deny \"net:*.example.com\" in layer \"project\" ({at}:3)"
        )),
        "{stdout}"
    );
}

/// A table stated but left empty (`prices = {}`, a bare `[providers.openai]`) is
/// listed as `{}` where it stands, so `config` shows it was read.
#[test]
fn config_lists_an_empty_table_where_it_stands() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    std::fs::write(
        &p,
        "provider = \"openai\"\nprices = {}\n[providers.openai]\n[task]\ngoal = \"g\"\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(bin().args(["config", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0, "{stderr}");
    let p = p.display();
    assert!(
        stdout.contains(&format!("prices = {{}}  {p}:2\n")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("providers.openai = {{}}  {p}:3\n")),
        "{stdout}"
    );
}

/// Issue 26, item 2: a host is compared as a host — lowercased, IDNA to ASCII,
/// one trailing dot removed, an IPv4 address in any number form written dotted —
/// wherever a rule or a domain list meets it, so `example.com.` is not a way
/// around `deny = ["net:example.com"]`.
#[test]
fn hosts_meet_rules_and_domain_lists_as_hosts() {
    let c = Config::parse(
        "[policy]\nallow = [\"net:*\"]\ndeny = [\"net:example.com\", \"net:*.example.org\", \"net:Bücher.example\", \"net:127.0.0.1:18002\"]\n",
        "io.toml",
    )
    .unwrap();
    let p = c.policy();
    for target in [
        "example.com.:80",
        "EXAMPLE.com.:443",
        "a.example.org.:443",
        "xn--bcher-kva.example:443",
        "bücher.example.:443",
        "2130706433:18002",
        "0x7f000001:18002",
        "127.0.0.1.:18002",
    ] {
        assert_eq!(p.decide(Act::Net, target).effect, Effect::Deny, "{target}");
    }
    assert_eq!(p.decide(Act::Net, "example.net:443").effect, Effect::Allow);
    assert_eq!(p.decide(Act::Net, "127.0.0.1:18001").effect, Effect::Allow);
    // The [web] lists: a blocked host takes its allowed twin out, however written.
    let web = io_harness::WebAccess::search()
        .allow("Docs.RS.")
        .allow("crates.io")
        .block("docs.rs");
    assert_eq!(web.vendor_filter(), (vec!["crates.io".to_string()], vec![]));
    let web = io_harness::WebAccess::search()
        .allow("docs.rs")
        .block("Docs.RS.");
    assert!(web.emptied().is_some());
    // Projected from the policy, the hosts are the normalised ones.
    let c = Config::parse(
        "[web]\nsearch = true\nfrom_policy = true\n[policy]\nallow = [\"net:Docs.RS.\"]\ndeny = [\"net:Bücher.example:443\"]\n",
        "io.toml",
    )
    .unwrap();
    let web = c.web.clone().unwrap();
    assert_eq!(web.allowed_domains, ["docs.rs"]);
    assert_eq!(web.blocked_domains, ["xn--bcher-kva.example"]);
}

/// Issue 26, item 2: `http_get` refuses `example.com.` under a deny of
/// `example.com` before any lookup.
#[tokio::test]
async fn http_get_refuses_a_trailing_dot_host_a_rule_denies() {
    let c = Config::parse(EXAMPLE_POLICY, "io.toml").unwrap();
    let policy = c.policy();
    let dir = tempfile::tempdir().unwrap();
    let emit = |_: io_harness::EventKind| {};
    let env = io_harness::run::tools::ToolEnv {
        workspace: dir.path(),
        policy: &policy,
        approver: &io_harness::ApproveAll,
        emit: &emit,
    };
    for url in ["https://api.example.com./v1", "https://API.Example.COM./"] {
        let call = io_harness::ToolCall {
            id: "t".into(),
            name: "http_get".into(),
            input: serde_json::json!({ "url": url }),
        };
        let r = io_harness::run::tools::execute(&env, &call).await;
        assert!(!r.ok, "{url}");
        assert!(
            r.output.ends_with(
                "is denied by rule deny(\"*.example.com\") in layer \"project\" (io.toml:4)"
            ),
            "{url}: {}",
            r.output
        );
    }
}
