//! Runs as OTLP traces, checked at a real OTLP/HTTP receiver this test starts on
//! loopback (bodies decoded with the official proto definitions), and at a real
//! OTLP/gRPC one (the official `TraceService` served by tonic): span names and
//! parentage in the GenAI conventions, the attributes, what `capture_content`
//! keeps home, secrets never exported, a collector that fails, hangs or is not
//! there never changing a run, `[telemetry]` errors naming file, line and key,
//! the protocol taken from io.toml or the variables, and stored runs sent after
//! the fact with their original timestamps.

#![cfg(all(feature = "otlp", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::otlp::{Mode, Receiver, attr, strings};
use common::*;
use io_harness::provider::scrub::Secrets;
use io_harness::run::AgentDef;
use io_harness::run::{RunOptions, RunResult, run_with_options};
use io_harness::telemetry::settings::{Source, Stated, resolve};
use io_harness::telemetry::{Protocol, Telemetry, backfill};
use io_harness::{ApproveAll, Config, Policy, TaskContract};
use opentelemetry_proto::tonic::trace::v1::Span;
use pretty_assertions::assert_eq;

fn telemetry(url: &str, capture: bool, secrets: Vec<Secrets>) -> Telemetry {
    telemetry_over(Protocol::HttpProtobuf, url, capture, secrets)
}

fn telemetry_over(
    protocol: Protocol,
    url: &str,
    capture: bool,
    secrets: Vec<Secrets>,
) -> Telemetry {
    let table = Stated {
        otlp_endpoint: Some(url.to_string()),
        protocol: Some(protocol.as_str().to_string()),
        capture_content: Some(capture),
        headers: [("x-team-key".to_string(), "hdr-secret-77".to_string())].into(),
        ..Stated::default()
    };
    let settings = resolve(Some(&table), &|_| None).unwrap();
    Telemetry::start(&settings, secrets).unwrap().unwrap()
}

async fn traced(h: &Harness, t: &Telemetry, c: TaskContract, options: RunOptions) -> RunResult {
    let mut c = c;
    c.workspace = h.workspace.path().to_path_buf();
    let observer = t.observer(&h.provider.endpoint().base_url, h.events.clone());
    run_with_options(
        &c,
        &h.provider,
        &h.store,
        &Policy::workspace_default(),
        &ApproveAll,
        RunOptions {
            observer,
            ..options
        },
    )
    .await
    .unwrap()
}

async fn finish(t: Telemetry) -> Option<String> {
    tokio::task::spawn_blocking(move || t.finish())
        .await
        .unwrap()
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn one<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    let found = named(spans, name);
    assert_eq!(found.len(), 1, "one {name} among {:?}", names(spans));
    found[0]
}

fn names(spans: &[Span]) -> Vec<String> {
    spans.iter().map(|s| s.name.clone()).collect()
}

/// A search that failed and a local tool, then a search that ran with citations.
fn searches() -> Vec<io_harness::stub::ScriptedResponse> {
    vec![ok(SEARCH_FAILED_THEN_TOOL), ok(SEARCH_OK_DUPLICATES)]
}

