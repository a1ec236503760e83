//! The real binary in a real pseudo-terminal: it opens on the offline demo, shows
//! a preview body, runs, shows the failed server-side search and the cost total,
//! opens Sources with the run's citation URLs, and quits leaving the terminal sane
//! (`stty` run after it in the same terminal reports canonical mode and echo back
//! on). Compare opens a comparison's claims and an eval's matrix, whose `e` writes
//! it beside io.toml; on a PostgreSQL store as on SQLite, with who ran each run.
//! The screen is read with a VT100 parser, as a terminal would draw it.

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

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, needles: &[&str]) -> String {
        self.wait_until(needles, |_| true)
    }

    /// Waits for every needle and for `ready` to hold of the same screen: a
    /// screen read once may be drawn before the store's answer arrives.
    fn wait_until(&self, needles: &[&str], ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = self.text();
            if needles.iter().all(|n| text.contains(n)) && ready(&text) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "waited 30s for {needles:?}; the screen shows:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn raw_text(&self) -> String {
        String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned()
    }
}

#[test]
fn the_console_runs_the_demo_in_a_real_terminal_and_leaves_it_sane() {
    let dir = tempfile::tempdir().unwrap();
    // A fresh machine: no [prices]; the built-in table prices the demo.
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let (screen, mut child, mut writer, reading) = console(dir.path(), "runs.db");
    let mut press = |bytes: &[u8]| type_in(&mut writer, bytes);

    // Opens on the demo with the exact Anthropic request previewed, scrolled to
    // what the declaration adds.
    let first = screen.wait_for(&[
        "offline demo: built-in stub vendor",
        "POST http://127.0.0.1:",
        "\"type\": \"web_search_20250305\"",
    ]);
    assert!(first.contains("anthropic ✓ carried"), "{first}");
    {
        let p = screen.parser.lock().unwrap();
        assert!(p.screen().alternate_screen());
        assert_ne!(
            p.screen().mouse_protocol_mode(),
            vt100::MouseProtocolMode::None
        );
    }

    // Ctrl-R runs it: the failed search with its code, a dollar cost on every
    // request, the total their sum, and where the prices come from.
    press(b"\x12");
    let priced = |text: &str, stop: &str| text.lines().any(|l| l.contains(stop) && l.contains('$'));
    let run = screen.wait_until(
        &[
            "finished: passed",
            "FAILED",
            "max_uses_exceeded",
            "total $0.0",
            "prices: built-in, platform.claude.com, 2026-12-03",
        ],
        |text| priced(text, "end_turn") && priced(text, "pause_turn"),
    );
    // The demo is a cached transcript: its usage is the stub's emulation of the
    // request (which holds the workspace listing, so exact figures vary), step 2
    // writes the prefix and step 3 reads it back at a tenth of the price.
    let cost = |stop: &str| -> f64 {
        let row = run
            .lines()
            .find(|l| l.contains(stop) && l.contains('$'))
            .unwrap_or_else(|| panic!("no {stop} row:\n{run}"));
        let dollars: Vec<f64> = row
            .split_whitespace()
            .filter_map(|w| w.strip_prefix('$')?.parse().ok())
            .collect();
        *dollars.last().unwrap()
    };
    assert!(cost("end_turn") < cost("pause_turn") / 2.0, "{run}");

    // F4: Sources lists the run and its citation URLs.
    press(b"\x1bOS");
    screen.wait_for(&[
        "runs · newest first",
        "https://crates.io/crates/io-harness",
        "https://docs.rs/io-harness/latest/io_harness/",
        "(max_uses_exceeded)",
        "$0.0",
    ]);

    // Ctrl-Q quits; the shell's stty sees a cooked terminal.
    let out = quit((&screen, &mut child, writer, reading));
    assert_sane(&out);
    let p = screen.parser.lock().unwrap();
    assert!(
        !p.screen().alternate_screen(),
        "left in the alternate screen"
    );
    assert!(!p.screen().hide_cursor(), "cursor left hidden");
    assert_eq!(
        p.screen().mouse_protocol_mode(),
        vt100::MouseProtocolMode::None
    );
}

