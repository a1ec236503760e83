//! The corpus of broken `io.toml` files under `tests/fixtures/config/`: each
//! `NN-what.toml` is refused with exactly the message in its `NN-what.err`, and
//! every message names the line, the table and the key. `BLESS=1 cargo test --test
//! config_corpus` rewrites the `.err` files from what the parser says now (review
//! the diff before committing it).

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use io_harness::Config;
use pretty_assertions::assert_eq;

fn corpus() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_broken_file_gets_its_exact_message() {
    let bless = std::env::var_os("BLESS").is_some();
    let files = corpus();
    assert!(files.len() >= 40, "{} files", files.len());
    for toml in files {
        let text = std::fs::read_to_string(&toml).unwrap();
        let got = match Config::parse(&text, "io.toml") {
            Ok(_) => "(accepted)".to_string(),
            Err(e) => {
                assert!(e.is_config());
                e.to_string()
            }
        };
        let err = toml.with_extension("err");
        if bless {
            std::fs::write(&err, format!("{got}\n")).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&err).unwrap_or_default();
        assert_eq!(got, want.trim_end(), "{}", toml.display());
        // File, line, and a key or table, always.
        assert!(got.starts_with("io.toml:"), "{got}");
        let line: String = got["io.toml:".len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        assert!(!line.is_empty(), "no line in {got}");
        assert!(got.contains('`') || got.contains('['), "no key in {got}");
    }
}

#[test]
fn no_message_echoes_what_was_put_in_api_key_env() {
    let e = Config::parse(
        "[providers.anthropic]\napi_key_env = \"sk-ant-api03 abc==\"\n",
        "io.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(!e.contains("sk-ant-api03"), "{e}");
}

#[test]
fn the_example_states_the_response_bounds_at_their_defaults() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("io.toml.example");
    let c = Config::load(&path).unwrap();
    let v = io_harness::Vendor::Anthropic;
    assert_eq!(
        c.max_response_bytes(v),
        io_harness::provider::DEFAULT_MAX_RESPONSE_BYTES
    );
    assert_eq!(
        c.request_timeout(v),
        io_harness::provider::DEFAULT_REQUEST_TIMEOUT
    );
    let p = &c.providers[&v];
    assert_eq!(
        (p.max_response_bytes, p.request_timeout_secs),
        (Some(32 * 1024 * 1024), Some(600))
    );
}
