//! The README cannot drift from the binary. Every ```console block in README.md is
//! run by trycmd against the real `io-harness`, in order, in a fresh folder of its
//! own (no io.toml, no store, the user's io.toml and the `OTEL_*` and key
//! variables of this environment left out), and what it prints must be what the
//! block shows; `[..]` (within a line) and `...` (whole lines) stand only for what
//! varies from run to run — times, dates, ports, the temporary folder (`[DATA]` is
//! the data directory the store goes in). The command list under "## The command
//! line" names exactly the subcommands `io-harness --help` lists, each with flags
//! its own `--help` has.
//!
//! After a deliberate change to what the binary prints,
//! `TRYCMD=overwrite cargo test --test all readme` rewrites the blocks in README.md
//! (review the diff: put the wildcards back where a figure varies).
#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_io-harness");

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).expect("README.md")
}

/// `io-harness ARGS --help`, as printed.
fn help(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--help")
        .env(io_harness::USER_CONFIG_ENV, "")
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "{args:?} --help: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The subcommands a `--help` lists under "Commands:", `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The README's command list: each subcommand named at the start of a line of the
/// first fenced block under "## The command line" (`io-harness [console]` names the
/// console), with the `--flags` its lines (and their indented continuations) give.
fn command_list(readme: &str) -> Vec<(String, Vec<String>)> {
    let section = readme
        .split("\n## The command line\n")
        .nth(1)
        .expect("a `## The command line` section");
    let block = section
        .split("\n```")
        .nth(1)
        .expect("a fenced block in `## The command line`");
    let mut list: Vec<(String, Vec<String>)> = Vec::new();
    for line in block.lines().skip(1) {
        let synopsis = line.split(" # ").next().unwrap_or(line);
        let mut words = synopsis.split_whitespace();
        if line.starts_with("io-harness") {
            words.next();
            let name = words
                .next()
                .map(|w| w.trim_matches(|c| c == '[' || c == ']'))
                .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .filter(|w| !w.is_empty())
                .expect("each line of the command list names its subcommand");
            match list.iter().position(|(n, _)| n == name) {
                Some(i) => {
                    let entry = list.remove(i);
                    list.push(entry);
                }
                None => list.push((name.to_string(), Vec::new())),
            }
        }
        let flags = words
            .flat_map(|w| w.split(['[', ']', '|', '=']))
            .filter(|w| w.starts_with("--"))
            .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()));
        let entry = list.last_mut().expect("a continuation follows a command");
        entry.1.extend(flags.map(str::to_string));
    }
    list
}

#[test]
fn the_command_list_names_every_subcommand_and_only_those() {
    let listed = subcommands(&help(&[]));
    assert!(listed.len() > 5, "io-harness --help lists its subcommands");
    let readme = command_list(&readme());
    let in_readme: Vec<&str> = readme.iter().map(|(n, _)| n.as_str()).collect();
    let missing: Vec<&String> = listed
        .iter()
        .filter(|n| !in_readme.contains(&n.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "io-harness --help lists {missing:?}, the README's command list does not"
    );
    let unknown: Vec<&&str> = in_readme
        .iter()
        .filter(|n| !listed.iter().any(|l| l == **n))
        .collect();
    assert!(
        unknown.is_empty(),
        "the README's command list names {unknown:?}, io-harness --help does not"
    );
}

#[test]
fn every_flag_the_command_list_gives_is_one_its_subcommand_takes() {
    for (name, flags) in command_list(&readme()) {
        let mut args = vec![name.as_str()];
        // `export` has subcommands of its own; the list shows `export otlp`.
        if name == "export" {
            args.push("otlp");
        }
        let help = help(&args);
        for flag in flags {
            let taken = help
                .lines()
                .any(|l| l.split([' ', ',', '=']).any(|w| w == flag));
            assert!(
                taken,
                "the README's command list gives `io-harness {name} {flag}`; `io-harness {} --help` has no {flag}:\n{help}",
                args.join(" ")
            );
        }
    }
}

#[test]
fn the_readmes_console_blocks_are_what_the_binary_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::Builder::new()
        .prefix("readme")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a temporary folder");
    let dir = dir.path().canonicalize().expect("the folder's real path");
    // trycmd runs a Markdown file's commands in `NAME.in/` beside it: a copy of the
    // README beside an empty folder is a fresh clone's first minutes.
    let case = dir.join("README.md");
    std::fs::copy(root.join("README.md"), &case).expect("README.md copied");
    let cwd = dir.join("README.in");
    let home = dir.join("home");
    let data = dir.join("data");
    for d in [&cwd, &home, &data] {
        std::fs::create_dir_all(d).expect("a folder");
    }
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("io-harness", PathBuf::from(BIN))
        .timeout(std::time::Duration::from_secs(120))
        .env("HOME", home.display().to_string())
        .env("XDG_DATA_HOME", data.display().to_string())
        .env(
            "XDG_CONFIG_HOME",
            home.join(".config").display().to_string(),
        )
        .env(io_harness::USER_CONFIG_ENV, "");
    // Empty is unset to the binary: nothing of this environment's reaches a run.
    for var in [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "GEMINI_API_KEY",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_SERVICE_NAME",
        "BROWSER",
    ] {
        cases.env(var, "");
    }
    cases
        .insert_var("[DATA]", data.join("io-harness").display().to_string())
        .expect("[DATA] is a valid variable");
    cases.case(&case);
    cases.run();
    // TRYCMD=overwrite rewrote the copy: bring it home.
    if std::env::var_os("TRYCMD").is_some_and(|m| m == "overwrite") {
        std::fs::copy(&case, root.join("README.md")).expect("README.md written back");
    }
}

#[test]
fn export_otlp_help_names_both_protocols() {
    let help = help(&["export", "otlp"]);
    assert!(
        help.contains("OTLP/HTTP") && help.contains("gRPC"),
        "`export otlp` sends over HTTP or gRPC (protocol = \"grpc\"); its help says:\n{help}"
    );
}

#[test]
fn stub_vendor_takes_neither_config_nor_store() {
    let help = help(&["stub-vendor"]);
    let offered = |flag: &str| help.lines().any(|l| l.trim_start().starts_with(flag));
    assert!(
        !offered("--config") && !offered("--store"),
        "stub-vendor reads neither; its help offers them:\n{help}"
    );
    for args in [
        &[
            "--config",
            "io.toml",
            "stub-vendor",
            "--listen",
            "127.0.0.1:0",
        ][..],
        &["stub-vendor", "--listen", "127.0.0.1:0", "--store", "s.db"][..],
    ] {
        let mut child = Command::new(BIN)
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().expect("a status") {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{args:?} served instead of refusing");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
            .expect("stderr read");
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("stub-vendor reads no io.toml and no store"),
            "{args:?}: {stderr}"
        );
    }
}