#[test]
fn a_console_run_is_traced_when_telemetry_names_a_collector() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let receiver = rt.block_on(common::otlp::Receiver::start(common::otlp::Mode::Ok));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        format!(
            "[telemetry]\notlp_endpoint = \"{}\"\nservice_name = \"console-test\"\n",
            receiver.base_url
        ),
    )
    .unwrap();
    let (screen, mut child, mut writer, reading) = console(dir.path(), "runs.db");
    let mut press = |bytes: &[u8]| type_in(&mut writer, bytes);
    screen.wait_for(&["offline demo: built-in stub vendor"]);
    press(b"\x12");
    screen.wait_for(&["finished: passed"]);
    let out = quit((&screen, &mut child, writer, reading));
    // Everything went out before the console returned: no line about the collector.
    assert!(!out.contains("telemetry:"), "{out}");
    let spans = receiver.spans();
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    let agent = spans
        .iter()
        .find(|s| s.name.starts_with("invoke_agent"))
        .unwrap_or_else(|| panic!("no invoke_agent span in {names:?}"));
    let chats: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .collect();
    assert!(chats.len() >= 2, "{names:?}");
    for chat in &chats {
        assert_eq!(chat.trace_id, agent.trace_id, "{names:?}");
        assert_eq!(
            common::otlp::attr(chat, "gen_ai.provider.name").as_deref(),
            Some("anthropic")
        );
    }
    let services = receiver.service_names();
    assert!(!services.is_empty(), "{services:?}");
    assert!(services.iter().all(|s| s == "console-test"), "{services:?}");
}

#[test]
fn ctrl_g_compares_every_vendor_in_a_real_terminal_and_enter_opens_its_claims() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let (screen, mut child, mut writer, reading) = console(dir.path(), "data/runs.db");
    let mut press = |bytes: &[u8]| type_in(&mut writer, bytes);
    screen.wait_for(&["offline demo: built-in stub vendor"]);
    // Ctrl-G: a column per vendor, then the comparison.
    press(b"\x07");
    let done = screen.wait_for(&["verified share", "▶ #1 anthropic"]);
    for v in ["#1 anthropic", "#2 openai", "#3 openrouter"] {
        assert!(done.contains(v), "{done}");
    }
    // Enter: the chosen run's claims, on Sources; Esc, F5 and `r`: the run itself.
    press(b"\r");
    screen.wait_for(&["claims · run 1", "cited share"]);
    press(b"\x1b");
    // A lone Esc and the next key's escape sequence typed together read as one
    // sequence: wait for the Esc to be taken first.
    screen.wait_for(&["citations · by step"]);
    press(b"\x1b[15~");
    screen.wait_for(&["▶ #1 anthropic"]);
    press(b"r");
    screen.wait_for(&["Run 1 · anthropic", "from the store"]);
    // Each run had its own copy of the workspace beside the store, removed once
    // its run ended.
    assert!(!dir.path().join("data/groups/1").exists());
    let out = quit((&screen, &mut child, writer, reading));
    assert_sane(&out);
}

crate::engines::on_both_engines! {
    /// The console on either engine: two operators' runs (one from the command
    /// line, a comparison from the console) told apart by who ran them on
    /// Compare and in Sources' list, the claims, a run's sources and the run
    /// itself read back from the store.
    fn the_console_on_either_engine_shows_who_ran_each_run(place) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("io.toml"), "").unwrap();
        let store = place.location().display().to_string();
        let bin = env!("CARGO_BIN_EXE_io-harness");
        let (screen, mut child, mut writer, reading) = spawn_with(
            dir.path(),
            &format!(
                "IO_HARNESS_USER=bob {bin:?} --config io.toml --store '{store}' run --demo >/dev/null 2>&1 && \
                 {bin:?} --config io.toml --store '{store}'; echo \"exit=$?\"; stty -a"
            ),
            &[("IO_HARNESS_USER", "ann")],
        );
        let mut press = |bytes: &[u8]| type_in(&mut writer, bytes);
        screen.wait_for(&["offline demo: built-in stub vendor"]);
        press(b"\x07");
        let compared = screen.wait_for(&["verified share", "▶ #2 anthropic"]);
        assert!(compared.contains("ann@"), "{compared}");
        press(b"\r");
        screen.wait_for(&["claims · run 2", "cited share"]);
        press(b"\x1b");
        screen.wait_for(&["citations · by step"]);
        press(b"\x1bOS");
        screen.wait_for(&["runs · newest first", " bob ", " ann "]);
        press(b"\x1b[15~");
        screen.wait_for(&["▶ #2 anthropic"]);
        press(b"r");
        screen.wait_for(&["Run 2 · anthropic", "from the store"]);
        let out = quit((&screen, &mut child, writer, reading));
        assert_sane(&out);
    }
}

