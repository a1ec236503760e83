//! The README and the pages under docs/ cannot drift from the binary. Every
//! ```console block in README.md and in each docs/*.md is run by trycmd against the
//! real `io-harness`: a file's blocks in order, in a fresh folder of the file's own
//! (no io.toml, no store, the user's io.toml and the `OTEL_*` and key variables of
//! this environment left out), so a page that needs a run makes it in a block of
//! its own first. What a block prints must be what it shows; `[..]` (within a
//! line) and `...` (whole lines) stand only for what varies from run to run —
//! times, dates, ports, the temporary folder (`[DATA]` is the data directory the
//! store goes in). The README's command list under "## The command line" names
//! exactly the subcommands `io-harness --help` lists, each with flags its own
//! `--help` has. Every page links back to the README in its opening line, and the
//! README links every page.
//!
//! After a deliberate change to what the binary prints,
//! `TRYCMD=overwrite cargo test --test all readme` rewrites the blocks in README.md
//! and docs/*.md (review the diff: put the wildcards back where a figure varies).
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

/// The pages under docs/, by path relative to the repository, in name order.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("a docs folder")
        .map(|e| e.expect("a docs entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(root).expect("under the root").to_path_buf())
        .collect();
    pages.sort();
    pages
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
        // `export` and `store` have subcommands of their own; the list shows
        // `export otlp` and `store copy`.
        if name == "export" {
            args.push("otlp");
        }
        if name == "store" {
            args.push("copy");
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

/// Runs the ```console blocks of one Markdown file (relative to the repository)
/// in order, in a fresh folder of its own.
fn run_console_blocks(file: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::Builder::new()
        .prefix("readme")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a temporary folder");
    let dir = dir.path().canonicalize().expect("the folder's real path");
    // trycmd runs a Markdown file's commands in `NAME.in/` beside it: a copy of the
    // file beside an empty folder is a fresh clone's first minutes.
    let name = file.file_name().expect("a file name");
    let case = dir.join(name);
    std::fs::copy(root.join(file), &case).expect("the Markdown file copied");
    let cwd = dir.join(Path::new(name).with_extension("in"));
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
        std::fs::copy(&case, root.join(file)).expect("the Markdown file written back");
    }
}

#[test]
fn the_readmes_console_blocks_are_what_the_binary_prints() {
    run_console_blocks(Path::new("README.md"));
}

#[test]
fn every_docs_pages_console_blocks_are_what_the_binary_prints() {
    let pages = pages();
    assert!(pages.len() > 5, "docs/ holds the pages: {pages:?}");
    for page in pages {
        run_console_blocks(&page);
    }
}

#[test]
fn every_page_links_back_to_the_readme_and_the_readme_links_every_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = readme();
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).expect("the page");
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let title = lines.next().unwrap_or_default();
        let summary = lines.next().unwrap_or_default();
        assert!(
            title.starts_with("# ") && summary.contains("](../README.md)"),
            "{} opens with its title and then one line saying what it covers, with a link back to ../README.md; it opens:\n{title}\n{summary}",
            page.display()
        );
        let link = format!("]({})", page.display());
        assert!(
            readme.contains(&link),
            "the README does not link {} (no `{link}`)",
            page.display()
        );
    }
}

/// Every crate Cargo.toml depends on (normal, target-specific and dev), by name.
fn dependencies() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_deps = line.trim_end().ends_with("dependencies]");
        } else if in_deps && let Some((name, _)) = line.split_once(" = ") {
            let name = name.trim();
            if !name.is_empty() && !name.starts_with('#') && !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// The words of a text as crate names are written (letters, digits, `-`, `_`).
fn words(text: &str) -> std::collections::HashSet<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

#[test]
fn the_readme_and_the_dependencies_page_say_why_each_crate_is_here() {
    let crates = dependencies();
    assert!(crates.len() > 20, "Cargo.toml's dependencies: {crates:?}");
    let readme = readme();
    let section = readme
        .split("\n## Dependencies\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a `## Dependencies` section in the README");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/dependencies.md")).expect("the page");
    for (name, text) in [
        ("the README's Dependencies", section),
        ("docs/dependencies.md", &page),
    ] {
        let named = words(text);
        let missing: Vec<&String> = crates
            .iter()
            .filter(|c| !named.contains(c.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "{name} does not say why {missing:?} is here"
        );
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
