//! Issue 26 item 10, the smaller boundaries: `config` never shows a URL's
//! password, `[run] cache_ttl` without `cache = true` is said to have no
//! effect, `--providers` naming a vendor twice is refused naming it, and a
//! search query is capped in its terms. Each was seen failing before its fix.

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
use io_harness::store::search::SearchQuery;

fn listing(text: &str) -> Vec<String> {
    Config::from_scopes(vec![io_harness::config::Scope {
        layer: "project".into(),
        path: "io.toml".into(),
        text: text.into(),
    }])
    .unwrap()
    .listing()
    .iter()
    .map(ToString::to_string)
    .collect()
}

#[test]
fn config_never_shows_a_urls_password() {
    let shown = listing(
        "[telemetry]\notlp_endpoint = \"http://user:secret@collector:4318\"\n\
         [providers.openai]\nbase_url = \"https://proxy-user:pw@proxy.example/v1\"\n\
         [providers.anthropic]\nbase_url = \"https://TOKEN1234@gateway.example\"\n",
    );
    let all = shown.join("\n");
    for secret in ["secret", ":pw@", "TOKEN1234"] {
        assert!(!all.contains(secret), "{secret} shown:\n{all}");
    }
    for line in [
        "telemetry.otlp_endpoint = \"http://user:[redacted]@collector:4318\"  io.toml:2",
        "providers.openai.base_url = \"https://proxy-user:[redacted]@proxy.example/v1\"  io.toml:4",
        "providers.anthropic.base_url = \"https://[redacted]@gateway.example\"  io.toml:6",
    ] {
        assert!(shown.contains(&line.to_string()), "{line} not in:\n{all}");
    }
    // A URL with no credentials is shown as written.
    assert!(
        listing("[telemetry]\notlp_endpoint = \"http://collector:4318\"\n").contains(
            &"telemetry.otlp_endpoint = \"http://collector:4318\"  io.toml:2".to_string()
        )
    );

    // The variable's endpoint, when it is the one in effect, likewise.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    std::fs::write(&p, "provider = \"anthropic\"\n").unwrap();
    let mut c = bin();
    c.args(["config", "--config", p.to_str().unwrap()])
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_SDK_DISABLED")
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://user:hunter2hunter2@127.0.0.1:4318",
        );
    let (code, out, err) = run(&mut c);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("hunter2"), "{out}");
    assert!(
        out.contains(
            "telemetry.otlp_endpoint = \"http://user:[redacted]@127.0.0.1:4318/v1/traces\""
        ),
        "{out}"
    );
}

#[test]
fn cache_ttl_without_cache_is_said_to_have_no_effect() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    let words = "[run] cache_ttl = \"1h\" has no effect: prompt caching is off; set cache = true in [run] to cache for 1h";
    std::fs::write(
        &p,
        "provider = \"anthropic\"\n[task]\ngoal = \"g\"\n[run]\ncache_ttl = \"1h\"\n",
    )
    .unwrap();
    // `preview` says it with its notes (on stdout; with --body-only on stderr),
    // `run` on stderr before it starts.
    let (code, out, err) = run(bin().args(["preview", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(words), "{out}");
    let (code, _, err) =
        run(bin().args(["preview", "--body-only", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(words), "{err}");
    let (code, _, err) = run(bin().args(["run", "--demo", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.lines().next().unwrap_or_default().contains(words),
        "{err}"
    );
    // `config` says it beside the key.
    let (code, out, _) = run(bin().args(["config", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!(
            "run.cache_ttl = \"1h\"  (no effect: prompt caching is off; set cache = true in [run])  {}:5",
            p.display()
        )),
        "{out}"
    );
    // With caching on, nothing is said.
    std::fs::write(
        &p,
        "provider = \"anthropic\"\n[task]\ngoal = \"g\"\n[run]\ncache = true\ncache_ttl = \"1h\"\n",
    )
    .unwrap();
    let (code, out, err) = run(bin().args(["preview", "--config", p.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("no effect") && !err.contains("no effect"),
        "{out}{err}"
    );
    let (_, out, _) = run(bin().args(["config", "--config", p.to_str().unwrap()]));
    assert!(!out.contains("no effect"), "{out}");
}

#[test]
fn providers_naming_a_vendor_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    std::fs::write(&p, "[task]\ngoal = \"g\"\n[store]\npath = \"runs.db\"\n").unwrap();
    let (code, out, err) = run(bin().args([
        "run",
        "--config",
        p.to_str().unwrap(),
        "--providers",
        "anthropic,anthropic,openai",
    ]));
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(
        err.trim_end(),
        "--providers names anthropic twice; name each vendor once"
    );
}

#[test]
fn a_search_query_is_capped_in_its_terms() {
    let store = io_harness::Store::open_in_memory().unwrap();
    let q = |text: String| SearchQuery {
        text,
        limit: 20,
        run: None,
        rank: false,
    };
    let long = vec!["word"; 20_000].join(" ");
    let started = std::time::Instant::now();
    let e = store.search(&q(long)).unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(
        e.to_string(),
        "the query has 20000 terms; search takes at most 64: search for fewer words"
    );
    assert!(matches!(e, io_harness::Error::Refused(_)), "{e:?}");
    // Words joined by punctuation are terms to FTS5 all the same.
    let dotted = vec!["w"; 65].join(".");
    assert!(store.search(&q(dotted)).is_err());
    // 64 terms are searched.
    let most = vec!["word"; 64].join(" ");
    assert_eq!(store.search(&q(most)).unwrap(), vec![]);

    // Through the binary: exit 2, the cap named.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    std::fs::write(&p, "[store]\npath = \"runs.db\"\n").unwrap();
    let (code, _, err) = run(bin().args([
        "search",
        &vec!["word"; 65].join(" "),
        "--config",
        p.to_str().unwrap(),
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("search takes at most 64"), "{err}");
}
