//! A real OTLP receiver on loopback for the telemetry tests, over HTTP (`POST
//! /v1/traces` bodies decoded with the official proto definitions,
//! `opentelemetry-proto`'s prost types) or over gRPC (the official
//! `TraceService`, served by tonic), every span kept; or a collector that fails
//! every export, hangs, or resets every connection.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// How the receiver behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Decode and keep, answer 200 (over gRPC, OK).
    Ok,
    /// Answer 500 to everything (over gRPC, UNAVAILABLE).
    Fail,
    /// Never answer.
    Hang,
    /// Accept each connection and reset it, the request unread.
    Reset,
}

/// One request's headers (gRPC metadata): lower-case name, text value.
pub type Headers = Vec<(String, String)>;

/// A running receiver.
pub struct Receiver {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// Every request decoded, in arrival order.
    pub requests: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
    /// Requests that arrived, whatever the mode.
    pub hits: Arc<Mutex<u32>>,
    /// The headers (over gRPC, the metadata) of every request that arrived,
    /// names lower-case, values that are not text left out.
    pub headers: Arc<Mutex<Vec<Headers>>>,
}

impl Receiver {
    /// Start an OTLP/HTTP one on an ephemeral loopback port.
    pub async fn start(mode: Mode) -> Receiver {
        let (listener, receiver) = Receiver::bound().await;
        if mode == Mode::Reset {
            receiver.reset_every_connection(listener);
        } else {
            let state = Shared {
                mode,
                requests: receiver.requests.clone(),
                hits: receiver.hits.clone(),
                headers: receiver.headers.clone(),
            };
            let app = axum::Router::new()
                .route("/v1/traces", post(receive))
                .with_state(state);
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
        }
        receiver
    }

    /// Start an OTLP/gRPC one (the official `TraceService`, served by tonic over
    /// HTTP/2 without TLS) on an ephemeral loopback port.
    pub async fn start_grpc(mode: Mode) -> Receiver {
        let (listener, receiver) = Receiver::bound().await;
        if mode == Mode::Reset {
            receiver.reset_every_connection(listener);
        } else {
            let service = TraceServiceServer::new(Shared {
                mode,
                requests: receiver.requests.clone(),
                hits: receiver.hits.clone(),
                headers: receiver.headers.clone(),
            });
            let incoming = tonic::transport::server::TcpIncoming::from(listener);
            tokio::spawn(async move {
                let _ = tonic::transport::Server::builder()
                    .add_service(service)
                    .serve_with_incoming(incoming)
                    .await;
            });
        }
        receiver
    }

    async fn bound() -> (tokio::net::TcpListener, Receiver) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let receiver = Receiver {
            base_url,
            requests: Arc::new(Mutex::new(Vec::new())),
            hits: Arc::new(Mutex::new(0)),
            headers: Arc::new(Mutex::new(Vec::new())),
        };
        (listener, receiver)
    }

    fn reset_every_connection(&self, listener: tokio::net::TcpListener) {
        let hits = self.hits.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                *hits.lock().unwrap() += 1;
                // Closed with the request unread: the kernel answers with a reset.
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                drop(socket);
            }
        });
    }

    /// Every span received, in arrival order.
    pub fn spans(&self) -> Vec<Span> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .flat_map(|r| r.resource_spans.iter())
            .flat_map(|rs| rs.scope_spans.iter())
            .flat_map(|ss| ss.spans.iter().cloned())
            .collect()
    }

    /// `service.name` of every batch received.
    pub fn service_names(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .flat_map(|r| r.resource_spans.iter())
            .filter_map(|rs| rs.resource.as_ref())
            .flat_map(|r| r.attributes.iter())
            .filter(|kv| kv.key == "service.name")
            .filter_map(|kv| text(kv.value.as_ref()?.value.as_ref()?))
            .collect()
    }
}

/// What either receiver keeps, and how it answers.
#[derive(Clone)]
struct Shared {
    mode: Mode,
    requests: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
    hits: Arc<Mutex<u32>>,
    headers: Arc<Mutex<Vec<Headers>>>,
}

impl Shared {
    fn arrived(&self, headers: &HeaderMap) {
        *self.hits.lock().unwrap() += 1;
        let text = headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        self.headers.lock().unwrap().push(text);
    }
}

#[tonic::async_trait]
impl TraceService for Shared {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        self.arrived(&request.metadata().clone().into_headers());
        match self.mode {
            Mode::Fail => return Err(tonic::Status::unavailable("down")),
            Mode::Hang => {
                tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            }
            Mode::Ok | Mode::Reset => {}
        }
        self.requests.lock().unwrap().push(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

async fn receive(
    State(shared): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Vec<u8>) {
    shared.arrived(&headers);
    let Shared { mode, requests, .. } = shared;
    match mode {
        Mode::Fail => return (StatusCode::INTERNAL_SERVER_ERROR, b"down".to_vec()),
        Mode::Hang => {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
        Mode::Ok | Mode::Reset => {}
    }
    match ExportTraceServiceRequest::decode(body) {
        Ok(req) => {
            requests.lock().unwrap().push(req);
            (
                StatusCode::OK,
                ExportTraceServiceResponse::default().encode_to_vec(),
            )
        }
        Err(_) => (StatusCode::BAD_REQUEST, b"not OTLP protobuf".to_vec()),
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::StringValue(s) => Some(s.clone()),
        _ => None,
    }
}

/// A span's attribute as display text (`None` when absent): strings as is,
/// numbers and booleans printed, arrays as `[a, b]`.
pub fn attr(span: &Span, key: &str) -> Option<String> {
    let v = span.attributes.iter().find(|kv| kv.key == key)?;
    show(v.value.as_ref()?.value.as_ref()?)
}

fn show(v: &Value) -> Option<String> {
    Some(match v {
        Value::StringValue(s) => s.clone(),
        Value::IntValue(i) => i.to_string(),
        Value::DoubleValue(d) => d.to_string(),
        Value::BoolValue(b) => b.to_string(),
        Value::ArrayValue(a) => format!(
            "[{}]",
            a.values
                .iter()
                .filter_map(|x| show(x.value.as_ref()?))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => return None,
    })
}

/// Every string a span carries: its name, attribute values, status message.
pub fn strings(span: &Span) -> Vec<String> {
    let mut out = vec![span.name.clone()];
    out.extend(
        span.attributes
            .iter()
            .filter_map(|kv| show(kv.value.as_ref()?.value.as_ref()?)),
    );
    if let Some(s) = &span.status {
        out.push(s.message.clone());
    }
    out
}
