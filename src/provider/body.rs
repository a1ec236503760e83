//! Bounds on one response: the body is read chunk by chunk and refused once it
//! passes the provider's `max_response_bytes` (before reading at all when the
//! `content-length` already says so), and the whole attempt, connect to last byte,
//! runs under `request_timeout_secs`, so a server dripping bytes cannot hold a
//! request open until the run's budget ends. Both errors name the key to raise.

use std::future::Future;
use std::time::Duration;

use crate::core::error::{Error, Result};
use crate::core::vendor::Vendor;

/// The response size cap unless `[providers.NAME] max_response_bytes` says otherwise.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 32 * 1024 * 1024;

/// The per-request deadline unless `[providers.NAME] request_timeout_secs` says otherwise.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// Read a response body, refusing it past `max` bytes. `cut` says how a body that
/// ended early is reported (the caller knows the status and the expected length).
pub(crate) async fn read_capped(
    response: &mut reqwest::Response,
    provider: Vendor,
    max: u64,
    cut: impl Fn(usize, &reqwest::Error) -> Error,
) -> Result<Vec<u8>> {
    let too_big = |what: String| Error::Transport {
        provider,
        message: format!(
            "the response body {what}, over the {max}-byte cap; nothing was decoded. Raise \
             `max_response_bytes` under [providers.{provider}] in io.toml if the vendor's \
             answers are really this large"
        ),
        // The same request would get the same body: waiting does not help.
        retryable: false,
    };
    if let Some(n) = response.content_length().filter(|n| *n > max) {
        return Err(too_big(format!("is {n} bytes by its content-length")));
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if (body.len() + chunk.len()) as u64 > max {
                    return Err(too_big(format!(
                        "passed {} bytes while being read",
                        body.len() + chunk.len()
                    )));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) => return Err(cut(body.len(), &e)),
        }
    }
}

/// Run one attempt under the request deadline.
pub(crate) async fn within<T>(
    limit: Duration,
    provider: Vendor,
    url: &str,
    attempt: impl Future<Output = Result<T>>,
) -> Result<T> {
    match tokio::time::timeout(limit, attempt).await {
        Ok(result) => result,
        Err(_) => Err(Error::Transport {
            provider,
            message: format!(
                "no complete response from {url} within {} s, so the request was abandoned; \
                 raise `request_timeout_secs` under [providers.{provider}] in io.toml if \
                 answers really take this long",
                limit.as_secs()
            ),
            retryable: true,
        }),
    }
}

/// reqwest's message without its URL suffix (the caller names the URL once).
pub(crate) fn without_url(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(url) = e.url() {
        text = text.replace(&format!(" for url ({url})"), "");
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
