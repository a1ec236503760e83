//! The launch seam: the preview is the bytes sent. For every wire × conversation
//! mode, with a web declaration every wire carries (a search: Gemini takes no cap), the body `Launch::preview`
//! builds is byte for byte the body the loopback stub received when the same
//! launch ran the same contract (or both refuse, and nothing reaches the stub).

#![cfg(feature = "stub")]
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use io_harness::config::Loaded;
use io_harness::launch::{Call, Launch};
use io_harness::run::NoObserver;
use io_harness::stub::{Script, StubVendor};
use io_harness::{Config, NobodyToAsk, Store, Wire};
use tokio_util::sync::CancellationToken;

fn io_toml(wire: Wire, conversation: &str, ws: &std::path::Path) -> String {
    let vendor = wire.vendor();
    format!(
        "provider = \"{vendor}\"\n\n[providers.{vendor}]\n{} = \"{}\"\n\n[task]\ngoal = \"Find the current io-harness release.\"\nworkspace = {:?}\n\n[web]\nsearch = true\n\n[run]\n{conversation}\n",
        Wire::key(vendor),
        wire.value(),
        ws.display().to_string()
    )
}

/// The demo script without its pacing: the answers, at once.
fn quick_demo() -> Script {
    let mut script = Script::demo();
    for r in &mut script.responses {
        r.delay_ms = None;
        r.stream.event_delay_ms = None;
        r.stream.pause_after = None;
        r.stream.pause_ms = None;
    }
    script
}

async fn received(addr: std::net::SocketAddr) -> Vec<serde_json::Value> {
    let url = format!("http://{addr}/__requests");
    io_harness::provider::tls::install();
    let bytes = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_previewed_body_is_the_body_the_stub_received() {
    let modes = [
        "conversation = \"flattened\"",
        "conversation = \"transcript\"\ncache = true",
    ];
    let mut compared = 0;
    for wire in Wire::ALL {
        for mode in modes {
            let dir = tempfile::tempdir().unwrap();
            let text = io_toml(wire, mode, dir.path());
            let loaded = Loaded {
                config: Config::parse(&text, "io.toml").unwrap(),
                path: None,
            };
            let mut launch = Launch::resolve(&loaded, false);
            let stub = StubVendor::start("127.0.0.1:0".parse().unwrap(), quick_demo())
                .await
                .unwrap();
            let addr = stub.addr();
            launch.serve_with(stub);
            let vendor = wire.vendor();
            // One request is all this compares.
            let contract = launch.plan().contract(|c| c.budget.steps = 1);
            let preview = launch.preview(&contract, vendor, None);
            let store = Store::open(dir.path().join("runs.db")).unwrap();
            let provider = launch.provider(vendor, None, &launch.key()).unwrap();
            let call = Call {
                store: &store,
                approver: &NobodyToAsk,
                cancel: CancellationToken::new(),
            };
            let ran = launch
                .run(&contract, &provider, Arc::new(NoObserver), None, call)
                .await;
            let got = received(addr).await;
            match preview.request {
                Ok(request) => {
                    let first = got.first().unwrap_or_else(|| {
                        panic!("{wire:?} {mode}: nothing reached the stub ({ran:?})")
                    });
                    let sent = first["body"].as_str().unwrap();
                    assert_eq!(
                        String::from_utf8(request.body).unwrap(),
                        sent,
                        "{wire:?} {mode}: the preview is not the body sent"
                    );
                    // The stub records the path; a query (Gemini's `?alt=sse`) is not in it.
                    let without_query = request.url.split('?').next().unwrap_or_default();
                    assert!(
                        without_query.ends_with(first["path"].as_str().unwrap()),
                        "{wire:?} {mode}: {} vs {}",
                        request.url,
                        first["path"]
                    );
                    compared += 1;
                }
                Err(refusal) => {
                    assert!(
                        got.is_empty(),
                        "{wire:?} {mode}: refused ({refusal}) yet sent"
                    );
                    assert!(ran.is_err(), "{wire:?} {mode}: refused ({refusal}) yet ran");
                }
            }
            launch.finish().await;
        }
    }
    // Every wire carries a search, in both modes.
    assert_eq!(compared, Wire::ALL.len() * modes.len());
}