/// The `searches()` run's four spans, named and nested as the conventions have
/// them: the run is the root of one trace, everything else directly under it.
fn one_run_trace(spans: &[Span]) {
    let mut got = names(spans);
    got.sort();
    assert_eq!(
        got,
        [
            "chat m",
            "chat m",
            "execute_tool list_dir",
            "invoke_agent io-harness"
        ]
    );
    let agent = one(spans, "invoke_agent io-harness");
    assert!(agent.parent_span_id.is_empty(), "the run is the root");
    for s in spans {
        assert_eq!(s.trace_id, agent.trace_id, "{} in the run's trace", s.name);
        if s.name != agent.name {
            assert_eq!(s.parent_span_id, agent.span_id, "{} under the run", s.name);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_one_trace_in_the_genai_conventions() {
    let rx = Receiver::start(Mode::Ok).await;
    let h = Harness::new(searches()).await;
    let t = telemetry(&rx.base_url, false, vec![]);
    let r = traced(&h, &t, contract("find it"), RunOptions::default()).await;
    assert!(r.outcome.passed());
    assert_eq!(finish(t).await, None);
    let spans = rx.spans();
    one_run_trace(&spans);
    let agent = one(&spans, "invoke_agent io-harness");
    assert_eq!(
        attr(agent, "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(attr(agent, "io_harness.outcome").as_deref(), Some("passed"));
    let chats = named(&spans, "chat m");
    let (first, second) = (chats[0], chats[1]);
    // CLIENT is 3 in the proto's SpanKind.
    assert_eq!(first.kind, 3);
    let want = [
        ("gen_ai.operation.name", "chat"),
        ("gen_ai.provider.name", "anthropic"),
        ("gen_ai.request.model", "m"),
        ("gen_ai.response.model", "m"),
        ("gen_ai.response.finish_reasons", "[tool_use]"),
        ("gen_ai.usage.input_tokens", "50"),
        ("gen_ai.usage.output_tokens", "5"),
        ("gen_ai.usage.cache_read.input_tokens", "0"),
        ("gen_ai.usage.cache_creation.input_tokens", "0"),
        ("io_harness.attempt", "1"),
        ("io_harness.server_tool.searches", "1"),
        ("io_harness.server_tool.failed", "1"),
        ("server.address", "127.0.0.1"),
    ];
    for (k, v) in want {
        assert_eq!(attr(first, k).as_deref(), Some(v), "{k}");
    }
    assert_eq!(attr(second, "io_harness.citations").as_deref(), Some("2"));
    assert_eq!(
        attr(second, "io_harness.server_tool.failed").as_deref(),
        Some("0")
    );
    assert_eq!(
        attr(second, "io_harness.cost.source").as_deref(),
        Some("price_table")
    );
    let tool = one(&spans, "execute_tool list_dir");
    assert_eq!(attr(tool, "gen_ai.tool.name").as_deref(), Some("list_dir"));
    assert_eq!(
        attr(tool, "gen_ai.tool.call.id").as_deref(),
        Some("toolu_1")
    );
    assert_eq!(attr(tool, "gen_ai.tool.type").as_deref(), Some("function"));
    // The tool ran between the two requests.
    assert!(tool.start_time_unix_nano >= first.end_time_unix_nano);
    assert!(tool.end_time_unix_nano <= second.start_time_unix_nano);
    assert_eq!(rx.service_names()[0], "io-harness");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_capture_content_no_text_query_or_source_leaves() {
    let rx = Receiver::start(Mode::Ok).await;
    let h = Harness::new(searches()).await;
    let t = telemetry(&rx.base_url, false, vec![]);
    traced(&h, &t, contract("the goal text"), RunOptions::default()).await;
    finish(t).await;
    let spans = rx.spans();
    assert_eq!(spans.len(), 4);
    for s in &spans {
        for key in [
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
        ] {
            assert_eq!(attr(s, key), None, "{key} on {}", s.name);
        }
        for text in strings(s) {
            for content in ["the goal text", "docs.rs", "\"q\"", "one", "two", "a again"] {
                assert!(
                    !text.contains(content),
                    "{content:?} in {text:?} on {}",
                    s.name
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_capture_content_searches_are_server_tool_call_parts() {
    let rx = Receiver::start(Mode::Ok).await;
    let h = Harness::new(searches()).await;
    let t = telemetry(&rx.base_url, true, vec![]);
    traced(&h, &t, contract("the goal text"), RunOptions::default()).await;
    finish(t).await;
    let spans = rx.spans();
    let agent = one(&spans, "invoke_agent io-harness");
    assert!(
        attr(agent, "gen_ai.input.messages")
            .unwrap()
            .contains("the goal text")
    );
    let chats = named(&spans, "chat m");
    let out: serde_json::Value =
        serde_json::from_str(&attr(chats[1], "gen_ai.output.messages").unwrap()).unwrap();
    let parts = out[0]["parts"].as_array().unwrap();
    let kinds: Vec<&str> = parts.iter().map(|p| p["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "server_tool_call",
            "server_tool_call_response",
            "io_harness.citations",
            "text"
        ]
    );
    assert_eq!(parts[0]["name"], "web_search");
    assert_eq!(parts[0]["server_tool_call"]["query"], "q");
    assert_eq!(parts[2]["content"][0]["url"], "https://docs.rs/a");
    let first: serde_json::Value =
        serde_json::from_str(&attr(chats[0], "gen_ai.output.messages").unwrap()).unwrap();
    let failed = &first[0]["parts"][1]["server_tool_call_response"];
    assert_eq!(failed["error"], "max_uses_exceeded");
    let tool = one(&spans, "execute_tool list_dir");
    assert!(
        attr(tool, "gen_ai.tool.call.arguments")
            .unwrap()
            .contains("\"path\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_is_a_request_span_of_its_own() {
    let rx = Receiver::start(Mode::Ok).await;
    let h = Harness::new(vec![status(500, r#"{"type":"error"}"#, &[]), ok(ANSWER)]).await;
    let t = telemetry(&rx.base_url, false, vec![]);
    let r = traced(&h, &t, contract("g"), RunOptions::default()).await;
    assert!(r.outcome.passed());
    finish(t).await;
    let spans = rx.spans();
    let chats = named(&spans, "chat m");
    assert_eq!(chats.len(), 2);
    assert_eq!(attr(chats[0], "io_harness.attempt").as_deref(), Some("1"));
    assert_eq!(attr(chats[0], "error.type").as_deref(), Some("500"));
    assert_eq!(chats[0].status.as_ref().map(|s| s.code), Some(2));
    assert_eq!(attr(chats[1], "io_harness.attempt").as_deref(), Some("2"));
    assert_eq!(
        attr(chats[1], "http.request.resend_count").as_deref(),
        Some("1")
    );
    assert_eq!(attr(chats[1], "error.type"), None);
    assert_eq!(
        attr(chats[1], "gen_ai.response.finish_reasons").as_deref(),
        Some("[end_turn]")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_nests_under_its_parents_tool_call() {
    let rx = Receiver::start(Mode::Ok).await;
    let spawn = tool_use("spawn_agent", r#"{"agent":"researcher","task":"look"}"#);
    let h = Harness::new(vec![ok(&spawn), ok(ANSWER), ok(ANSWER)]).await;
    let t = telemetry(&rx.base_url, false, vec![]);
    // The researcher's own table narrows the root's search to one host.
    let options = RunOptions {
        agents: vec![AgentDef {
            name: "researcher".into(),
            description: "finds things".into(),
            web: Some(io_harness::WebAccess::search().allow("docs.rs")),
            ..AgentDef::default()
        }],
        ..RunOptions::default()
    };
    let mut c = contract("g");
    c.web = Some(io_harness::WebAccess::search().max_uses(3));
    let r = traced(&h, &t, c, options).await;
    assert!(r.outcome.passed());
    finish(t).await;
    let spans = rx.spans();
    let root = one(&spans, "invoke_agent io-harness");
    let call = one(&spans, "execute_tool spawn_agent");
    let child = one(&spans, "invoke_agent researcher");
    // Each span carries its own declaration: the child's is the narrowed one.
    let web = |s| -> io_harness::WebAccess {
        serde_json::from_str(&attr(s, "io_harness.web").unwrap()).unwrap()
    };
    assert_eq!(web(root).allowed_domains, Vec::<String>::new());
    assert_eq!(web(child).allowed_domains, vec!["docs.rs".to_string()]);
    assert_eq!(web(child).max_uses, Some(3));
    assert_eq!(call.parent_span_id, root.span_id);
    assert_eq!(child.parent_span_id, call.span_id);
    assert_eq!(
        attr(call, "gen_ai.tool.call.id").as_deref(),
        Some("toolu_x")
    );
    let child_chats: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "chat m" && s.parent_span_id == child.span_id)
        .collect();
    assert_eq!(child_chats.len(), 1);
    assert_eq!(named(&spans, "chat m").len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_reach_an_exported_attribute() {
    let rx = Receiver::start(Mode::Ok).await;
    let h = Harness::new(searches()).await;
    // The scrubbing tests' cases: a key, a base_url password (also percent-
    // decoded), a lone user token; and the collector's own header value.
    let secrets = vec![
        Secrets::new(Some("sk-abc-123"), "https://me:p%40ss-word@h.test/api"),
        Secrets::new(None, "https://tok-0123456@h.test"),
    ];
    let t = telemetry(&rx.base_url, true, secrets);
    let goal = "use sk-abc-123 and p@ss-word and p%40ss-word and tok-0123456 and hdr-secret-77";
    traced(&h, &t, contract(goal), RunOptions::default()).await;
    finish(t).await;
    let spans = rx.spans();
    let agent = one(&spans, "invoke_agent io-harness");
    assert!(
        attr(agent, "gen_ai.input.messages")
            .unwrap()
            .contains("[redacted]")
    );
    for s in &spans {
        for text in strings(s) {
            for secret in [
                "sk-abc-123",
                "p@ss-word",
                "p%40ss-word",
                "tok-0123456",
                "hdr-secret-77",
            ] {
                assert!(!text.contains(secret), "{secret} in {text:?} on {}", s.name);
            }
        }
    }
}

/// A run traced to an OTLP/HTTP collector in `mode`: see `unchanged_at`.
async fn unchanged_under(mode: Mode) -> Option<String> {
    let rx = Receiver::start(mode).await;
    let said = unchanged_at(Protocol::HttpProtobuf, &rx.base_url).await;
    assert!(*rx.hits.lock().unwrap() >= 1, "the collector was tried");
    said
}

/// A run traced to the collector at `url` over `protocol`: its outcome and store
/// rows match the same run with telemetry off, the run is not held up, and what
/// `finish` says (the trouble, in one line naming the collector) is returned.
async fn unchanged_at(protocol: Protocol, url: &str) -> Option<String> {
    let plain = Harness::new(searches()).await;
    let want = plain.run(contract("g")).await;
    let h = Harness::new(searches()).await;
    let t = telemetry_over(protocol, url, true, vec![]);
    let started = std::time::Instant::now();
    let got = traced(&h, &t, contract("g"), RunOptions::default()).await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "the run was not held up"
    );
    assert_eq!(got.outcome, want.outcome);
    assert_eq!(got.steps, want.steps);
    assert_eq!(h.recorded(got.run_id), plain.recorded(want.run_id));
    finish(t).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_answering_500_changes_nothing_and_is_named_once() {
    let said = unchanged_under(Mode::Fail).await.unwrap();
    assert!(
        said.starts_with("telemetry: the OTLP collector at http://127.0.0.1:"),
        "{said}"
    );
    assert_eq!(said.matches("could not take").count(), 1, "{said}");
    assert!(said.contains("4 spans were not delivered"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_that_resets_changes_nothing() {
    let said = unchanged_under(Mode::Reset).await.unwrap();
    assert!(said.contains("could not take the spans"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_collector_changes_nothing_and_the_wait_is_bounded() {
    let started = std::time::Instant::now();
    let said = unchanged_under(Mode::Hang).await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(said.contains("127.0.0.1"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_grpc_a_run_is_the_same_one_trace_and_headers_are_metadata() {
    let rx = Receiver::start_grpc(Mode::Ok).await;
    let h = Harness::new(searches()).await;
    let t = telemetry_over(Protocol::Grpc, &rx.base_url, false, vec![]);
    let r = traced(&h, &t, contract("find it"), RunOptions::default()).await;
    assert!(r.outcome.passed());
    assert_eq!(finish(t).await, None);
    let spans = rx.spans();
    one_run_trace(&spans);
    let agent = one(&spans, "invoke_agent io-harness");
    assert_eq!(attr(agent, "io_harness.outcome").as_deref(), Some("passed"));
    let chat = named(&spans, "chat m")[0];
    assert_eq!(
        attr(chat, "gen_ai.usage.input_tokens").as_deref(),
        Some("50")
    );
    assert_eq!(rx.service_names()[0], "io-harness");
    let headers = rx.headers.lock().unwrap().clone();
    assert!(!headers.is_empty());
    for sent in &headers {
        let key = ("x-team-key".to_string(), "hdr-secret-77".to_string());
        assert!(sent.contains(&key), "{sent:?}");
        let grpc = sent
            .iter()
            .any(|(k, v)| k == "content-type" && v.starts_with("application/grpc"));
        assert!(grpc, "sent as gRPC: {sent:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpc_collector_that_is_not_there_changes_nothing_and_is_named_once() {
    // A port that was just free: nothing listens, every connection is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let started = std::time::Instant::now();
    let said = unchanged_at(Protocol::Grpc, &url).await.unwrap();
    assert!(
        started.elapsed() < io_harness::telemetry::FINISH_GRACE + std::time::Duration::from_secs(3),
        "the end was not held up past the grace"
    );
    // Nothing listens: found before the run, so the run makes no spans at all.
    assert!(
        said.starts_with(&format!(
            "telemetry: the OTLP collector at {url} could not be reached ("
        )),
        "{said}"
    );
    assert_eq!(said.matches("could not be reached").count(), 1, "{said}");
    assert_eq!(said.matches(&url).count(), 1, "{said}");
    assert!(said.contains("run events were not traced"), "{said}");
    assert!(!said.contains("spans were not delivered"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpc_collector_that_fails_hangs_or_resets_changes_nothing() {
    for mode in [Mode::Fail, Mode::Hang, Mode::Reset] {
        let rx = Receiver::start_grpc(mode).await;
        let started = std::time::Instant::now();
        let said = unchanged_at(Protocol::Grpc, &rx.base_url).await.unwrap();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{mode:?}: the wait is bounded"
        );
        assert!(*rx.hits.lock().unwrap() >= 1, "{mode:?}: tried");
        assert!(said.contains(&rx.base_url), "{mode:?}: {said}");
        assert_eq!(said.matches(&rx.base_url).count(), 1, "{mode:?}: {said}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_grpc_endpoint_is_never_spoken_to_in_plain_text() {
    let rx = Receiver::start_grpc(Mode::Ok).await;
    let url = rx.base_url.replace("http://", "https://");
    let h = Harness::new(searches()).await;
    let t = telemetry_over(Protocol::Grpc, &url, false, vec![]);
    let r = traced(&h, &t, contract("g"), RunOptions::default()).await;
    assert!(r.outcome.passed());
    let said = finish(t).await.unwrap();
    assert!(said.contains("could not take the spans"), "{said}");
    assert!(said.contains("4 spans were not delivered"), "{said}");
    assert!(rx.spans().is_empty(), "nothing arrived in plain text");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_drops_and_counts_without_waiting() {
    let rx = Receiver::start(Mode::Hang).await;
    let h = Harness::new(searches()).await;
    let settings = resolve(
        Some(&Stated {
            otlp_endpoint: Some(rx.base_url.clone()),
            ..Stated::default()
        }),
        &|_| None,
    )
    .unwrap();
    let t = Telemetry::start_with_queue(&settings, vec![], 1)
        .unwrap()
        .unwrap();
    let r = traced(&h, &t, contract("g"), RunOptions::default()).await;
    assert!(r.outcome.passed());
    // The first run's batch is now stuck in an export to the hanging collector:
    // the second run's spans find the queue (of one) full.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let h2 = Harness::new(searches()).await;
    let started = std::time::Instant::now();
    let r = traced(&h2, &t, contract("g"), RunOptions::default()).await;
    assert!(r.outcome.passed());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "nothing waited"
    );
    let said = finish(t).await.unwrap();
    assert!(said.contains("dropped (the export queue"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_run_is_sent_with_its_original_timestamps() {
    let h = Harness::new(searches()).await;
    let r = h.run(contract("g")).await;
    let rx = Receiver::start(Mode::Ok).await;
    let t = telemetry(&rx.base_url, false, vec![]);
    let runs = backfill::choose(&h.store, &[r.run_id], None).unwrap();
    let shape = t.shape(&h.provider.endpoint().base_url);
    let prices = io_harness::PriceTable::builtin();
    let root = opentelemetry::Context::new();
    let n = backfill::send_run(&shape, &h.store, &prices, &runs[0], "io-harness", &root).unwrap();
    assert_eq!(finish(t).await, None);
    let spans = rx.spans();
    assert_eq!(n, spans.len());
    let mut got = names(&spans);
    got.sort();
    assert_eq!(
        got,
        [
            "chat m",
            "chat m",
            "execute_tool list_dir",
            "invoke_agent io-harness"
        ]
    );
    let agent = one(&spans, "invoke_agent io-harness");
    let row = h.store.run(r.run_id).unwrap().unwrap();
    let started = backfill::parse_time(&row.started_at).unwrap();
    let nanos = started
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    assert_eq!(agent.start_time_unix_nano, nanos);
    let calls = h.store.timed_calls(r.run_id).unwrap();
    let last = backfill::parse_time(&calls[1].1).unwrap();
    let chat_ends: Vec<u64> = named(&spans, "chat m")
        .iter()
        .map(|s| s.end_time_unix_nano)
        .collect();
    let last_nanos = last
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    assert!(chat_ends.contains(&last_nanos));
    for s in &spans {
        if s.name != agent.name {
            assert_eq!(s.parent_span_id, agent.span_id);
        }
    }
}

fn config_error(text: &str) -> String {
    Config::parse(text, "io.toml").unwrap_err().to_string()
}

#[test]
fn telemetry_mistakes_name_file_line_and_key() {
    let e =
        config_error("provider = \"anthropic\"\n[telemetry]\notlp_endpoint = \"localhost:4318\"\n");
    assert!(
        e.starts_with("io.toml:3: `otlp_endpoint` in [telemetry]"),
        "{e}"
    );
    assert!(e.contains("expected an http:// or https:// URL"), "{e}");
    let e = config_error("[telemetry]\nprotocol = \"http/json\"\n");
    assert!(e.starts_with("io.toml:2: `protocol` in [telemetry]"), "{e}");
    assert!(
        e.contains("expected \"http/protobuf\" (the default) or \"grpc\""),
        "{e}"
    );
    let e = config_error("[telemetry]\n[telemetry.headers]\n\"bad header\" = \"v\"\n");
    assert!(e.starts_with("io.toml:3: "), "{e}");
    assert!(e.contains("is not an HTTP header name"), "{e}");
    let e = config_error("[telemetry]\nheaders = { x-key = \"a\\nb\" }\n");
    assert!(e.starts_with("io.toml:2: "), "{e}");
    assert!(!e.contains("a\\nb"), "a header value is not repeated: {e}");
    let e = config_error("[telemetry]\notlp_endpiont = \"http://h:4318\"\n");
    assert!(e.starts_with("io.toml:2"), "{e}");
    assert!(e.contains("otlp_endpiont"), "{e}");
    let ok = Config::from_scopes(vec![io_harness::config::Scope {
        layer: "project".into(),
        path: "io.toml".into(),
        text: "[telemetry]\notlp_endpoint = \"http://localhost:4318\"\nprotocol = \"http/protobuf\"\ncapture_content = true\nservice_name = \"agents\"\nheaders = { x-api-key = \"k\" }\n".into(),
    }])
    .unwrap();
    let listing: Vec<String> = ok.listing().iter().map(ToString::to_string).collect();
    assert!(
        listing.contains(&"telemetry.headers.x-api-key = \"[redacted]\"  io.toml:6".to_string()),
        "{listing:#?}"
    );
}

#[test]
fn grpc_is_taken_from_io_toml_and_from_the_variable() {
    let config = Config::parse(
        "[telemetry]\notlp_endpoint = \"http://localhost:4317\"\nprotocol = \"grpc\"\n",
        "io.toml",
    )
    .unwrap();
    let r = resolve(config.telemetry.as_ref(), &|_| None).unwrap();
    assert_eq!(r.protocol, (Protocol::Grpc, Source::File));
    // Over gRPC the endpoint is used as given: no /v1/traces.
    assert_eq!(
        r.endpoint,
        Some(("http://localhost:4317".to_string(), Source::File))
    );
    let env = |k: &str| match k {
        "OTEL_EXPORTER_OTLP_PROTOCOL" => Some("grpc".to_string()),
        "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://collector:4317".to_string()),
        _ => None,
    };
    let r = resolve(None, &env).unwrap();
    assert_eq!(
        r.protocol,
        (Protocol::Grpc, Source::Env("OTEL_EXPORTER_OTLP_PROTOCOL"))
    );
    assert_eq!(
        r.endpoint.map(|e| e.0),
        Some("http://collector:4317".to_string())
    );
}

#[test]
fn config_shows_the_protocol_in_effect_and_where_it_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("io.toml");
    let clean = |c: &mut std::process::Command| {
        for var in [
            "OTEL_SDK_DISABLED",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
            "OTEL_SERVICE_NAME",
        ] {
            c.env_remove(var);
        }
    };
    std::fs::write(&p, "provider = \"anthropic\"\n").unwrap();
    let mut c = cli::bin();
    clean(&mut c);
    c.args(["config", "--config", p.to_str().unwrap()])
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317");
    let (code, out, err) = cli::run(&mut c);
    assert_eq!(code, 0, "{err}");
    for line in [
        "telemetry.otlp_endpoint = \"http://127.0.0.1:4317\"  (in effect; io.toml does not set it)  env OTEL_EXPORTER_OTLP_ENDPOINT",
        "telemetry.protocol = \"grpc\"  (in effect; io.toml does not set it)  env OTEL_EXPORTER_OTLP_PROTOCOL",
    ] {
        assert!(out.contains(line), "{line} not in:\n{out}");
    }
    std::fs::write(
        &p,
        "[telemetry]\notlp_endpoint = \"http://127.0.0.1:4317\"\nprotocol = \"grpc\"\n",
    )
    .unwrap();
    let mut c = cli::bin();
    clean(&mut c);
    c.args(["config", "--config", p.to_str().unwrap()])
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
    let (code, out, err) = cli::run(&mut c);
    assert_eq!(code, 0, "{err}");
    let line = format!("telemetry.protocol = \"grpc\"  {}:3", p.display());
    assert!(out.contains(&line), "{line} not in:\n{out}");
    assert_eq!(out.matches("telemetry.protocol").count(), 1, "{out}");
}

/// io.toml's header wins over the same header in `OTEL_EXPORTER_OTLP_HEADERS`, as
/// docs/telemetry.md says, over HTTP and over gRPC (the exporter crate reads the
/// variable itself and would let it win).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_io_toml_header_wins_over_the_same_header_in_the_variable() {
    for grpc in [false, true] {
        let receiver = if grpc {
            Receiver::start_grpc(Mode::Ok).await
        } else {
            Receiver::start(Mode::Ok).await
        };
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("io.toml");
        std::fs::write(
            &cfg,
            format!(
                "[telemetry]\notlp_endpoint = \"{}\"\nprotocol = \"{}\"\nheaders = {{ x-team = \"from-file\" }}\n",
                receiver.base_url,
                if grpc { "grpc" } else { "http/protobuf" }
            ),
        )
        .unwrap();
        let mut c = cli::bin();
        c.current_dir(dir.path())
            .args(["run", "--demo", "--config", "io.toml", "--store", "runs.db"])
            .env("OTEL_EXPORTER_OTLP_HEADERS", "x-team=from-env,x-other=kept")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_HEADERS");
        let (code, _, err) = tokio::task::spawn_blocking(move || cli::run(&mut c))
            .await
            .unwrap();
        assert_eq!(code, 0, "{err}");
        let headers = receiver.headers.lock().unwrap().clone();
        assert!(!headers.is_empty(), "grpc {grpc}: nothing arrived; {err}");
        for h in &headers {
            let team: Vec<&str> = h
                .iter()
                .filter(|(k, _)| k == "x-team")
                .map(|(_, v)| v.as_str())
                .collect();
            assert_eq!(team, ["from-file"], "grpc {grpc}: {h:?}");
            assert!(
                h.iter().any(|(k, v)| k == "x-other" && v == "kept"),
                "grpc {grpc}: {h:?}"
            );
        }
    }
}

/// A collector found unreachable pauses tracing: the runs after it make no spans
/// (counted, said once), and after the pause spans are made and sent again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_collector_pauses_tracing_then_it_is_tried_again() {
    // Listening but failing every export: the start-up probe passes, the first
    // batch fails and pauses tracing.
    let rx = Receiver::start(Mode::Fail).await;
    let t = telemetry(&rx.base_url, false, vec![]);
    let h = Harness::new([searches(), searches(), searches()].concat()).await;
    traced(&h, &t, contract("first"), RunOptions::default()).await;
    // The first batch goes out within the batch delay (200 ms) and fails.
    let waited = std::time::Instant::now();
    while !t.paused() {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(5),
            "never paused"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(
        *rx.hits.lock().unwrap() > 0,
        "paused without trying the collector"
    );
    let hits = *rx.hits.lock().unwrap();
    let second = traced(&h, &t, contract("second"), RunOptions::default()).await;
    assert_eq!(second.outcome, io_harness::RunOutcome::Passed);
    // Paused: the second run made no spans, so nothing more was sent.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(*rx.hits.lock().unwrap(), hits, "a paused run sent spans");
    // After the pause, spans are made and tried again.
    tokio::time::sleep(io_harness::telemetry::queue::PAUSE).await;
    traced(&h, &t, contract("third"), RunOptions::default()).await;
    let said = finish(t).await.unwrap();
    assert!(
        *rx.hits.lock().unwrap() > hits,
        "not tried again after the pause"
    );
    assert_eq!(said.matches("could not take").count(), 1, "{said}");
    assert!(said.contains("run events were not traced"), "{said}");
}

/// A Gemini run is traced under the GenAI conventions' name for Google's Gemini
/// API, `gcp.gemini`, through the launch seam as `run --demo --provider gemini`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gemini_run_is_traced_as_gcp_gemini() {
    let rx = Receiver::start(Mode::Ok).await;
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "provider = \"gemini\"\n[task]\nworkspace = {:?}\n[telemetry]\notlp_endpoint = {:?}\n",
        dir.path().display().to_string(),
        rx.base_url
    );
    let loaded = io_harness::config::Loaded {
        config: Config::parse(&text, "io.toml").unwrap(),
        path: None,
    };
    let mut launch = io_harness::Launch::resolve(&loaded, true);
    launch.start_stub().await.unwrap();
    launch.start_telemetry().unwrap();
    let contract = launch.plan().contract(|_| {});
    let provider = launch
        .provider(io_harness::Vendor::Gemini, None, &launch.key())
        .unwrap();
    let store = io_harness::Store::open(dir.path().join("runs.db")).unwrap();
    let call = io_harness::Call {
        store: &store,
        approver: &ApproveAll,
        cancel: tokio_util::sync::CancellationToken::new(),
    };
    let r = launch
        .run(
            &contract,
            &provider,
            std::sync::Arc::new(io_harness::run::NoObserver),
            None,
            call,
        )
        .await
        .unwrap();
    assert!(r.outcome.passed(), "{r:?}");
    assert_eq!(launch.finish().await, None);
    let spans = rx.spans();
    let agent = one(&spans, "invoke_agent io-harness");
    assert_eq!(
        attr(agent, "gen_ai.provider.name").as_deref(),
        Some("gcp.gemini")
    );
    let chat = one(&spans, "chat gemini-3.5-flash");
    assert_eq!(
        attr(chat, "gen_ai.provider.name").as_deref(),
        Some("gcp.gemini")
    );
    assert_eq!(
        attr(chat, "io_harness.server_tool.searches").as_deref(),
        Some("1")
    );
}
