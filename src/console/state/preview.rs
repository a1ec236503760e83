//! The preview's lines: the exact request the encoder produced (method and URL,
//! redacted headers, a blank line, the pretty body), each marked when the web
//! declaration added it — the request compared with the same turn declaring nothing
//! — and local tool schemas optionally folded to one line each.
//!
//! Pure: it reads the `WireRequest`s the transport would send and never builds a
//! body of its own. Folding only replaces a local tool entry (one present in the
//! undeclared request too) by a one-line summary; what the declaration adds is never
//! folded.

use serde_json::Value;

use crate::core::turn::WireRequest;

/// One line of a previewed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewLine {
    /// The text.
    pub text: String,
    /// True when the declaration added it (absent from the undeclared request).
    pub added: bool,
}

/// Marks a folded tool in the pretty body before it is replaced by its summary.
const MARK: &str = "\u{E000}fold:";

/// The request as lines, diffed against `baseline` (the same turn declaring
/// nothing); with `folded`, every local tool entry is one summary line; on the
/// `demo`, a key header says the stub checks none (`HeaderValue::previewed`).
pub fn request_lines(
    request: &WireRequest,
    baseline: Option<&WireRequest>,
    folded: bool,
    demo: bool,
) -> Vec<PreviewLine> {
    let base_tools = baseline.map(|b| tools_of(&b.body)).unwrap_or_default();
    let lines = render(request, &base_tools, folded, demo);
    let Some(baseline) = baseline else {
        return lines
            .into_iter()
            .map(|text| PreviewLine { text, added: false })
            .collect();
    };
    let before = render(baseline, &base_tools, folded, demo);
    // A trailing comma appears on the last local tool once web entries follow it.
    let key = |l: &String| l.trim_end_matches(',').to_string();
    let before: Vec<String> = before.iter().map(key).collect();
    let after: Vec<String> = lines.iter().map(key).collect();
    let kept = common(&before, &after);
    lines
        .into_iter()
        .zip(kept)
        .map(|(text, kept)| PreviewLine { text, added: !kept })
        .collect()
}

fn tools_of(body: &[u8]) -> Vec<Value> {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("tools").and_then(Value::as_array).cloned())
        .unwrap_or_default()
}

/// The tool's name wherever the vendor puts it (`name`, or `function.name`).
fn tool_name(tool: &Value) -> String {
    tool.get("name")
        .or_else(|| tool.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
        .unwrap_or("tool")
        .to_string()
}

fn render(request: &WireRequest, local_tools: &[Value], folded: bool, demo: bool) -> Vec<String> {
    // The URL as the operator may see it (credentials in it scrubbed).
    let url = crate::provider::scrub::display_url(&request.url);
    let mut lines = vec![format!("{} {url}", request.method)];
    lines.extend(
        request
            .headers
            .iter()
            .map(|(n, h)| format!("{n}: {}", h.previewed(demo))),
    );
    lines.push(String::new());
    let Ok(mut body) = serde_json::from_slice::<Value>(&request.body) else {
        lines.extend(
            String::from_utf8_lossy(&request.body)
                .lines()
                .map(str::to_string),
        );
        return lines;
    };
    let mut names = Vec::new();
    if folded {
        if let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) {
            for tool in tools.iter_mut() {
                if local_tools.contains(tool) {
                    names.push(tool_name(tool));
                    *tool = Value::String(format!("{MARK}{}", names.len() - 1));
                }
            }
        }
    }
    let pretty = serde_json::to_string_pretty(&body).unwrap_or_default();
    for line in pretty.lines() {
        match line.find(&format!("\"{MARK}")) {
            Some(at) => {
                let indent = &line[..at];
                let rest = &line[at + 1 + MARK.len()..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let comma = if line.ends_with(',') { "," } else { "" };
                let name = digits
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| names.get(i))
                    .map_or("tool", String::as_str);
                lines.push(format!("{indent}▸ {name} {{…}}{comma}"));
            }
            None => lines.push(line.to_string()),
        }
    }
    lines
}

/// For each line of `after`, whether it is part of a longest common subsequence
/// with `before` (so unmarked); the rest were added. Inputs are a few hundred
/// lines, so the quadratic table is small.
fn common(before: &[String], after: &[String]) -> Vec<bool> {
    let (n, m) = (before.len(), after.len());
    let mut table = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i][j] = if before[i] == after[j] {
                table[i + 1][j + 1] + 1
            } else {
                table[i + 1][j].max(table[i][j + 1])
            };
        }
    }
    let mut kept = vec![false; m];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if before[i] == after[j] {
            kept[j] = true;
            i += 1;
            j += 1;
        } else if table[i + 1][j] >= table[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::endpoint::Endpoint;
    use crate::core::tools::local_tool_specs;
    use crate::core::turn::Turn;
    use crate::core::vendor::Vendor;
    use crate::core::web::WebAccess;
    use crate::core::wire::encode;

    fn turn(web: Option<WebAccess>) -> Turn {
        Turn {
            model: "m".into(),
            max_tokens: 10,
            goal: "g".into(),
            observations: vec![],
            tools: local_tool_specs(),
            web,
            ..Default::default()
        }
    }

    #[test]
    fn the_declaration_s_lines_are_marked_and_tools_fold() {
        let e = Endpoint::public(Vendor::Anthropic);
        let with = encode(&e, &turn(Some(WebAccess::search().with_fetch()))).unwrap();
        let without = encode(&e, &turn(None)).unwrap();
        let lines = request_lines(&with, Some(&without), true, false);
        let added: Vec<&str> = lines
            .iter()
            .filter(|l| l.added)
            .map(|l| l.text.trim())
            .collect();
        assert_eq!(
            added,
            [
                "anthropic-beta: web-fetch-2025-09-10",
                "{",
                "\"type\": \"web_search_20250305\",",
                "\"name\": \"web_search\"",
                "},",
                "{",
                "\"type\": \"web_fetch_20250910\",",
                "\"name\": \"web_fetch\"",
                "}",
            ]
        );
        let folded = lines.iter().filter(|l| l.text.ends_with("{…},")).count();
        assert_eq!(folded, local_tool_specs().len());
        // Unfolded, the same request shows every schema and still marks the web entries.
        let open = request_lines(&with, Some(&without), false, false);
        assert!(open.len() > lines.len());
        assert!(
            open.iter()
                .any(|l| l.added && l.text.contains("web_fetch_20250910"))
        );
        assert!(!open.iter().any(|l| l.text.contains("{…}")));
    }
}
