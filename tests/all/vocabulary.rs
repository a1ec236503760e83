//! The domain's words are types (issue 32, item 1): a vendor, a run's outcome,
//! a citation's verdict and an eval question's status are `core` enums, spelt
//! once (`core::word`), and strings only where the outside world is read or
//! written. Two grep-level checks over `src/` hold that: no struct field or
//! parameter of those names is a string outside the edge modules, and no code
//! compares a string with one of their spellings. Each check also runs on a
//! planted line and must find it.

use std::path::{Path, PathBuf};

/// Where a word is read from or written to the outside as text: the command
/// line's arguments (clap) and io.toml as written.
const EDGES: [&str; 2] = ["cli/", "config/file.rs"];

/// Every spelling of a vendor, outcome, verdict and question status — but the
/// outcome `error`, a word vendors' events and the theme's keys use too.
const SPELLINGS: [&str; 19] = [
    "anthropic",
    "openai",
    "openrouter",
    "gemini",
    "passed",
    "failed",
    "budget_exhausted",
    "cancelled",
    "refused",
    "truncated",
    "interrupted",
    "found",
    "not_found",
    "no_quote",
    "unreachable",
    "not_allowed",
    "pending",
    "done",
    "skipped",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Lines of `text` that declare a field or parameter named for a word as a
/// string, as `file:line: text`.
fn string_words(file: &str, text: &str) -> Vec<String> {
    let re = regex::Regex::new(
        r"\b(provider|vendor|outcome|verdict|status)\s*:\s*(&'static str|&str|String|Option<String>|Option<&str>)\b",
    )
    .expect("regex");
    found(file, text, &re)
}

/// Lines of `text` that compare a string with a word's spelling.
fn compared_spellings(file: &str, text: &str) -> Vec<String> {
    let words = SPELLINGS.join("|");
    let re = regex::Regex::new(&format!(
        r#"(==|!=)\s*"({words})"|"({words})"\s*(==|!=|=>)"#
    ))
    .expect("regex");
    found(file, text, &re)
}

fn found(file: &str, text: &str, re: &regex::Regex) -> Vec<String> {
    let mut in_tests = false;
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            // Tests state spellings on purpose; they start at `mod tests`.
            in_tests |= l.trim_start().starts_with("mod tests");
            !in_tests && !l.trim_start().starts_with("//")
        })
        .filter(|(_, l)| re.is_match(l))
        .map(|(n, l)| format!("{file}:{}: {}", n + 1, l.trim()))
        .collect()
}

#[test]
fn the_domains_words_are_types_outside_the_edges() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(files.len() > 100, "the source tree was not read");
    let mut bad = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&src)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(path).expect("a source file");
        if !EDGES.iter().any(|e| rel.starts_with(e)) {
            bad.extend(string_words(&rel, &text));
        }
        bad.extend(compared_spellings(&rel, &text));
    }
    assert!(
        bad.is_empty(),
        "a vendor, outcome, verdict or status as a string (use the core word):\n{}",
        bad.join("\n")
    );
}

#[test]
fn each_check_finds_its_planted_line() {
    let planted = "pub struct Row {\n    pub provider: String,\n}\nfn f(verdict: &str) {}\n\
                   fn g(v: &str) -> bool { v == \"gemini\" }\nfn h(o: &str) { match o { \"passed\" => {} _ => {} } }\n\
                   // outcome: String in a comment is not code\n#[cfg(test)]\nmod tests {\n    fn t(status: String) {}\n}\n";
    assert_eq!(
        string_words("x.rs", planted),
        [
            "x.rs:2: pub provider: String,",
            "x.rs:4: fn f(verdict: &str) {}"
        ]
    );
    assert_eq!(
        compared_spellings("x.rs", planted),
        [
            "x.rs:5: fn g(v: &str) -> bool { v == \"gemini\" }",
            "x.rs:6: fn h(o: &str) { match o { \"passed\" => {} _ => {} } }"
        ]
    );
}
