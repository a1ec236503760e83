//! The real binary, for the command-line tests: spawned with no API key in its
//! environment and never the real user config directory, and its exit code,
//! stdout and stderr read back.

#![allow(dead_code, clippy::unwrap_used)]

use std::process::{Command, Output};

/// `io-harness`, isolated from the keys and the user config of whoever runs the
/// tests (an empty `IO_HARNESS_USER_CONFIG` reads no user file).
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_io-harness"));
    c.env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENROUTER_API_KEY")
        .env(io_harness::USER_CONFIG_ENV, "");
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
