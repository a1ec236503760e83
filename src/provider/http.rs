//! `HttpProvider`: one vendor over HTTPS with reqwest (rustls). The API key is read
//! from the variable the config names, held in an `ApiKey` that never prints, and
//! put into a header only at send time. Each attempt and retry is an event. A
//! streamed answer (`Endpoint::stream`) is read by `provider::stream`, its deltas
//! reported as they arrive; anything else is read whole and decoded.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue as ReqHeaderValue};

use super::body::{self, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT};
use super::retry::{Next, RetryPolicy};
use super::scrub::{Secrets, TextScrubber};
use super::{AttemptSink, Provider, Reply};
use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::core::event::EventKind;
use crate::core::plan::{PlanLimits, RunPlan};
use crate::core::turn::{HeaderValue, Turn, WireRequest, WireResponse};
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;
use crate::core::wire;

/// An API key. Its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wrap a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// A provider reached over HTTP.
#[derive(Debug, Clone)]
pub struct HttpProvider {
    endpoint: Endpoint,
    model: String,
    max_tokens: u32,
    key: Option<ApiKey>,
    retry: RetryPolicy,
    client: reqwest::Client,
    /// The key and any URL credentials, scrubbed from whatever leaves `complete`.
    secrets: Secrets,
    max_response_bytes: u64,
    request_timeout: Duration,
    idle_timeout: Duration,
    /// The client's connect timeout and per-read timeout. The read timeout is a
    /// backstop under this provider's own limits and is kept above both the idle
    /// timeout and the request deadline, so those (with their clearer errors) are
    /// what ends an attempt, never a shorter transport default.
    connect_timeout: Duration,
    read_timeout: Duration,
    /// It talks to the built-in stub vendor (its key is the stub's).
    stub: bool,
}

/// What one attempt got: a whole body to decode, or a stream already assembled.
enum Answer {
    Whole(WireResponse),
    Streamed(Box<Result<crate::core::completion::Completion>>),
}

/// How long to wait for a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The client's per-read timeout: a second over the default request deadline
/// (which is above the default idle timeout); `covering_limits` raises it for
/// larger limits.
const READ_TIMEOUT: Duration = Duration::from_secs(DEFAULT_REQUEST_TIMEOUT.as_secs() + 1);
const _: () = assert!(READ_TIMEOUT.as_secs() > super::stream::DEFAULT_IDLE_TIMEOUT.as_secs());

fn client(connect: Duration, read: Duration) -> reqwest::Client {
    super::tls::install();
    reqwest::Client::builder()
        .connect_timeout(connect)
        .read_timeout(read)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
}

impl HttpProvider {
    /// A provider with no key yet (see `with_api_key`, `from_env`).
    pub fn new(endpoint: Endpoint, model: impl Into<String>, max_tokens: u32) -> Self {
        HttpProvider {
            secrets: Secrets::new(None, &endpoint.base_url),
            endpoint,
            model: model.into(),
            max_tokens,
            key: None,
            retry: RetryPolicy::default(),
            client: client(CONNECT_TIMEOUT, READ_TIMEOUT),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            idle_timeout: super::stream::DEFAULT_IDLE_TIMEOUT,
            connect_timeout: CONNECT_TIMEOUT,
            read_timeout: READ_TIMEOUT,
            stub: false,
        }
    }

    /// Raise the client's read timeout above the idle timeout and the request
    /// deadline (a second over the larger), rebuilding the client if it changes.
    fn covering_limits(mut self) -> Self {
        let needed = self.idle_timeout.max(self.request_timeout) + Duration::from_secs(1);
        if self.read_timeout < needed {
            self.read_timeout = needed;
            self.client = client(self.connect_timeout, self.read_timeout);
        }
        self
    }

    /// A provider whose key comes from the variable `endpoint.api_key_env` names.
    pub fn from_env(endpoint: Endpoint, model: impl Into<String>, max_tokens: u32) -> Result<Self> {
        let var = endpoint.api_key_env.clone();
        let key = std::env::var(&var).ok().filter(|k| !k.trim().is_empty()).ok_or_else(|| {
            Error::config(format!(
                "{var} is not set: export {var}=… with your {} API key, or name another variable with `api_key_env` under [providers.{}] in io.toml; `--demo` runs against the built-in stub vendor instead (no key, nothing leaves this machine)",
                endpoint.vendor, endpoint.vendor
            ))
        })?;
        Ok(HttpProvider::new(endpoint, model, max_tokens).with_api_key(ApiKey::new(key)))
    }

