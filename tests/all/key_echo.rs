//! Issue 34, item 2: an API key a vendor echoes back in an encoding — JSON
//! `\uXXXX` escapes of any of its characters, percent-encoding in a URL, an
//! escape inside the decoded text, a mixture — reaches nothing: not `run`'s
//! output (text or `--json`), not a table of the store, not `citations` in any
//! format, `claims` or `search`, not an error. The real binary against the
//! loopback stub, Gemini and Anthropic, whole bodies (`stream = false`) and
//! streams; the key is looked for in every output with every encoding undone.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common::cli::{at, run};

use io_harness::Vendor;
use io_harness::stub::ScriptedResponse;

const KEY: &str = "sk-SENTINEL-GEM-123";

/// A Gemini answer carrying the key in every field a run keeps — the text, a
/// query, the suggestions' HTML and links, a chunk's URL and title, a
/// segment — each spelled another way (read as JSON, `\u002d` is `-`,
/// `\\u002d` is the six characters `\u002d`, `%2D` a URL's `-`).
const GEMINI: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Key A sk\u002dSENTINEL-GEM-123. Key B \u0073k-SENTINEL-GEM-123. Key C sk\\u002dSENTINEL-GEM-123. Key D sk%2DSENTINEL%2dGEM-123. Key E sk-%53ENTINEL-GEM\u002D123."}]},"finishReason":"STOP",
 "groundingMetadata":{"webSearchQueries":["q sk\u002dSENTINEL-GEM-123","r sk-%53ENTINEL-GEM-123","s sk\\u002D%53ENTINEL-GEM-123"],
  "searchEntryPoint":{"renderedContent":"<div><a class=\"chip\" href=\"https://www.google.com/search?q=sk%2DSENTINEL-GEM-123\">chip sk\u002dSENTINEL-GEM-123</a><a class=\"chip\" href=\"https://www.google.com/search?q=%73%6B%2D%53%45%4E%54%49%4E%45%4C%2D%47%45%4D%2D%31%32%33\">other</a></div>"},
  "groundingChunks":[{"web":{"uri":"https://example.com/sk\u002dSENTINEL-GEM-123","title":"T sk\u002DSENTINEL-GEM-123"}},{"web":{"uri":"https://example.org/?k=sk%2DSENTINEL-GEM-123","title":"U \\u0073k-SENTINEL-GEM-123"}}],
  "groundingSupports":[{"segment":{"startIndex":0,"endIndex":26,"text":"Key A sk\u002dSENTINEL-GEM-123."},"groundingChunkIndices":[0,1]},
                       {"segment":{"startIndex":27,"endIndex":53,"text":"Key B \u0073k-SENTINEL-GEM-123."},"groundingChunkIndices":[1]}]}}],
 "usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":6,"totalTokenCount":106},"modelVersion":"gemini-3.5-flash"}"#;

/// The same on Anthropic's wire: a search's query, its results, text blocks
/// citing them with the key in the URL, title and quote.
const ANTHROPIC: &str = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[
 {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q sk\u002dSENTINEL-GEM-123"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://example.com/sk%2DSENTINEL-GEM-123","title":"T \u0073k-SENTINEL-GEM-123","encrypted_content":"x"}]},
 {"type":"text","text":"Key A sk\u002dSENTINEL-GEM-123.","citations":[{"type":"web_search_result_location","url":"https://example.com/sk%2DSENTINEL-GEM-123","title":"T sk\\u002dSENTINEL-GEM-123","cited_text":"quote sk\u002DSENTINEL-GEM-123","encrypted_index":"i"}]},
 {"type":"text","text":" Key C sk\\u002dSENTINEL-GEM-123, key D sk-%53ENTINEL-GEM-123."}],
 "stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":20,"server_tool_use":{"web_search_requests":1}}}"#;

/// `text` with every encoding of the key undone, as often as it nests: JSON
/// escapes (`\uXXXX`, `\\`, `\"`, `\/`) and percent-encoding.
fn undone(text: &str) -> String {
    let mut s = text.to_string();
    for _ in 0..4 {
        let mut out = Vec::new();
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let hex = |from: usize, n: usize| {
                b.get(from..from + n)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
            };
            if b[i] == b'\\' && b.get(i + 1) == Some(&b'u') {
                if let Some(c) = hex(i + 2, 4).and_then(char::from_u32) {
                    out.extend_from_slice(c.to_string().as_bytes());
                    i += 6;
                    continue;
                }
            }
            if b[i] == b'\\' && matches!(b.get(i + 1), Some(b'\\' | b'"' | b'/')) {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if b[i] == b'%' {
                if let Some(n) = hex(i + 1, 2) {
                    out.push(n as u8);
                    i += 3;
                    continue;
                }
            }
            out.push(b[i]);
            i += 1;
        }
        s = String::from_utf8_lossy(&out).into_owned();
    }
    s
}

/// Nothing in `text` is the key, however encoded, nor a piece of it that
/// names the sentinel.
fn clean(what: &str, text: &str) {
    let undone = undone(text);
    assert!(
        !undone.contains(KEY),
        "{what} carries the key (encoded): {text}"
    );
    assert!(
        !text.to_ascii_lowercase().contains("entinel"),
        "{what} carries part of the key: {text}"
    );
}

