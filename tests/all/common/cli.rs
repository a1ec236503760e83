//! The real binary, for the command-line tests: spawned with no API key in its
//! environment and never the real user config directory, and its exit code,
//! stdout and stderr read back.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

/// `io-harness`, isolated from the keys and the user config of whoever runs the
/// tests (an empty `IO_HARNESS_USER_CONFIG` reads no user file).
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_io-harness"));
    c.env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENROUTER_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .env_remove("GOOGLE_API_KEY")
        .env_remove("XAI_API_KEY")
        .env_remove("PERPLEXITY_API_KEY")
        .env(io_harness::USER_CONFIG_ENV, "")
        // Nor the real data directory: a command given no --store (and a
        // comparison's copies) writes under the tests' own, in this build's
        // folder (a store another checkout's binary migrated is not met here).
        .env(
            "XDG_DATA_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("io-harness-tests-data"),
        );
    c
}

/// Run it: the exit code (-1 when killed), stdout, stderr.
pub fn run(c: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = c.output().unwrap();
    (
        status.code().unwrap_or(-1),
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

/// The binary in `dir`, on its `io.toml` and its store `data/runs.db`.
pub fn at(dir: &Path) -> Command {
    let mut c = bin();
    c.current_dir(dir)
        .args(["--config", "io.toml", "--store", "data/runs.db"]);
    c
}

/// A fresh folder with an empty `io.toml`: embedded defaults only.
pub fn place() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    dir
}

/// `args` run in `dir` (as `at`), exiting 0, their stdout read as JSON.
pub fn json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let (code, out, err) = run(at(dir).args(args));
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}