    /// Use this key.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.secrets = Secrets::new(Some(&key.0), &self.endpoint.base_url);
        self.key = Some(key);
        self
    }

    /// Send this key, which is not a secret: the stub vendor's, which checks none
    /// (the demo's `demo`, a console demo run's `demo-<n>`). It is not scrubbed
    /// from what comes back, where ids such as `toolu_demo_1` would be garbled.
    pub fn with_stub_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(ApiKey::new(key));
        self.stub = true;
        self
    }

    /// Refuse response bodies larger than this many bytes.
    pub fn with_max_response_bytes(mut self, max: u64) -> Self {
        self.max_response_bytes = max;
        self
    }

    /// Abandon an attempt with no complete response after this long.
    pub fn with_request_timeout(mut self, limit: Duration) -> Self {
        self.request_timeout = limit;
        self.covering_limits()
    }

    /// Use these retry bounds.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Use these connect and per-read timeouts. The read timeout is raised, now and
    /// by later settings, to stay above the idle timeout and the request deadline.
    pub fn with_timeouts(mut self, connect: Duration, read: Duration) -> Self {
        self.connect_timeout = connect;
        self.read_timeout = read;
        self.client = client(connect, read);
        self.covering_limits()
    }

    /// How long a stream may stay silent before the attempt is a timeout.
    pub fn with_idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self.covering_limits()
    }

    /// The endpoint this provider calls.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn headers(&self, request: &WireRequest) -> Result<HeaderMap> {
        let mut map = HeaderMap::new();
        for (name, value) in &request.headers {
            let text = match value {
                HeaderValue::Plain(v) => v.clone(),
                HeaderValue::Secret { prefix, env } => {
                    let key = self.key.as_ref().ok_or_else(|| {
                        Error::config(format!(
                            "{env} is not set, so no API key can be sent to {}; export it first",
                            self.endpoint.vendor
                        ))
                    })?;
                    format!("{prefix}{}", key.0)
                }
            };
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| Error::config(format!("bad header name {name}: {e}")))?;
            let mut value = ReqHeaderValue::from_str(&text).map_err(|_| Error::config(format!("header {name} has a value that cannot be sent (check the API key for stray characters)")))?;
            if matches!(value_kind(request, name.as_str()), Some(true)) {
                value.set_sensitive(true);
            }
            map.insert(name, value);
        }
        Ok(map)
    }

    async fn attempt(
        &self,
        request: &WireRequest,
        headers: HeaderMap,
        sink: &dyn AttemptSink,
    ) -> Result<Answer> {
        let vendor = self.endpoint.vendor;
        let transport = |what: &str, e: reqwest::Error| Error::Transport {
            provider: vendor,
            message: format!("{what} {}: {}", request.url, super::body::without_url(&e)),
            retryable: true,
        };
        let mut response = self
            .client
            .post(&request.url)
            .headers(headers)
            .body(request.body.clone())
            .send()
            .await
            .map_err(|e| {
                transport(
                    if e.is_timeout() {
                        "timed out calling"
                    } else {
                        "could not reach"
                    },
                    e,
                )
            })?;
        let status = response.status().as_u16();
        let head: Vec<(String, String)> = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let head = WireResponse {
            status,
            headers: head,
            body: Vec::new(),
        };
        let streamed = (self.endpoint.stream && super::stream::is_event_stream(&head))
            .then(|| wire::stream::assembler_for(self.endpoint.wire, head.clone()))
            .flatten();
        if let Some(assembler) = streamed {
            return Ok(Answer::Streamed(Box::new(
                super::stream::read(
                    assembler,
                    self.endpoint.vendor,
                    &request.url,
                    response,
                    self.idle_timeout,
                    sink,
                )
                .await,
            )));
        }
        let expected = response.content_length();
        let cut = |read: usize, e: &reqwest::Error| Error::Transport {
            provider: vendor,
            message: format!(
                "the response body was cut short after {read} of {} bytes (HTTP {status}): {}",
                expected.map_or("?".to_string(), |n| n.to_string()),
                super::body::without_url(e)
            ),
            retryable: true,
        };
        let body = body::read_capped(&mut response, vendor, self.max_response_bytes, cut).await?;
        Ok(Answer::Whole(WireResponse { body, ..head }))
    }
}

fn value_kind(request: &WireRequest, name: &str) -> Option<bool> {
    request
        .headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| matches!(v, HeaderValue::Secret { .. }))
}

/// Hands a stream's events on with every secret scrubbed from them, text deltas
/// through a `TextScrubber` so a secret split across two of them never shows.
struct ScrubbingSink<'a> {
    inner: &'a dyn AttemptSink,
    secrets: &'a Secrets,
    text: std::sync::Mutex<TextScrubber>,
}

