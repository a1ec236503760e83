//! Issue 26 item 6: a vendor's text never reaches a terminal raw. A stub vendor
//! (in this process, over loopback) answers with text, a search query, a
//! citation URL and title carrying `ESC[2J`, OSC 8 and OSC 52 (which sets the
//! clipboard) and a C1 CSI; the real binary runs `run`, `run --providers`,
//! `citations`, `search`, `runs`, `check-sources` and `compare` in a
//! pseudo-terminal, and no ESC, BEL or C1 byte comes out, the sequences shown
//! escaped instead. Piped, `--json` keeps them exactly, escaped as JSON escapes
//! them, and on a terminal it is the same JSON.

// The binary is built with every default feature, and these tests run it.
#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::Read;
use std::path::Path;

use common::cli::{bin, run};
use io_harness::Vendor;
use io_harness::stub::{Script, ScriptedResponse, StubVendor};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// One Anthropic answer: a search whose query clears the screen, a result, and
/// cited text that clears the screen, sets the clipboard and hides a link; the
/// citation's URL turns text red, its title sets the clipboard, its quote
/// carries a C1 CSI.
const BODY: &str = r#"{"id":"msg_h","type":"message","role":"assistant","model":"claude-sonnet-4-5",
 "content":[
  {"type":"server_tool_use","id":"srvtoolu_h","name":"web_search","input":{"query":"hostile \u001b[2J query"}},
  {"type":"web_search_tool_result","tool_use_id":"srvtoolu_h","content":[
    {"type":"web_search_result","url":"https://evil.example/page","title":"t","encrypted_content":"x","page_age":null}]},
  {"type":"text","text":"Answer \u001b[2J\u001b]52;c;aGVsbG8=\u0007 and \u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\ done","citations":[
    {"type":"web_search_result_location","url":"https://evil.example/\u001b[31mred","title":"Title \u001b]52;c;aGk=\u0007 here","cited_text":"quoted \u009b2J text","encrypted_index":"x"}]}],
 "stop_reason":"end_turn","stop_sequence":null,
 "usage":{"input_tokens":10,"output_tokens":10,"server_tool_use":{"web_search_requests":1,"web_fetch_requests":0}}}"#;

/// `io-harness ARGS` in a fresh 100×30 pseudo-terminal: its exit code and every
/// byte it wrote (stdout and stderr are both the terminal).
fn in_terminal(dir: &Path, args: &[&str]) -> (u32, Vec<u8>) {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_io-harness"));
    cmd.args(args);
    cmd.cwd(dir);
    cmd.env("TERM", "xterm-256color");
    cmd.env("IO_HARNESS_TEXT_TEST_KEY", "sk-loopback-test");
    cmd.env_remove("ANTHROPIC_API_KEY");
    cmd.env(io_harness::USER_CONFIG_ENV, "");
    let mut child = pty.slave.spawn_command(cmd).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let reading = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        // The end of the child's side reads as EOF or EIO.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    });
    let status = child.wait().unwrap();
    drop(pty.master);
    (status.exit_code(), reading.join().unwrap())
}

/// No byte a terminal would act on but a line end, a tab and a carriage return
/// the terminal's own line discipline adds; no C1 control either.
fn assert_inert(what: &str, out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    let raw: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        .collect();
    assert!(
        raw.is_empty(),
        "{what}: raw control characters {raw:?} reached the terminal:\n{text}"
    );
}

#[test]
fn vendor_text_is_shown_escaped_on_a_terminal_and_exact_in_json() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let stub = runtime
        .block_on(StubVendor::start(
            "127.0.0.1:0".parse().unwrap(),
            Script {
                responses: vec![ScriptedResponse {
                    body: BODY.as_bytes().to_vec(),
                    ..ScriptedResponse::default()
                }],
                repeat: true,
                emulate_usage: false,
            },
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        format!(
            "[providers.anthropic]\nbase_url = \"{}\"\napi_key_env = \"IO_HARNESS_TEXT_TEST_KEY\"\n\
             [task]\ngoal = \"find \\u001b[2J it\"\nworkspace = \"{}\"\n[web]\nsearch = true\n\
             [store]\npath = \"runs.db\"\n",
            stub.base_url(Vendor::Anthropic),
            ws.display()
        ),
    )
    .unwrap();
    let d = dir.path();

    // On a terminal: the answer on stdout, the events on stderr, all inert.
    let (code, out) = in_terminal(d, &["run", "--config", "io.toml"]);
    let text = String::from_utf8_lossy(&out).into_owned();
    assert_eq!(code, 0, "{text}");
    assert_inert("run", &out);
    assert!(text.contains("Answer \\x1b[2J\\x1b]52;c;aGVsbG8=\\x07 and \\x1b]8;;https://evil.example\\x1b\\link\\x1b]8;;\\x1b\\ done"), "{text}");
    assert!(text.contains("hostile \\x1b[2J query"), "{text}");
    assert!(
        text.contains("source https://evil.example/\\x1b[31mred"),
        "{text}"
    );

    for args in [
        &["citations", "1"][..],
        &["citations", "1", "--format", "markdown"],
        &["citations", "1", "--format", "csv"],
        &["search", "hostile"],
        &["search", "Answer"],
        &["search", "Title"],
        &["runs"],
        &["check-sources", "1"],
        &["run", "--providers", "anthropic"],
        &["compare", "1"],
    ] {
        let mut all = args.to_vec();
        all.extend(["--config", "io.toml"]);
        let (code, out) = in_terminal(d, &all);
        let text = String::from_utf8_lossy(&out).into_owned();
        assert_eq!(code, 0, "{args:?}: {text}");
        assert_inert(&format!("{args:?}"), &out);
        // The exports neutralise control characters themselves (issue 26 item 8).
        if !args.contains(&"--format") {
            assert!(text.contains("\\x1b"), "{args:?} shows no escape:\n{text}");
        }
    }
    let (_, out) = in_terminal(d, &["citations", "1", "--config", "io.toml"]);
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("Title \\x1b]52;c;aGk=\\x07 here"),
        "the title: {text}"
    );

    // Piped, --json is the exact text, escaped as JSON escapes it.
    let cfg = d.join("io.toml");
    let cfg = cfg.to_str().unwrap();
    let (code, out, err) = run(bin()
        .args(["run", "--config", cfg, "--json"])
        .env("IO_HARNESS_TEXT_TEST_KEY", "sk-loopback-test"));
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\u{1b}'), "{out}");
    assert!(out.contains("\\u001b]52;c;aGVsbG8=\\u0007"), "{out}");
    let (code, piped, _) = run(bin().args(["citations", "1", "--json", "--config", cfg]));
    assert_eq!(code, 0);
    let piped: serde_json::Value = serde_json::from_str(&piped).unwrap();
    assert_eq!(
        piped["citations"][0]["title"],
        "Title \u{1b}]52;c;aGk=\u{7} here"
    );
    assert_eq!(
        piped["citations"][0]["url"],
        "https://evil.example/\u{1b}[31mred"
    );
    // On a terminal, the same JSON (the terminal adds a carriage return a line).
    let (code, out) = in_terminal(d, &["citations", "1", "--json", "--config", "io.toml"]);
    assert_eq!(code, 0);
    assert_inert("citations --json", &out);
    let shown: serde_json::Value =
        serde_json::from_str(&String::from_utf8_lossy(&out).replace("\r\n", "\n"))
            .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&out)));
    assert_eq!(shown, piped);
    drop(runtime);
}
