//! The loopback stub vendor: serves the six vendors' endpoints (every wire) on a local
//! address, answering each request with the next scripted response, and records
//! every request it got (API-key headers redacted). Tests and the console's offline
//! demo use it; `io-harness stub-vendor` runs it standalone.

pub mod cache;
pub mod demo;
mod fault;
mod script;
mod stream;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tokio::sync::oneshot;

use crate::core::error::{Error, Result};
use crate::core::vendor::Vendor;
pub use script::{Script, ScriptedResponse, StreamScript};

/// One request the stub received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedRequest {
    /// `POST`.
    pub method: String,
    /// The path asked for.
    pub path: String,
    /// Headers, `authorization` and `x-api-key` shown as `<redacted>`.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    #[serde(serialize_with = "lossy")]
    pub body: Vec<u8>,
}

fn lossy<S: serde::Serializer>(body: &[u8], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(body))
}

#[derive(Default)]
struct Inner {
    script: Script,
    cursor: HashMap<Option<Route>, usize>,
    /// Where a route's cursor starts after a rewind: 0, or the answers a
    /// resumed run had already taken (`Rewinder::rewind_to`).
    start_at: usize,
    requests: Vec<RecordedRequest>,
    /// How many times the script was rewound; a demo run's key names the
    /// generation it started in (`demo-<n>`).
    generation: u64,
    /// What the cache emulation remembers (`Script::emulate_usage`).
    ledger: cache::Ledger,
}

type Shared = Arc<Mutex<Inner>>;

/// A running stub.
pub struct StubHandle {
    addr: SocketAddr,
    shared: Shared,
    stop: Option<oneshot::Sender<()>>,
}

impl StubHandle {
    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL for a vendor, matching `Vendor::path()`.
    pub fn base_url(&self, vendor: Vendor) -> String {
        base_url(&self.addr.to_string(), vendor)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .lock()
            .map(|i| i.requests.clone())
            .unwrap_or_default()
    }

    /// A handle that sends the script back to its first answer, for whoever
    /// starts runs against this stub (the console's demo: every run sees the
    /// whole script, however the last one ended).
    pub fn rewinder(&self) -> Rewinder {
        Rewinder(self.shared.clone())
    }

    /// Stop serving.
    pub fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The base URL a stub listening on `host_port` serves `vendor` under.
pub fn base_url(host_port: &str, vendor: Vendor) -> String {
    vendor.base_url_at(host_port)
}

/// Sends a running stub's script back to its first answer.
#[derive(Clone)]
pub struct Rewinder(Shared);

impl Rewinder {
    /// The next request to each vendor gets that vendor's first scripted answer.
    /// Returns the key the run that follows should send (`demo-<n>`, not a
    /// secret): a request still carrying an older run's key, such as a cancelled
    /// run's last request reaching the stub after this rewind, is answered 409
    /// and takes no scripted answer, so it cannot shift the new run's script.
    pub fn rewind(&self) -> String {
        self.rewind_to(0)
    }

    /// As `rewind`, for a run resumed after `answered` answers: the next request
    /// to each vendor gets that vendor's answer after them, so a resumed demo
    /// run continues the script at the step it reached.
    pub fn rewind_to(&self, answered: usize) -> String {
        let generation = match self.0.lock() {
            Ok(mut inner) => {
                inner.cursor.clear();
                inner.start_at = answered;
                inner.generation += 1;
                inner.generation
            }
            Err(_) => 0,
        };
        format!("{DEMO_KEY}{generation}")
    }
}

/// The prefix of the keys `Rewinder::rewind` hands out.
const DEMO_KEY: &str = "demo-";

/// The generation a request's demo key names, if it carries one.
fn demo_generation(headers: &HeaderMap) -> Option<u64> {
    let key = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .or_else(|| {
            headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
        })?;
    key.strip_prefix(DEMO_KEY)?.parse().ok()
}

impl std::fmt::Debug for Rewinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rewinder")
    }
}

/// The stub vendor.
pub struct StubVendor;

