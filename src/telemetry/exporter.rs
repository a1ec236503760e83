//! The exporter: spans made by `live` and `backfill` go out through the bounded
//! queue to the collector `settings` resolved, over OTLP/HTTP or gRPC, with every
//! vendor's secrets scrubbed. Built only with the `otlp` feature.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig, WithTonicConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;

use crate::core::endpoint::Endpoint;
use crate::core::error::{Error, Result};
use crate::provider::scrub::{Secrets, display_url};
use crate::run::Observer;
use crate::telemetry::queue::{BoundedQueue, Counters, Driver, EXPORT_TIMEOUT, QUEUE_SPANS, Scrub};
use crate::telemetry::settings::{Protocol, Resolved};
use crate::telemetry::{headers, live::TraceObserver, spans};

/// How long the end of a command waits for the last spans to go out.
pub const FINISH_GRACE: Duration = Duration::from_millis(3500);

/// The secrets of every vendor `endpoints` reach (keys from their variables,
/// `base_url` credentials): what no exported attribute may carry.
pub fn vendor_secrets<'a>(endpoints: impl IntoIterator<Item = &'a Endpoint>) -> Vec<Secrets> {
    endpoints
        .into_iter()
        .map(|e| {
            let key = std::env::var(&e.api_key_env).ok();
            Secrets::new(key.as_deref(), &e.base_url)
        })
        .collect()
}

/// A running exporter: the tracer provider and its queue's counters.
pub struct Telemetry {
    provider: SdkTracerProvider,
    queue: Arc<BoundedQueue>,
    counters: Arc<Counters>,
    endpoint: String,
    capture_content: bool,
}

impl Telemetry {
    /// Start exporting to the endpoint `settings` resolved, over its protocol,
    /// scrubbing `secrets` (and the collector's header values) from every span;
    /// `Ok(None)` when no endpoint is in effect.
    pub fn start(settings: &Resolved, secrets: Vec<Secrets>) -> Result<Option<Telemetry>> {
        Telemetry::start_with_queue(settings, secrets, QUEUE_SPANS)
    }

