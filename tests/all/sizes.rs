//! Keeps the source readable in one sitting: no file under `src/` over 600
//! lines and no function over 100 (issue 25's measure). A function is counted
//! from its `fn` line to the brace that closes its body, with comments, string
//! and character literals stripped before braces are counted.

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 100;

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

/// `line` without its comment, string and character literals (raw strings
/// included), so the braces left are code's. `in_block` carries a block comment
/// and `in_str` a string across lines.
fn code(line: &str, in_block: &mut bool, in_str: &mut Option<usize>) -> String {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if *in_block {
            if b[i..].starts_with(b"*/") {
                *in_block = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        if let Some(hashes) = *in_str {
            if b[i] == b'\\' && hashes == 0 {
                i += 2;
                continue;
            }
            if b[i] == b'"' && b[i + 1..].iter().take_while(|&&c| c == b'#').count() >= hashes {
                *in_str = None;
                i += 1 + hashes;
            } else {
                i += 1;
            }
            continue;
        }
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => break,
            b'/' if b.get(i + 1) == Some(&b'*') => {
                *in_block = true;
                i += 2;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    *in_str = Some(hashes);
                    i += 2 + hashes;
                } else {
                    out.push('r');
                    i += 1;
                }
            }
            b'"' => {
                *in_str = Some(0);
                i += 1;
            }
            // A character literal ('{', '\'', '\u{7b}'), not a lifetime ('a).
            b'\'' => {
                let rest = &line[i + 1..];
                let close = if rest.starts_with('\\') {
                    rest[2..].find('\'').map(|n| n + 2)
                } else {
                    rest.chars()
                        .next()
                        .filter(|c| rest[c.len_utf8()..].starts_with('\''))
                        .map(char::len_utf8)
                };
                match close {
                    Some(n) => i += n + 2,
                    None => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
            c => {
                out.push(c as char);
                i += 1;
            }
        }
    }
    out
}

/// Each function of `text` longer than the limit: its name, first line, length.
fn long_functions(text: &str) -> Vec<(String, usize, usize)> {
    let (mut in_block, mut in_str) = (false, None);
    let lines: Vec<String> = text
        .lines()
        .map(|l| code(l, &mut in_block, &mut in_str))
        .collect();
    let mut found = Vec::new();
    // Open functions: (name, first line, brace depth its body opens at).
    let mut open: Vec<(String, usize, i64)> = Vec::new();
    let mut pending: Option<(String, usize)> = None;
    // Brackets open in a pending signature: a `;` inside one (`[u8; 4]`) does
    // not end a declaration.
    let mut nest: i64 = 0;
    let mut depth: i64 = 0;
    for (n, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(at) = words.iter().position(|w| *w == "fn") {
            if let Some(name) = words.get(at + 1) {
                pending = Some(((*name).to_string(), n));
                nest = 0;
            }
        }
        for c in line.chars() {
            match c {
                '{' => {
                    if let Some((name, first)) = pending.take() {
                        open.push((name, first, depth));
                    }
                    depth += 1;
                }
                '}' => {
                    depth -= 1;
                    if open.last().is_some_and(|o| o.2 == depth) {
                        let (name, first, _) = open.pop().expect("an open function");
                        let len = n - first + 1;
                        if len > MAX_FN_LINES {
                            found.push((name, first + 1, len));
                        }
                    }
                }
                '(' | '[' if pending.is_some() => nest += 1,
                ')' | ']' if pending.is_some() => nest -= 1,
                // A declaration without a body (a trait's).
                ';' if pending.is_some()
                    && nest <= 0
                    && open.last().is_none_or(|o| o.2 < depth) =>
                {
                    pending = None;
                }
                _ => {}
            }
        }
    }
    found
}

#[test]
fn no_file_over_600_lines_and_no_function_over_100() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 100, "the source tree was not read");
    let mut over = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a source file");
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let n = text.lines().count();
        if n > MAX_FILE_LINES {
            over.push(format!("{shown}: {n} lines (at most {MAX_FILE_LINES})"));
        }
        for (name, line, len) in long_functions(&text) {
            over.push(format!(
                "{shown}:{line}: fn {name} is {len} lines (at most {MAX_FN_LINES})"
            ));
        }
    }
    assert!(
        over.is_empty(),
        "split these so a reader can hold them:\n{}",
        over.join("\n")
    );
}

#[test]
fn the_counter_sees_braces_in_strings_and_comments_as_text() {
    let body = (0..120).map(|_| "    x();\n").collect::<String>();
    let long = format!("fn long() {{\n{body}}}\n");
    assert_eq!(long_functions(&long), [("long".to_string(), 1, 122)]);
    let fooled =
        "fn short() {\n    let s = \"}}}\"; // }\n    let c = '}';\n    let r = r#\"}\"#;\n}\n";
    assert!(long_functions(&format!("{fooled}{long}")).len() == 1);
    let trait_decl = format!("trait T {{\n    fn f(&self);\n}}\n{long}");
    assert_eq!(long_functions(&trait_decl)[0].0, "long");
}

/// A `;` inside a signature's brackets (`[u8; 4]`, `[(); N]`) is not the end of
/// a declaration without a body: the function after it is measured (issue 32,
/// item 7 — such a signature hid a 122-line function).
#[test]
fn a_semicolon_in_a_signature_hides_no_function() {
    let body = (0..120).map(|_| "    x();\n").collect::<String>();
    let arrays = format!("fn packed(bytes: [u8; 4], pad: [(); 2]) -> [u8; 4] {{\n{body}}}\n");
    assert_eq!(long_functions(&arrays), [("packed".to_string(), 1, 122)]);
    let split = format!("fn split(\n    bytes: [u8; 4],\n) {{\n{body}}}\n");
    assert_eq!(long_functions(&split)[0].0, "split");
}