impl StubVendor {
    /// Listen on `addr` (port 0 for any) and serve `script` until shut down.
    pub async fn start(addr: SocketAddr, script: Script) -> Result<StubHandle> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::io(format!("the stub vendor's address {addr}"), e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::io("the stub vendor's socket", e))?;
        let shared: Shared = Arc::new(Mutex::new(Inner {
            script,
            ..Inner::default()
        }));
        let app = Router::new()
            .route("/__requests", axum::routing::get(requests))
            .fallback(answer)
            .with_state(shared.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            if let Err(e) = serve.await {
                tracing::warn!("stub vendor stopped: {e}");
            }
        });
        Ok(StubHandle {
            addr,
            shared,
            stop: Some(stop),
        })
    }
}

/// Serve until Ctrl-C; `ready` is told the bound address.
pub async fn serve(
    listen: SocketAddr,
    script: Script,
    ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let handle = StubVendor::start(listen, script).await?;
    ready(handle.addr());
    tokio::signal::ctrl_c()
        .await
        .map_err(|e| Error::io("waiting for Ctrl-C", e))?;
    handle.shutdown();
    Ok(())
}

async fn requests(State(shared): State<Shared>) -> Response {
    let list = shared
        .lock()
        .map(|i| i.requests.clone())
        .unwrap_or_default();
    axum::Json(list).into_response()
}

/// Which vendor a path belongs to, and whether it is the path of a wire of its
/// own (OpenAI's Responses, Perplexity's Sonar) rather than the vendor's default
/// wire's; the other wires share their vendor's path and response shape.
type Route = (Vendor, bool);

fn route_of(path: &str) -> Option<Route> {
    if gemini_method(path).is_some() {
        return Some((Vendor::Gemini, false));
    }
    match path {
        "/v1/messages" => Some((Vendor::Anthropic, false)),
        "/v1/chat/completions" => Some((Vendor::OpenAi, false)),
        "/v1/responses" => Some((Vendor::OpenAi, true)),
        "/api/v1/chat/completions" => Some((Vendor::OpenRouter, false)),
        "/xai/v1/responses" => Some((Vendor::Xai, false)),
        "/perplexity/v1/agent" | "/perplexity/v1/responses" => Some((Vendor::Perplexity, false)),
        "/perplexity/chat/completions" => Some((Vendor::Perplexity, true)),
        _ => None,
    }
}

/// Gemini's method, where `path` is `/v1beta/models/{model}:{method}`.
fn gemini_method(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/v1beta/models/")?;
    let (model, method) = rest.rsplit_once(':')?;
    (!model.is_empty() && matches!(method, "generateContent" | "streamGenerateContent"))
        .then_some(method)
}

fn json_error(status: StatusCode, message: &str) -> Response {
    (
        status,
        axum::Json(serde_json::json!({"error": {"type": "stub_error", "message": message}})),
    )
        .into_response()
}

