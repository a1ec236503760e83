//! Streamed runs over real HTTP against the stub vendor and a real SQLite file:
//! the new events arrive in order and before the step's summary events; the store
//! records exactly what a non-streamed run records; and the faults a stream can
//! have — an `error` event mid-stream, a clean end before the final event, a
//! reset, a silence, an OpenRouter error chunk — are retried under the bounded
//! policy with the new attempt visible, nothing half-received ever stored.

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::*;
use io_harness::stub::{ScriptedResponse, StreamScript};
use io_harness::{Event, EventKind, RunOutcome, Vendor};
use pretty_assertions::assert_eq;

/// A harness whose provider asks for streams (idle timeout `idle`).
async fn streamed(vendor: Vendor, responses: Vec<ScriptedResponse>, idle: Duration) -> Harness {
    Harness::vendor(vendor, responses).await.streamed(idle)
}

fn streaming(body: &str, plan: StreamScript) -> ScriptedResponse {
    ScriptedResponse {
        stream: plan,
        ..ok(body)
    }
}

fn raw_sse(text: &str) -> ScriptedResponse {
    streaming(
        text,
        StreamScript {
            raw: true,
            ..StreamScript::default()
        },
    )
}

fn kinds(events: &[EventKind]) -> Vec<&'static str> {
    events
        .iter()
        .map(|k| match k {
            EventKind::RunStarted { .. } => "run_started",
            EventKind::StepStarted { .. } => "step_started",
            EventKind::RequestSent { .. } => "request_sent",
            EventKind::Retrying { .. } => "retrying",
            EventKind::TextDelta { .. } => "text_delta",
            EventKind::ServerToolStarted { .. } => "server_tool_started",
            EventKind::ServerToolReturned { .. } => "server_tool_returned",
            EventKind::CitationReceived { .. } => "citation_received",
            EventKind::ToolCallRequested { .. } => "tool_call_requested",
            EventKind::OutputTokens { .. } => "output_tokens",
            EventKind::ProviderCalled { .. } => "provider_called",
            EventKind::ServerToolUsed { .. } => "server_tool_used",
            EventKind::CitationRecorded { .. } => "citation_recorded",
            EventKind::NotRecorded { .. } => "not_recorded",
            EventKind::SearchSuggestions { .. } => "search_suggestions",
            EventKind::ToolCalled { .. } => "tool_called",
            EventKind::ApprovalAsked { .. } => "approval_asked",
            EventKind::ApprovalAnswered { .. } => "approval_answered",
            EventKind::Observation { .. } => "observation",
            EventKind::Finished { .. } => "finished",
        })
        .fold(Vec::new(), |mut v, k| {
            if v.last() != Some(&k) {
                v.push(k);
            }
            v
        })
}