impl<'a> ScrubbingSink<'a> {
    fn new(inner: &'a dyn AttemptSink, secrets: &'a Secrets) -> Self {
        ScrubbingSink {
            inner,
            secrets,
            text: std::sync::Mutex::new(TextScrubber::default()),
        }
    }

    /// Hand on the text held back (the attempt ended, or another event comes).
    fn flush(&self) {
        if let Some(text) = self.text.lock().ok().and_then(|mut t| t.flush()) {
            self.inner.emit(EventKind::TextDelta { text });
        }
    }
}

impl AttemptSink for ScrubbingSink<'_> {
    fn emit(&self, kind: EventKind) {
        match kind {
            EventKind::TextDelta { text } => {
                let ready = self
                    .text
                    .lock()
                    .ok()
                    .and_then(|mut t| t.push(self.secrets, &text));
                if let Some(text) = ready {
                    self.inner.emit(EventKind::TextDelta { text });
                }
            }
            other => {
                self.flush();
                self.inner.emit(self.secrets.event(other));
            }
        }
    }
}

#[async_trait]
impl Provider for HttpProvider {
    fn vendor(&self) -> Vendor {
        self.endpoint.vendor
    }

    fn wire(&self) -> Wire {
        self.endpoint.wire
    }

    fn plan(&self) -> Option<RunPlan> {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Some(RunPlan {
            endpoint: self.endpoint.clone(),
            model: self.model.clone(),
            max_tokens: self.max_tokens,
            limits: PlanLimits {
                max_response_bytes: self.max_response_bytes,
                request_timeout_ms: ms(self.request_timeout),
                idle_timeout_ms: ms(self.idle_timeout),
            },
            demo: self.stub,
            tools: Vec::new(),
        })
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    fn carries(&self, web: Option<&WebAccess>) -> Result<()> {
        crate::core::capability::carries(self.endpoint.wire, web)
    }

    async fn complete(&self, turn: &Turn, sink: &dyn AttemptSink) -> Result<Reply> {
        let request = wire::encode(&self.endpoint, turn)?;
        let headers = self.headers(&request)?;
        let started = Instant::now();
        let mut waited = Duration::ZERO;
        let mut attempt = 1;
        loop {
            sink.emit(EventKind::RequestSent { attempt });
            // The whole attempt, streamed or not, runs under the request deadline, and
            // whatever the vendor echoed is scrubbed before anything is decoded or shown.
            let scrubbing = ScrubbingSink::new(sink, &self.secrets);
            let attempt_once = self.attempt(&request, headers.clone(), &scrubbing);
            let sent = body::within(
                self.request_timeout,
                self.endpoint.vendor,
                &request.url,
                attempt_once,
            )
            .await;
            scrubbing.flush();
            let outcome = match sent {
                Ok(Answer::Streamed(result)) => (*result)
                    .map(|c| self.secrets.completion(c))
                    .map_err(|e| (e, None)),
                Ok(Answer::Whole(mut response)) => {
                    response.body = self.secrets.bytes(std::mem::take(&mut response.body));
                    for (_, v) in &mut response.headers {
                        *v = self.secrets.text(v);
                    }
                    let should_retry = response
                        .header("x-should-retry")
                        .map(|v| v.eq_ignore_ascii_case("true"));
                    // The bytes were scrubbed; what decoding made of them is too
                    // (a key escaped in the body is whole again once decoded).
                    wire::decode_wire(self.endpoint.wire, &response)
                        .map(|c| self.secrets.completion(c))
                        .map_err(|e| (e, should_retry))
                }
                Err(e) => Err((e, None)),
            };
            match outcome {
                Ok(completion) => {
                    return Ok(Reply {
                        completion,
                        latency_ms: started.elapsed().as_millis() as u64,
                        attempts: attempt,
                        provider: self.endpoint.vendor,
                        model: turn.model.clone(),
                        wire: self.endpoint.wire,
                        endpoint: super::talk::origin(&request.url),
                    });
                }
                Err((error, should_retry)) => {
                    let error = self.secrets.error(error);
                    match self.retry.next(attempt, &error, should_retry, waited) {
                        Next::GiveUp => return Err(error),
                        Next::RetryAfter(wait) => {
                            sink.emit(EventKind::Retrying {
                                attempt,
                                status: error.vendor().map(|v| v.status),
                                wait_ms: wait.as_millis() as u64,
                                reason: error.to_string(),
                            });
                            tokio::time::sleep(wait).await;
                            waited += wait;
                            attempt += 1;
                        }
                    }
                }
            }
        }
    }
}
