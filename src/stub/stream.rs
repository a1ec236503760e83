//! The stub vendor's streamed answers. A request whose body says `"stream": true`
//! gets its scripted 2xx answer as server-sent events: a JSON body is rendered as
//! its wire would stream it (`core::wire::stream::render`), a body scripted as
//! SSE already (`stream = { raw = true }`) is sent as written, event by event.
//! The script can slow each event down, pause once after the Nth (a search
//! running), end the body cleanly after the Nth (a stream cut short) or reset the
//! connection after the Nth. Errors (non-2xx) are answered as JSON, as vendors do.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::response::Response;

use super::script::{ScriptedResponse, StreamScript};
use crate::core::vendor::{Vendor, Wire};
use crate::core::wire::stream::render::render;

/// Whether a request body asks for a stream.
pub(super) fn asked(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("stream").and_then(serde_json::Value::as_bool))
        .unwrap_or(false)
}

/// The events to send for a scripted answer, or `None` when it is not streamed
/// (an error status, or a body this wire cannot render).
pub(super) fn frames(r: &ScriptedResponse, vendor: Vendor, responses: bool) -> Option<Vec<String>> {
    if !(200..300).contains(&r.status) {
        return None;
    }
    if r.stream.raw {
        let text = String::from_utf8_lossy(&r.body).replace("\r\n", "\n");
        return Some(
            text.split_inclusive("\n\n")
                .filter(|f| !f.trim().is_empty())
                .map(str::to_string)
                .collect(),
        );
    }
    render(wire_of(vendor, responses), &r.body).ok()
}

/// Whether a wire has a path of its own, apart from its vendor's default wire
/// (OpenAI's Responses, Perplexity's Sonar).
pub(super) fn own_path(w: Wire) -> bool {
    w.path() != Wire::spec(w.vendor()).path()
}

/// The wire whose answers the requests to a vendor's path get: the one with a
/// path of its own (`own`), else the vendor's default.
fn wire_of(vendor: Vendor, own: bool) -> Wire {
    Wire::ALL
        .into_iter()
        .find(|w| w.vendor() == vendor && own && own_path(*w))
        .unwrap_or(Wire::spec(vendor))
}

/// The streamed response: `text/event-stream`, each event after its delay.
pub(super) fn respond(
    r: &ScriptedResponse,
    frames: Vec<String>,
) -> std::result::Result<Response, axum::http::Error> {
    let mut builder = Response::builder()
        .status(r.status)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .header("request-id", "req_stub");
    for (n, v) in &r.headers {
        builder = builder.header(n.as_str(), v.as_str());
    }
    let plan = r.stream.clone();
    let events = futures_util::stream::unfold(
        (frames.into_iter().enumerate(), plan),
        |(mut frames, plan)| async move {
            let (i, frame) = frames.next()?;
            if plan.end_after.is_some_and(|n| i >= n) {
                return None;
            }
            if plan.reset_after.is_some_and(|n| i >= n) {
                let cut: std::result::Result<Bytes, std::io::Error> =
                    Err(std::io::Error::other("connection reset by script"));
                // One error item, then the iterator is drained so nothing follows.
                frames.by_ref().for_each(drop);
                return Some((cut, (frames, plan)));
            }
            pause(&plan, i).await;
            Some((Ok(Bytes::from(frame)), (frames, plan)))
        },
    );
    builder.body(Body::from_stream(events))
}

/// The wait before event `i` (0-based): the per-event delay, and the one pause
/// after `pause_after` events.
async fn pause(plan: &StreamScript, i: usize) {
    if i > 0 {
        if let Some(ms) = plan.event_delay_ms {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
    if plan.pause_after == Some(i) {
        if let Some(ms) = plan.pause_ms {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
}