#[tokio::test]
async fn a_streamed_run_reports_as_it_goes_and_records_what_a_whole_one_does() {
    let script = || vec![ok(SEARCH_FAILED_THEN_TOOL), ok(SEARCH_OK_DUPLICATES)];
    let whole = Harness::new(script()).await;
    let w = whole.run(contract("find it")).await;
    let live = streamed(Vendor::Anthropic, script(), Duration::from_secs(5)).await;
    let s = live.run(contract("find it")).await;
    assert_eq!(
        (w.outcome.clone(), s.outcome.clone()),
        (RunOutcome::Passed, RunOutcome::Passed)
    );
    assert_eq!(live.recorded(s.run_id), whole.recorded(w.run_id));
    // The requests the model saw are the same, `"stream": true` aside.
    let strip = |mut b: serde_json::Value| {
        b.as_object_mut().unwrap().remove("stream");
        b
    };
    let bodies: Vec<_> = live.bodies().into_iter().map(strip).collect();
    assert_eq!(bodies, whole.bodies());
    assert!(live.bodies().iter().all(|b| b["stream"] == true));

    // Step 1 (the failed search): the live events first, then the summary.
    let events = live.events();
    let step1: Vec<EventKind> = {
        let all = live.events.0.lock().unwrap().clone();
        all.into_iter()
            .filter(|e: &Event| e.step == 1)
            .map(|e| e.kind)
            .collect()
    };
    assert_eq!(
        kinds(&step1),
        vec![
            "step_started",
            "request_sent",
            "server_tool_started",
            "server_tool_returned",
            "tool_call_requested",
            "output_tokens",
            "provider_called",
            "server_tool_used",
            "tool_called",
            "observation"
        ]
    );
    assert!(step1.contains(&EventKind::ServerToolStarted {
        provider: Vendor::Anthropic,
        tool: "web_search".into(),
        id: "srvtoolu_9".into(),
        input: Some("q".into()),
    }));
    assert!(step1.contains(&EventKind::ServerToolReturned {
        provider: Vendor::Anthropic,
        tool: "web_search".into(),
        id: "srvtoolu_9".into(),
        ok: false,
        error: Some("max_uses_exceeded".into()),
        input: Some("q".into()),
    }));
    let text: String = events
        .iter()
        .filter_map(|k| match k {
            EventKind::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "onetwo");
    // Step 2's citations: each as it arrived, then the deduplicated records.
    let cited = |want: fn(&EventKind) -> bool| events.iter().filter(|k| want(k)).count();
    assert_eq!(
        cited(|k| matches!(k, EventKind::CitationReceived { .. })),
        3
    );
    assert_eq!(
        cited(|k| matches!(k, EventKind::CitationRecorded { .. })),
        2
    );
}

#[tokio::test]
async fn a_failed_search_in_a_stream_is_told_to_the_model_exactly_as_today() {
    let script = || vec![ok(SEARCH_FAILED_THEN_TOOL), ok(ANSWER)];
    let whole = Harness::new(script()).await;
    whole.run(contract("find it")).await;
    let live = streamed(Vendor::Anthropic, script(), Duration::from_secs(5)).await;
    live.run(contract("find it")).await;
    let told = user_text(&live.bodies()[1]);
    assert_eq!(told, user_text(&whole.bodies()[1]));
    assert!(
        told.contains("[step 1] provider web tool: web_search failed (max_uses_exceeded)"),
        "{told}"
    );
}

#[tokio::test]
async fn pause_turn_arriving_in_a_stream_takes_another_step() {
    let paused = fixture("anthropic/pause-turn.json");
    let live = streamed(
        Vendor::Anthropic,
        vec![ok(&paused), ok(ANSWER)],
        Duration::from_secs(5),
    )
    .await;
    let r = live.run(contract("find it")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    let calls = live.store.provider_calls(r.run_id).unwrap();
    let stops: Vec<&str> = calls.iter().map(|c| c.stop_reason.as_str()).collect();
    assert_eq!(stops, ["pause_turn", "end_turn"]);
    assert_eq!(r.steps, 2);
}

const START: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_x\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"half an ans\"}}\n\n";

/// Retried once, passed, one `provider_calls` row: the half-received attempt left
/// nothing in the store.
async fn retried_once(h: &Harness) -> Vec<EventKind> {
    let r = h.run(contract("find it")).await;
    assert_eq!(r.outcome, RunOutcome::Passed, "{:?}", h.events());
    let calls = h.store.provider_calls(r.run_id).unwrap();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].usage.unwrap().output_tokens, 2);
    let events = h.events();
    assert!(
        events.contains(&EventKind::RequestSent { attempt: 2 }),
        "{events:?}"
    );
    assert!(!events.contains(&EventKind::RequestSent { attempt: 3 }));
    events
}