#[test]
fn an_eval_opens_on_compare_in_a_real_terminal_and_e_writes_its_matrix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    // The bundled eval on the stub first, then the console on the same store.
    let (screen, mut child, mut writer, reading) = spawn(
        dir.path(),
        &format!(
            "{bin:?} --config io.toml --store data/runs.db eval --demo >/dev/null 2>&1 && \
             {bin:?} --config io.toml --store data/runs.db; echo \"exit=$?\"; stty -a",
            bin = env!("CARGO_BIN_EXE_io-harness")
        ),
    );
    let mut press = |bytes: &[u8]| type_in(&mut writer, bytes);
    screen.wait_for(&["offline demo: built-in stub vendor"]);
    press(b"\x1b[15~");
    let list = screen.wait_for(&["evals", "demo", "5 questions × 6 vendors"]);
    assert!(list.contains("comparisons"), "{list}");
    press(b"\r");
    let matrix = screen.wait_for(&["eval 1 · demo", "accuracy", "gemini"]);
    // At 100 columns the matrix is two tables (scores, then money and time).
    // The set and subset take a line above it.
    assert!(matrix.contains("set jsonl · all 5"), "{matrix}");
    assert!(matrix.contains("question rows 1–6 of 30"), "{matrix}");
    assert!(matrix.contains("total cost"), "{matrix}");
    press(b"e");
    // The hint line names the file already: wait for the status line's word.
    screen.wait_for(&["wrote eval 1's matrix"]);
    let written = std::fs::read_to_string(dir.path().join("eval-1.md")).unwrap();
    assert!(written.contains("| anthropic |"), "{written}");
    let out = quit((&screen, &mut child, writer, reading));
    assert_sane(&out);
}

/// On a terminal, `eval` draws a bar (questions done of all, dollars spent,
/// time left) on stderr while it runs, and clears it before the report.
#[test]
fn eval_shows_its_progress_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let (screen, mut child, writer, reading) = spawn(
        dir.path(),
        &format!(
            "{:?} --config io.toml --store data/runs.db eval --demo >report.txt; echo \"exit=$?\"",
            env!("CARGO_BIN_EXE_io-harness")
        ),
    );
    assert!(child.wait().unwrap().success());
    drop(writer);
    reading.join().unwrap();
    let raw = screen.raw_text();
    assert!(raw.contains("exit=0"), "{raw}");
    assert!(raw.contains("/5 questions · $"), "{raw}");
    assert!(raw.contains(" spent · "), "{raw}");
    assert!(raw.contains(" left"), "{raw}");
    // Cleared: what is left on screen is the start line, not the bar.
    let shown = screen.text();
    assert!(!shown.contains("questions · $"), "{shown}");
    let report = std::fs::read_to_string(dir.path().join("report.txt")).unwrap();
    assert!(
        report.starts_with("eval 1 · demo · 5 questions × 6 vendors"),
        "{report}"
    );
}

type Spawned = (
    Screen,
    Box<dyn portable_pty::Child + Send + Sync>,
    Box<dyn Write + Send>,
    std::thread::JoinHandle<()>,
);

/// The console on `dir`'s io.toml with its store at `store`, in a fresh
/// pseudo-terminal; after it exits the shell prints its exit code and `stty -a`.
fn console(dir: &std::path::Path, store: &str) -> Spawned {
    spawn(
        dir,
        &format!(
            "{:?} --config io.toml --store {store}; echo \"exit=$?\"; stty -a",
            env!("CARGO_BIN_EXE_io-harness")
        ),
    )
}