    /// As `start`, with a queue of `capacity` spans.
    pub fn start_with_queue(
        settings: &Resolved,
        mut secrets: Vec<Secrets>,
        capacity: usize,
    ) -> Result<Option<Telemetry>> {
        let Some((endpoint, _)) = &settings.endpoint else {
            return Ok(None);
        };
        let headers = settings
            .headers
            .iter()
            .map(|(k, v, _)| (k.clone(), v.clone()))
            .collect::<std::collections::HashMap<_, _>>();
        for v in headers.values() {
            secrets.push(Secrets::new(Some(v), ""));
        }
        secrets.push(Secrets::new(None, endpoint));
        let resource = Resource::builder()
            .with_service_name(settings.service_name.0.clone())
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let url = endpoint.clone();
        let protocol = settings.protocol.0;
        // No retries either way: a collector that is down costs one refused
        // connection per batch, and the end of a command never waits on backoff.
        let build = move || {
            let built = match protocol {
                Protocol::HttpProtobuf => opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_http_client(headers::Overriding::new(&headers, EXPORT_TIMEOUT)?)
                    .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
                    .with_endpoint(url)
                    .with_timeout(EXPORT_TIMEOUT)
                    .with_headers(headers)
                    .with_retry_policy(opentelemetry_otlp::RetryPolicy::disabled())
                    .build(),
                Protocol::Grpc => {
                    let tls = url::Url::parse(&url).is_ok_and(|u| u.scheme() == "https");
                    let builder = opentelemetry_otlp::SpanExporter::builder()
                        .with_tonic()
                        .with_protocol(opentelemetry_otlp::Protocol::Grpc)
                        .with_endpoint(url)
                        .with_timeout(EXPORT_TIMEOUT)
                        .with_metadata(headers::metadata(&headers))
                        .with_interceptor(headers::interceptor(&headers))
                        .with_retry_policy(opentelemetry_otlp::RetryPolicy::disabled());
                    // The system's roots, as the HTTP client trusts them.
                    let builder = if tls {
                        builder.with_tls_config(
                            opentelemetry_otlp::tonic_types::transport::ClientTlsConfig::new()
                                .with_native_roots(),
                        )
                    } else {
                        builder
                    };
                    builder.build()
                }
            };
            built.map_err(|e| format!("the OTLP exporter could not be built: {e}"))
        };
        let driver = match protocol {
            Protocol::HttpProtobuf => Driver::Plain,
            Protocol::Grpc => Driver::Tokio,
        };
        // Where a direct connection says whether the collector listens; not
        // tried when a proxy is configured (the exporter may reach it only so).
        let proxied = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"].iter().any(|v| {
            std::env::var_os(v)
                .or_else(|| std::env::var_os(v.to_lowercase()))
                .is_some()
        });
        let probe = url::Url::parse(endpoint)
            .ok()
            .filter(|_| !proxied)
            .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)));
        let (queue, counters) = BoundedQueue::start(
            build,
            driver,
            resource.clone(),
            Scrub(secrets),
            capacity,
            probe,
        )
        .map_err(|e| Error::io("the OTLP export thread (it did not start)", e))?;
        let queue = Arc::new(queue);
        let provider = SdkTracerProvider::builder()
            .with_span_processor(Shared(queue.clone()))
            .with_resource(resource)
            .build();
        Ok(Some(Telemetry {
            provider,
            queue,
            counters,
            endpoint: display_url(endpoint),
            capture_content: settings.capture_content,
        }))
    }

    /// What span builders need, for a vendor at `base_url`.
    pub fn shape(&self, base_url: &str) -> spans::Shape {
        let scope = InstrumentationScope::builder("io-harness")
            .with_version(env!("CARGO_PKG_VERSION"))
            .with_schema_url(format!(
                "https://opentelemetry.io/schemas/{}",
                spans::SEMCONV_VERSION
            ))
            .build();
        spans::Shape {
            tracer: self.provider.tracer_with_scope(scope),
            capture_content: self.capture_content,
            server: spans::server_of(base_url),
        }
    }

    /// An observer that traces a run (and its children) and passes every event
    /// on to `inner`.
    pub fn observer(&self, base_url: &str, inner: Arc<dyn Observer>) -> Arc<TraceObserver> {
        Arc::new(TraceObserver::new(self.shape(base_url), inner).paused_by(self.counters.clone()))
    }

    /// Send what is held (waiting at most `FINISH_GRACE`) and say, in one line,
    /// what did not go out: spans dropped, a collector that could not be reached.
    /// `None` when everything was delivered.
    pub fn finish(self) -> Option<String> {
        self.summary(false)
    }

    /// As `finish`, worded for stored runs sent after the fact (`export otlp`):
    /// no run was live, so nothing "paused tracing" — a span not sent while the
    /// collector was unreachable is one not delivered, counted with the rest.
    pub fn finish_stored(self) -> Option<String> {
        self.summary(true)
    }

    fn summary(self, stored: bool) -> Option<String> {
        let finished = self.queue.finish(FINISH_GRACE);
        let c = &self.counters;
        let dropped = c.dropped.load(Ordering::Relaxed);
        let skipped = c.skipped.load(Ordering::Relaxed);
        let failed = c.failed.load(Ordering::Relaxed);
        let sent = c.sent.load(Ordering::Relaxed);
        let first = c.first_error.lock().ok().and_then(|e| e.clone());
        let mut parts = Vec::new();
        let (failed, skipped) = if stored {
            (failed.saturating_add(skipped), 0)
        } else {
            (failed, skipped)
        };
        if let Some(e) = first {
            parts.push(if failed == 0 {
                format!("the OTLP collector at {} could not be reached ({e})", self.endpoint)
            } else {
                format!(
                    "the OTLP collector at {} could not take the spans ({e}); {failed} span{} not delivered",
                    self.endpoint,
                    plural(failed)
                )
            });
        }
        if skipped > 0 {
            parts.push(format!(
                "tracing paused while it was unreachable: {skipped} run event{} not traced",
                plural(skipped)
            ));
        }
        if dropped > 0 {
            parts.push(format!(
                "{dropped} span{} dropped (the export queue of {QUEUE_SPANS} was full)",
                plural(dropped)
            ));
        }
        if !finished {
            parts.push(format!(
                "the collector at {} did not answer within {:.1} s; spans still queued were not sent",
                self.endpoint,
                FINISH_GRACE.as_secs_f64()
            ));
        }
        let _ = sent;
        (!parts.is_empty()).then(|| format!("telemetry: {}", parts.join("; ")))
    }

    /// Tracing is paused: the collector was found unreachable less than
    /// `queue::PAUSE` ago, and runs make no spans for now.
    pub fn paused(&self) -> bool {
        self.counters.paused()
    }

    /// `finish` off the async threads (it waits on the export thread): the one
    /// line to print, if any.
    pub async fn finish_blocking(self) -> Option<String> {
        tokio::task::spawn_blocking(move || self.finish())
            .await
            .ok()
            .flatten()
    }

    /// Spans delivered so far.
    pub fn sent(&self) -> u64 {
        self.counters.sent.load(Ordering::Relaxed)
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { " was" } else { "s were" }
}

/// The queue shared between the provider (which owns its processors) and the
/// `Telemetry` that finishes it.
#[derive(Debug)]
struct Shared(Arc<BoundedQueue>);

impl opentelemetry_sdk::trace::SpanProcessor for Shared {
    fn on_start(&self, span: &mut opentelemetry_sdk::trace::Span, cx: &opentelemetry::Context) {
        self.0.on_start(span, cx);
    }

    fn on_end(&self, span: opentelemetry_sdk::trace::SpanData) {
        self.0.on_end(span);
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }
}