/// Every value of every table of the store at `path`.
fn store_text(path: &std::path::Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut out = Vec::new();
    for t in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let n = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            for i in 0..n {
                let text = match row.get_ref(i).unwrap() {
                    rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => {
                        String::from_utf8_lossy(b).into_owned()
                    }
                    _ => continue,
                };
                out.push((format!("{t}[{i}]"), text));
            }
        }
    }
    out
}

/// Run the io.toml's task twice on `vendor` against a stub answering `body`
/// (plain, then `--json`), then every view of what it kept; each output and
/// every value of the store is checked for the key. `stream` picks the path.
async fn nothing_carries_the_key(vendor: Vendor, body: &str, stream: bool) {
    let stub = crate::common::repeating(ScriptedResponse {
        vendor: Some(vendor),
        body: body.as_bytes().to_vec(),
        ..ScriptedResponse::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        format!(
            "provider = \"{vendor}\"\n[providers.{vendor}]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_ECHO_KEY\"\nstream = {stream}\n[task]\ngoal = \"which key?\"\nworkspace = \".\"\n[web]\nsearch = true\n",
            stub.base_url(vendor)
        ),
    )
    .unwrap();
    let path = dir.path().to_path_buf();
    let outputs = tokio::task::spawn_blocking(move || {
        let with_key = |args: &[&str]| {
            let (code, out, err) = run(at(&path).args(args).env("IO_HARNESS_ECHO_KEY", KEY));
            (args.join(" "), code, out, err)
        };
        let mut all = vec![with_key(&["run"]), with_key(&["run", "--json"])];
        for args in [
            &["citations", "1"][..],
            &["citations", "1", "--format", "markdown"],
            &["citations", "1", "--format", "csv"],
            &["citations", "1", "--format", "json"],
            &["citations", "2", "--json"],
            &["claims", "1"],
            &["claims", "2", "--json"],
            &["search", "SENTINEL"],
            &["search", "sk", "--json"],
            &["search", "key", "--json"],
            &["runs", "--json"],
        ] {
            all.push(with_key(args));
        }
        all
    })
    .await
    .unwrap();
    let label = format!("{vendor} stream={stream}");
    for (args, code, out, err) in &outputs {
        if args.starts_with("run") || args.starts_with("citations") || args.starts_with("claims") {
            assert_eq!(*code, 0, "{label}: {args}: {err}");
        }
        // `search` repeats the query it was given.
        let out = out.replace("\"SENTINEL\"", "");
        clean(&format!("{label}: `{args}` stdout"), &out);
        clean(&format!("{label}: `{args}` stderr"), err);
    }
    // The views found what the runs kept (the answer is there, the key is not).
    let (_, _, shown, _) = &outputs[0];
    assert!(shown.contains("Key A [redacted]."), "{label}: {shown}");
    let (_, _, cited, _) = &outputs[5];
    assert!(cited.contains("example.com"), "{label}: {cited}");
    for (place, text) in store_text(&dir.path().join("data/runs.db")) {
        clean(&format!("{label}: the store's {place}"), &text);
    }
}

#[tokio::test]
async fn a_gemini_key_echoed_encoded_in_a_whole_body_reaches_nothing() {
    nothing_carries_the_key(Vendor::Gemini, GEMINI, false).await;
}

#[tokio::test]
async fn a_gemini_key_echoed_encoded_in_a_stream_reaches_nothing() {
    nothing_carries_the_key(Vendor::Gemini, GEMINI, true).await;
}

#[tokio::test]
async fn an_anthropic_key_echoed_encoded_in_a_whole_body_reaches_nothing() {
    nothing_carries_the_key(Vendor::Anthropic, ANTHROPIC, false).await;
}

#[tokio::test]
async fn an_anthropic_key_echoed_encoded_in_a_stream_reaches_nothing() {
    nothing_carries_the_key(Vendor::Anthropic, ANTHROPIC, true).await;
}

/// An error body quoting the key escaped: the outcome and the store carry none
/// of it.
#[tokio::test]
async fn a_key_echoed_encoded_in_an_error_reaches_nothing() {
    let echo = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key: sk\u002dSENTINEL-GEM-123 (or sk%2DSENTINEL-GEM-123)"}}"#;
    let stub = crate::common::repeating(ScriptedResponse {
        status: 401,
        body: echo.as_bytes().to_vec(),
        ..ScriptedResponse::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        format!(
            "[providers.anthropic]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_ECHO_KEY\"\nstream = false\n[task]\ngoal = \"g\"\nworkspace = \".\"\n",
            stub.base_url(Vendor::Anthropic)
        ),
    )
    .unwrap();
    let path = dir.path().to_path_buf();
    let (code, out, err) = tokio::task::spawn_blocking(move || {
        run(at(&path)
            .args(["run", "--json"])
            .env("IO_HARNESS_ECHO_KEY", KEY))
    })
    .await
    .unwrap();
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("invalid x-api-key"), "{out}");
    clean("the run's output", &out);
    clean("the run's errors", &err);
    for (place, text) in store_text(&dir.path().join("data/runs.db")) {
        clean(&format!("the store's {place}"), &text);
    }
}
