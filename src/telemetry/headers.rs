//! `[telemetry]` headers sent as this program resolved them. The exporter crate
//! reads `OTEL_EXPORTER_OTLP_HEADERS` itself and lets the variable win over the
//! headers it is given; here io.toml wins (docs/telemetry.md's rule), so the resolved
//! headers are put on every export last: by a wrapper around the HTTP client, and
//! by an interceptor over gRPC.

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tonic::metadata::{Ascii, MetadataKey, MetadataMap, MetadataValue};

/// The resolved headers, each checked as an HTTP header when read.
fn header_map(headers: &HashMap<String, String>) -> HeaderMap {
    headers
        .iter()
        .filter_map(|(k, v)| {
            Some((
                HeaderName::from_bytes(k.as_bytes()).ok()?,
                HeaderValue::from_str(v).ok()?,
            ))
        })
        .collect()
}

/// The headers as gRPC metadata (names are lower-case already).
pub fn metadata(headers: &HashMap<String, String>) -> MetadataMap {
    MetadataMap::from_headers(header_map(headers))
}

/// An interceptor that puts the headers on every gRPC export, replacing any
/// value the exporter took from the environment.
pub fn interceptor(
    headers: &HashMap<String, String>,
) -> impl FnMut(tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status>
+ Send
+ Sync
+ Clone
+ use<> {
    let pairs: Vec<(MetadataKey<Ascii>, MetadataValue<Ascii>)> = headers
        .iter()
        .filter_map(|(k, v)| Some((k.parse().ok()?, v.parse().ok()?)))
        .collect();
    move |mut req: tonic::Request<()>| {
        for (k, v) in &pairs {
            req.metadata_mut().insert(k.clone(), v.clone());
        }
        Ok(req)
    }
}

/// The blocking HTTP client the exporter sends with, putting the headers on
/// every request last.
#[derive(Debug)]
pub struct Overriding {
    inner: reqwest::blocking::Client,
    headers: HeaderMap,
}

impl Overriding {
    /// A client with `timeout` per export. Built off any async runtime (the
    /// export thread's own).
    pub fn new(headers: &HashMap<String, String>, timeout: Duration) -> Result<Self, String> {
        crate::provider::tls::install();
        let inner = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| format!("the OTLP HTTP client could not be built: {e}"))?;
        Ok(Overriding {
            inner,
            headers: header_map(headers),
        })
    }
}

#[async_trait::async_trait]
impl HttpClient for Overriding {
    async fn send_bytes(&self, mut request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        for (k, v) in &self.headers {
            request.headers_mut().insert(k.clone(), v.clone());
        }
        self.inner.send_bytes(request).await
    }
}