async fn answer(
    State(shared): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let Some(route) = route_of(&path) else {
        return json_error(
            StatusCode::NOT_FOUND,
            &format!(
                "the stub serves /v1/messages, /v1/chat/completions, /v1/responses, /api/v1/chat/completions, /v1beta/models/MODEL:generateContent (or :streamGenerateContent), /xai/v1/responses, /perplexity/v1/agent and /perplexity/chat/completions, not {path}"
            ),
        );
    };
    let next = {
        let Ok(mut inner) = shared.lock() else {
            return json_error(StatusCode::INTERNAL_SERVER_ERROR, "stub state poisoned");
        };
        let recorded = headers
            .iter()
            .map(|(n, v)| {
                let value = if matches!(n.as_str(), "authorization" | "x-api-key") {
                    "<redacted>".to_string()
                } else {
                    String::from_utf8_lossy(v.as_bytes()).into_owned()
                };
                (n.as_str().to_string(), value)
            })
            .collect();
        inner.requests.push(RecordedRequest {
            method: method.to_string(),
            path: path.clone(),
            headers: recorded,
            body: body.to_vec(),
        });
        if demo_generation(&headers).is_some_and(|g| g < inner.generation) {
            return json_error(
                StatusCode::CONFLICT,
                "this request belongs to a run from before the stub's script was rewound; it takes no scripted answer",
            );
        }
        let mut next = pick(&mut inner, route, &body);
        if let Some(r) = next.as_mut().filter(|r| (200..300).contains(&r.status)) {
            if inner.script.emulate_usage && !r.stream.raw {
                emulate(&mut inner.ledger, route, &body, r);
            }
        }
        next
    };
    let Some(r) = next else {
        return json_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the stub vendor's script is exhausted",
        );
    };
    if let Some(ms) = r.delay_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    // Gemini asks for a stream in its URL; the others in the body.
    let streamed = gemini_method(&path) == Some("streamGenerateContent");
    if streamed || stream::asked(&body) || r.stream.raw {
        if let Some(frames) = stream::frames(&r, route.0, route.1) {
            return stream::respond(&r, frames).unwrap_or_else(|e| {
                json_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("bad scripted response: {e}"),
                )
            });
        }
    }
    let mut builder = Response::builder()
        .status(r.status)
        .header("content-type", "application/json")
        .header("request-id", "req_stub");
    for (n, v) in &r.headers {
        builder = builder.header(n.as_str(), v.as_str());
    }
    let (body, length) = fault::body(&r);
    if let Some(n) = length {
        builder = builder.header("content-length", n);
    }
    let response = builder.body(body);
    response.unwrap_or_else(|e| {
        json_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("bad scripted response: {e}"),
        )
    })
}

/// Rewrite a scripted answer's input-side usage as the cache emulation accounts
/// this request (a body that is not JSON is left as scripted).
fn emulate(
    ledger: &mut cache::Ledger,
    (vendor, responses): Route,
    request: &[u8],
    r: &mut ScriptedResponse,
) {
    let Some(accounting) = ledger.account(vendor, responses, request) else {
        return;
    };
    let Ok(mut body) = serde_json::from_slice::<serde_json::Value>(&r.body) else {
        return;
    };
    cache::patch(&mut body, vendor, responses, &accounting);
    if let Ok(bytes) = serde_json::to_vec(&body) {
        r.body = bytes;
    }
}

/// Whether a scripted response answers a request on this route: an entry naming a
/// wire answers that wire's path; one naming only a vendor answers the vendor's
/// spec path; one naming neither answers anything.
fn answers(r: &ScriptedResponse, (vendor, responses): Route) -> bool {
    match (r.wire, r.vendor) {
        (Some(w), _) => w.vendor() == vendor && stream::own_path(w) == responses,
        (None, Some(v)) => v == vendor && !responses,
        (None, None) => true,
    }
}

/// The next response for this route: entries answering it, in order — those
/// whose `match` the request's body holds (the longest such `match` only: a
/// judge's prompt, which quotes the question, is told from the question by a
/// longer one), else those without a `match`.
fn pick(inner: &mut Inner, route: Route, body: &[u8]) -> Option<ScriptedResponse> {
    let holds = |needle: &str| {
        !needle.is_empty() && body.windows(needle.len()).any(|w| w == needle.as_bytes())
    };
    let routed = || inner.script.responses.iter().filter(|r| answers(r, route));
    let held = |r: &&ScriptedResponse| r.matches.as_deref().is_some_and(holds);
    let longest = routed()
        .filter(held)
        .filter_map(|r| r.matches.as_ref().map(String::len))
        .max();
    let mut eligible: Vec<&ScriptedResponse> = routed()
        .filter(held)
        .filter(|r| r.matches.as_ref().map(String::len) == longest)
        .collect();
    if eligible.is_empty() {
        eligible = routed().filter(|r| r.matches.is_none()).collect();
    }
    if eligible.is_empty() {
        return None;
    }
    let any_tagged = inner.script.responses.iter().any(|r| r.vendor.is_some());
    let key = if any_tagged { Some(route) } else { None };
    let start = inner.start_at;
    let cursor = inner.cursor.entry(key).or_insert(start);
    let index = if *cursor >= eligible.len() {
        if !inner.script.repeat {
            return None;
        }
        *cursor % eligible.len()
    } else {
        *cursor
    };
    *cursor += 1;
    eligible.get(index).map(|r| (*r).clone())
}
