//! Traces say what the vendor said (issue 27, item 4): an OpenAI Chat run's
//! `chat` span carries the vendor's own finish reason (`stop`, not the neutral
//! `end_turn`), and the same run sent again from the store (`export otlp`'s
//! backfill) carries the endpoint the request went to and the vendor's response
//! id as the live span did — or leaves an attribute out, never invents one.

#![cfg(all(feature = "otlp", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::otlp::{Mode, Receiver, attr};
use common::*;
use io_harness::run::{RunOptions, run_with_options};
use io_harness::telemetry::settings::{Stated, resolve};
use io_harness::telemetry::{Protocol, Telemetry, backfill};
use io_harness::{ApproveAll, Policy, Vendor};
use opentelemetry_proto::tonic::trace::v1::Span;
use pretty_assertions::assert_eq;

const CHAT_STOP: &str = r#"{"id":"chatcmpl-demo","object":"chat.completion","model":"m",
 "choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],
 "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#;

fn telemetry(url: &str) -> Telemetry {
    let table = Stated {
        otlp_endpoint: Some(url.to_string()),
        protocol: Some(Protocol::HttpProtobuf.as_str().to_string()),
        ..Stated::default()
    };
    let settings = resolve(Some(&table), &|_| None).unwrap();
    Telemetry::start(&settings, vec![]).unwrap().unwrap()
}

async fn finish(t: Telemetry) -> Option<String> {
    tokio::task::spawn_blocking(move || t.finish())
        .await
        .unwrap()
}

/// The one `chat m` span's attributes this test is about.
fn said(spans: &[Span]) -> Vec<(&'static str, Option<String>)> {
    let chats: Vec<&Span> = spans.iter().filter(|s| s.name == "chat m").collect();
    assert_eq!(chats.len(), 1);
    [
        "gen_ai.response.finish_reasons",
        "gen_ai.response.id",
        "server.address",
        "server.port",
    ]
    .into_iter()
    .map(|k| (k, attr(chats[0], k)))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_and_backfilled_spans_say_what_the_vendor_said() {
    let h = Harness::vendor(Vendor::OpenAi, vec![ok(CHAT_STOP)]).await;
    let base = h.provider.endpoint().base_url.clone();
    let port = url::Url::parse(&base).unwrap().port().unwrap().to_string();
    let want = vec![
        ("gen_ai.response.finish_reasons", Some("[stop]".to_string())),
        ("gen_ai.response.id", Some("chatcmpl-demo".to_string())),
        ("server.address", Some("127.0.0.1".to_string())),
        ("server.port", Some(port)),
    ];

    // Live.
    let rx = Receiver::start(Mode::Ok).await;
    let t = telemetry(&rx.base_url);
    let mut c = contract("say done");
    c.workspace = h.workspace.path().to_path_buf();
    let r = run_with_options(
        &c,
        &h.provider,
        &h.store,
        &Policy::workspace_default(),
        &ApproveAll,
        RunOptions {
            observer: t.observer(&base, h.events.clone()),
            ..RunOptions::default()
        },
    )
    .await
    .unwrap();
    assert!(r.outcome.passed(), "{:?}", r.outcome);
    assert_eq!(finish(t).await, None);
    assert_eq!(said(&rx.spans()), want, "live");

    // From the store, as `export otlp` sends it: its shape names the vendor's
    // public endpoint (what io.toml says today), not where this run went.
    let rx = Receiver::start(Mode::Ok).await;
    let t = telemetry(&rx.base_url);
    let shape = t.shape("https://api.openai.com/v1");
    let runs = backfill::choose(&h.store, &[r.run_id], None).unwrap();
    let prices = io_harness::PriceTable::builtin();
    let root = opentelemetry::Context::new();
    backfill::send_run(&shape, &h.store, &prices, &runs[0], "io-harness", &root).unwrap();
    assert_eq!(finish(t).await, None);
    assert_eq!(said(&rx.spans()), want, "backfilled");
}