fn retry_reason(events: &[EventKind]) -> (Option<u16>, String) {
    events
        .iter()
        .find_map(|k| match k {
            EventKind::Retrying { status, reason, .. } => Some((*status, reason.clone())),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn an_error_event_mid_stream_is_retried_like_a_529() {
    let overloaded = format!(
        "{START}event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}}}\n\n"
    );
    let h = streamed(
        Vendor::Anthropic,
        vec![raw_sse(&overloaded), ok(ANSWER)],
        Duration::from_secs(5),
    )
    .await;
    let events = retried_once(&h).await;
    let (status, reason) = retry_reason(&events);
    assert_eq!(status, Some(529));
    assert!(reason.contains("overloaded_error"), "{reason}");
    // What the cut attempt streamed was reported (whole, before the retry; how it
    // is cut into deltas is the scrubber's business), then the retry streamed afresh.
    let mut per_attempt: Vec<String> = Vec::new();
    for k in &events {
        match k {
            EventKind::RequestSent { .. } => per_attempt.push(String::new()),
            EventKind::TextDelta { text } => {
                if let Some(t) = per_attempt.last_mut() {
                    t.push_str(text);
                }
            }
            _ => {}
        }
    }
    assert_eq!(per_attempt, ["half an ans", "done"]);
}

#[tokio::test]
async fn a_stream_ended_cleanly_before_message_stop_is_retried() {
    let h = streamed(
        Vendor::Anthropic,
        vec![raw_sse(START), ok(ANSWER)],
        Duration::from_secs(5),
    )
    .await;
    let events = retried_once(&h).await;
    let (status, reason) = retry_reason(&events);
    assert_eq!(status, None);
    assert!(
        reason.contains("the stream ended before message_stop"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_truncated_stream_is_retried() {
    let cut = streaming(
        ANSWER,
        StreamScript {
            end_after: Some(4),
            ..StreamScript::default()
        },
    );
    let h = streamed(
        Vendor::Anthropic,
        vec![cut, ok(ANSWER)],
        Duration::from_secs(5),
    )
    .await;
    let events = retried_once(&h).await;
    assert!(
        retry_reason(&events)
            .1
            .contains("ended before message_stop")
    );
}

#[tokio::test]
async fn a_stream_reset_mid_way_is_retried() {
    let reset = streaming(
        ANSWER,
        StreamScript {
            reset_after: Some(4),
            // Paced, so the head and the first events are on the wire before the cut.
            event_delay_ms: Some(20),
            ..StreamScript::default()
        },
    );
    let h = streamed(
        Vendor::Anthropic,
        vec![reset, ok(ANSWER)],
        Duration::from_secs(5),
    )
    .await;
    let events = retried_once(&h).await;
    let reason = retry_reason(&events).1;
    assert!(
        reason.contains("the stream from") && reason.contains("was cut"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_silent_stream_times_out_and_nothing_is_recorded() {
    let silent = || {
        streaming(
            ANSWER,
            StreamScript {
                pause_after: Some(2),
                pause_ms: Some(3_000),
                ..StreamScript::default()
            },
        )
    };
    let h = streamed(
        Vendor::Anthropic,
        vec![silent(), silent(), silent()],
        Duration::from_millis(300),
    )
    .await;
    let r = h.run(contract("find it")).await;
    match &r.outcome {
        RunOutcome::Error { message } => {
            assert!(message.contains("was silent for 0.3 s"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(h.store.provider_calls(r.run_id).unwrap().is_empty());
    assert!(h.events().contains(&EventKind::RequestSent { attempt: 3 }));
}

#[tokio::test]
async fn pings_are_traffic_for_the_idle_timeout() {
    // Eight pings 150 ms apart, then the answer: 1.2 s in all, never 300 ms silent.
    let mut sse = String::from(START);
    for _ in 0..8 {
        sse.push_str("event: ping\ndata: {\"type\":\"ping\"}\n\n");
    }
    sse.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    let pinging = ScriptedResponse {
        stream: StreamScript {
            raw: true,
            event_delay_ms: Some(150),
            ..StreamScript::default()
        },
        ..ok(&sse)
    };
    let h = streamed(Vendor::Anthropic, vec![pinging], Duration::from_millis(300)).await;
    let r = h.run(contract("find it")).await;
    assert_eq!(r.outcome, RunOutcome::Passed, "{:?}", h.events());
    assert_eq!(r.answer, "half an ans");
}

#[tokio::test]
async fn an_openrouter_error_chunk_is_retried_as_its_code() {
    let error_chunk = ": OPENROUTER PROCESSING\n\ndata: {\"id\":\"gen-1\",\"object\":\"chat.completion.chunk\",\"error\":{\"code\":502,\"message\":\"Provider returned error\"},\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n";
    let answer = r#"{"id":"gen-2","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"done"}}],"usage":{"prompt_tokens":3,"completion_tokens":2}}"#;
    let h = streamed(
        Vendor::OpenRouter,
        vec![raw_sse(error_chunk), ok(answer)],
        Duration::from_secs(5),
    )
    .await;
    let events = retried_once(&h).await;
    assert_eq!(retry_reason(&events).0, Some(502));
    let body = &h.bodies()[0];
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn openai_streams_a_cited_answer_into_the_store() {
    let h = streamed(
        Vendor::OpenAi,
        vec![ok(&fixture("openai/search-ok.json"))],
        Duration::from_secs(5),
    )
    .await;
    let r = h.run(contract("find it")).await;
    assert_eq!(r.outcome, RunOutcome::Passed);
    assert!(!h.store.citations(r.run_id).unwrap().is_empty());
    assert!(
        h.events()
            .iter()
            .any(|k| matches!(k, EventKind::CitationReceived { .. }))
    );
}

/// reqwest's own per-read timeout (300 s) sat under `idle_timeout_secs` and
/// `request_timeout_secs` (allowed up to 3,600 s), so a silence or a slow answer
/// the operator allowed was cut by it. The provider now raises it to cover both.
/// Scaled down: a 1 s read timeout, a 2 s silence, limits of 8 s (room for a
/// loaded machine).
#[tokio::test]
async fn the_transport_read_timeout_never_undercuts_the_configured_limits() {
    use io_harness::{ApiKey, HttpProvider};
    let provider = |h: &Harness, stream: bool| {
        let endpoint = h.provider.endpoint().clone().streaming(stream);
        HttpProvider::new(endpoint, "m".to_string(), 256)
            .with_api_key(ApiKey::new("sk-test-SECRET"))
            .with_timeouts(Duration::from_secs(5), Duration::from_secs(1))
            .with_idle_timeout(Duration::from_secs(8))
            .with_request_timeout(Duration::from_secs(8))
    };
    // A stream silent for 2 s mid-way (a search running).
    let silent = streaming(
        ANSWER,
        StreamScript {
            pause_after: Some(2),
            pause_ms: Some(2000),
            ..StreamScript::default()
        },
    );
    let mut h = Harness::vendor(Vendor::Anthropic, vec![silent]).await;
    h.provider = provider(&h, true);
    let r = h.run(contract("wait for it")).await;
    assert_eq!(r.outcome, RunOutcome::Passed, "{:?}", h.events());
    // A whole answer that takes 2 s to start.
    let slow = ScriptedResponse {
        delay_ms: Some(2000),
        ..ok(ANSWER)
    };
    let mut h = Harness::vendor(Vendor::Anthropic, vec![slow]).await;
    h.provider = provider(&h, false);
    let r = h.run(contract("wait for it")).await;
    assert_eq!(r.outcome, RunOutcome::Passed, "{:?}", h.events());
}

/// A vendor that echoes the API key mid-answer, split across two text deltas (as a
/// stream may cut anywhere): no live text event ever carries the key, whole or as
/// the two halves that would put it on screen together; the text around it still
/// arrives, and a stream that ends on most of a key shows none of it.
#[tokio::test]
async fn a_key_split_across_text_deltas_never_reaches_a_live_event() {
    const HEAD: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_k\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
    const TAIL: &str = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":12}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let sse = |pieces: &[&str]| {
        let mut s = String::from(HEAD);
        for t in pieces {
            s.push_str(&format!(
                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{t}\"}}}}\n\n"
            ));
        }
        s.push_str(TAIL);
        raw_sse(&s)
    };
    let h = streamed(
        Vendor::Anthropic,
        vec![sse(&[
            "your key is sk-te",
            "st-SEC",
            "RET, keep it",
            " safe. Ends sk-test-SEC",
        ])],
        Duration::from_secs(5),
    )
    .await;
    let r = h.run(contract("echo")).await;
    assert_eq!(r.outcome, RunOutcome::Passed, "{:?}", h.events());
    let live: String = h
        .events()
        .iter()
        .filter_map(|k| match k {
            EventKind::TextDelta { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert!(!live.contains("sk-test-SECRET"), "{live}");
    assert!(!live.contains("sk-test-SEC"), "{live}");
    assert!(
        live.starts_with("your key is [redacted], keep it safe. Ends "),
        "{live}"
    );
}
