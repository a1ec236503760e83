//! The `io-harness` binary: the operator console (no subcommand) and the headless
//! subcommands, over the `io_harness` library.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    // Diagnostics go to stderr, quiet unless RUST_LOG asks; the console keeps them
    // off the screen by logging to a file instead (see console::open).
    if cli.command.is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_default_env()
                    .unwrap_or_else(|_| "warn".into()),
            )
            .with_writer(std::io::stderr)
            .init();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("io-harness: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(cli::main(cli))
}
