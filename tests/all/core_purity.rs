//! Keeps the pure ring honest: nothing under src/core may name an I/O crate, the
//! file system, the clock or the terminal.

use std::path::Path;

const FORBIDDEN: [&str; 9] = [
    "reqwest",
    "rusqlite",
    "tokio",
    "ratatui",
    "crossterm",
    "std::fs",
    "Instant::now",
    "SystemTime::now",
    "std::env",
];

fn scan(dir: &Path, hits: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            scan(&path, hits);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                // Test modules may use temp files; the ring is the non-test code.
                if line.trim_start().starts_with("#[cfg(test)]") {
                    break;
                }
                for word in FORBIDDEN.iter().filter(|w| line.contains(**w)) {
                    hits.push(format!("{}:{}: {word}", path.display(), n + 1));
                }
            }
        }
    }
}

#[test]
fn the_core_does_no_io() {
    let mut hits = Vec::new();
    scan(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core"),
        &mut hits,
    );
    assert!(
        hits.is_empty(),
        "I/O in the pure core:\n{}",
        hits.join("\n")
    );
}
