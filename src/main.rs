//! The `io-harness` binary: the operator console and the headless subcommands.
fn main() {}