/// Type `bytes` into the terminal.
fn type_in(writer: &mut Box<dyn Write + Send>, bytes: &[u8]) {
    writer.write_all(bytes).unwrap();
    writer.flush().unwrap();
}

/// Ctrl-Q; the console exits 0 and the shell says so: everything the terminal
/// showed, for more checks.
fn quit(
    (screen, child, mut writer, reading): (
        &Screen,
        &mut Box<dyn portable_pty::Child + Send + Sync>,
        Box<dyn Write + Send>,
        std::thread::JoinHandle<()>,
    ),
) -> String {
    type_in(&mut writer, b"\x11");
    assert!(child.wait().unwrap().success());
    drop(writer);
    reading.join().unwrap();
    let out = screen.raw_text();
    assert!(out.contains("exit=0"), "{out}");
    out
}

/// `sh -c script` in a fresh 100×30 pseudo-terminal, its output parsed as it comes.
fn spawn(dir: &std::path::Path, script: &str) -> Spawned {
    spawn_with(dir, script, &[])
}

/// `spawn` with extra environment variables.
fn spawn_with(dir: &std::path::Path, script: &str, env: &[(&str, &str)]) -> Spawned {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new("sh");
    cmd.args(["-c", script]);
    cmd.cwd(dir);
    cmd.env("TERM", "xterm-256color");
    cmd.env_remove("ANTHROPIC_API_KEY");
    // Never the real user config directory.
    cmd.env(io_harness::USER_CONFIG_ENV, "");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = pty.slave.spawn_command(cmd).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let writer = pty.master.take_writer().unwrap();
    let screen = Screen {
        parser: Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZero::new(30).unwrap(),
            std::num::NonZero::new(100).unwrap(),
            0,
        ))),
        raw: Arc::new(Mutex::new(Vec::new())),
    };
    let (parser, raw) = (screen.parser.clone(), screen.raw.clone());
    let reading = std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            parser.lock().unwrap().process(&buf[..n]);
            raw.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    (screen, child, writer, reading)
}

/// The modes `stty -a` printed after `exit=`: a cooked terminal has these on.
fn assert_sane(out: &str) {
    let stty = &out[out.rfind("exit=").unwrap()..];
    let modes: Vec<&str> = stty.split_whitespace().collect();
    for mode in ["icanon", "echo", "isig", "opost"] {
        assert!(
            modes.contains(&mode),
            "terminal left without {mode}: {stty}"
        );
    }
}

#[test]
fn a_bad_io_toml_is_named_before_the_terminal_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        "[web]\nsearch = true\nmax_use = 3\n",
    )
    .unwrap();
    let (screen, mut child, writer, reading) = spawn(
        dir.path(),
        &format!(
            "{:?} --config io.toml --store runs.db; echo \"exit=$?\"; stty -a",
            env!("CARGO_BIN_EXE_io-harness")
        ),
    );
    assert!(child.wait().unwrap().success(), "sh itself");
    drop(writer);
    reading.join().unwrap();
    let out = screen.raw_text();
    assert!(
        out.contains("io.toml:3: unknown key `max_use` in [web]"),
        "{out}"
    );
    assert!(out.contains("exit=2"), "{out}");
    assert!(
        !out.contains("\x1b[?1049h"),
        "the alternate screen was entered"
    );
    assert_sane(&out);
}

/// A streamed search on screen before its stream ends: the stub (in this
/// process, over loopback HTTP) streams an Anthropic answer and holds the rest
/// of it for two seconds right after the search's query is complete; the real
/// binary, live against it, shows the query with a running timer while the rest
/// has not arrived (no answer text, no outcome), then finishes the run.
#[test]
fn a_streamed_search_query_is_on_screen_before_the_stream_ends() {
    use io_harness::core::wire::stream::render::render;
    use io_harness::core::wire::stream::{Delta, assembler_for};
    use io_harness::stub::{Script, ScriptedResponse, StreamScript, StubVendor};
    use io_harness::{Vendor, Wire, WireResponse};

    const BODY: &str = r#"{"type":"message","id":"msg_p","role":"assistant","model":"claude-sonnet-4-5","content":[
      {"type":"text","text":"Searching now."},
      {"type":"server_tool_use","id":"srvtoolu_p","name":"web_search","input":{"query":"streamed query 4f2a"}},
      {"type":"web_search_tool_result","tool_use_id":"srvtoolu_p","content":[]},
      {"type":"text","text":"Nothing came back; all done after the pause."}],
      "stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":12}}"#;
    // The pause goes right after the event that completes the search's input.
    let frames = render(Wire::Anthropic2025, BODY.as_bytes()).unwrap();
    let mut a = assembler_for(Wire::spec(Vendor::Anthropic), WireResponse::default()).unwrap();
    let mut after = 0;
    for (i, frame) in frames.iter().enumerate() {
        let mut deltas = Vec::new();
        a.feed(frame.as_bytes(), &mut deltas).unwrap();
        if deltas
            .iter()
            .any(|d| matches!(d, Delta::ServerToolStarted { .. }))
        {
            after = i + 1;
            break;
        }
    }
    assert!(after > 0);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let stub = runtime
        .block_on(StubVendor::start(
            "127.0.0.1:0".parse().unwrap(),
            Script {
                responses: vec![ScriptedResponse {
                    body: BODY.as_bytes().to_vec(),
                    stream: StreamScript {
                        pause_after: Some(after),
                        pause_ms: Some(2_000),
                        ..StreamScript::default()
                    },
                    ..ScriptedResponse::default()
                }],
                repeat: true,
                emulate_usage: false,
            },
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("io.toml"),
        format!(
            "[providers.anthropic]\nbase_url = \"{}\"\n[task]\ngoal = \"find it\"\n[web]\nsearch = true\n",
            stub.base_url(Vendor::Anthropic)
        ),
    )
    .unwrap();
    let (screen, mut child, mut writer, reading) = spawn_with(
        dir.path(),
        &format!(
            "{:?} --config io.toml --store runs.db; echo \"exit=$?\"",
            env!("CARGO_BIN_EXE_io-harness")
        ),
        &[("ANTHROPIC_API_KEY", "sk-loopback-test")],
    );
    let mut press = |bytes: &[u8]| {
        writer.write_all(bytes).unwrap();
        writer.flush().unwrap();
    };
    screen.wait_for(&["live: anthropic at http://127.0.0.1:"]);
    press(b"\x12");
    let mid = screen.wait_for(&[
        "streamed query 4f2a",
        "web_search running",
        "model: Searching now.",
    ]);
    assert!(!mid.contains("all done after the"), "{mid}");
    assert!(!mid.contains("finished"), "{mid}");
    assert!(mid.contains("streaming"), "the in-flight row: {mid}");
    // Then the rest arrives and the run ends.
    let end = screen.wait_for(&["finished: passed", "all done after the"]);
    assert!(end.contains("web_search ok"), "{end}");
    press(b"\x11");
    assert!(child.wait().unwrap().success());
    drop(writer);
    reading.join().unwrap();
    assert!(screen.raw_text().contains("exit=0"));
    stub.shutdown();
}

/// Issue 27: `preview --body-only` on a terminal — the body ends without a
/// newline, and the notes on stderr started on its last line ("}note: …").
#[test]
fn body_only_notes_start_on_their_own_line_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("io.toml"), "").unwrap();
    let (screen, mut child, writer, reading) = spawn(
        dir.path(),
        &format!(
            "{:?} --config io.toml preview --demo --body-only; echo \"exit=$?\"",
            env!("CARGO_BIN_EXE_io-harness")
        ),
    );
    assert!(child.wait().unwrap().success());
    drop(writer);
    reading.join().unwrap();
    let out = screen.raw_text();
    assert!(out.contains("exit=0"), "{out}");
    assert!(out.contains("note:"), "{out}");
    assert!(!out.contains("}note:"), "{out}");
}
