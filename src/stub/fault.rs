//! The faults a scripted response can carry, as the body stream the stub sends:
//! a body cut short after N bytes (the connection closes with the full
//! `content-length` promised; at 0 bytes that is a reset after the headers), a
//! slow drip of one byte per interval, and padding of N spaces after the body that
//! is generated as it is sent, never held, so a test can send gigabytes cheaply.

use std::time::Duration;

use axum::body::{Body, Bytes};
use futures_util::StreamExt;

use super::script::ScriptedResponse;

const PAD_CHUNK: usize = 64 * 1024;

type Chunk = std::result::Result<Bytes, std::io::Error>;

/// The body to send for `r`, and the `content-length` to promise (`None`: chunked).
pub(crate) fn body(r: &ScriptedResponse) -> (Body, Option<usize>) {
    let pad = r.pad_bytes.unwrap_or(0);
    let total = r.body.len().saturating_add(pad);
    if let Some(n) = r.truncate_after.filter(|n| *n < total) {
        let head = Bytes::copy_from_slice(&r.body[..n.min(r.body.len())]);
        let chunks: Vec<Chunk> = vec![Ok(head), Err(std::io::Error::other("truncated by script"))];
        return (
            Body::from_stream(futures_util::stream::iter(chunks)),
            Some(total),
        );
    }
    if let Some(ms) = r.drip_ms {
        let bytes = r.body.clone();
        let stream = futures_util::stream::iter(bytes).then(move |b| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok::<_, std::io::Error>(Bytes::from(vec![b]))
        });
        return (Body::from_stream(stream), Some(r.body.len()));
    }
    if pad > 0 {
        let head = futures_util::stream::once({
            let b = Bytes::copy_from_slice(&r.body);
            async move { Ok::<_, std::io::Error>(b) }
        });
        let full = pad / PAD_CHUNK;
        let rest = pad % PAD_CHUNK;
        let spaces = Bytes::from(vec![b' '; PAD_CHUNK]);
        let padding = futures_util::stream::iter(
            std::iter::repeat_n(spaces, full)
                .chain((rest > 0).then(|| Bytes::from(vec![b' '; rest])))
                .map(Ok::<_, std::io::Error>),
        );
        return (Body::from_stream(head.chain(padding)), Some(total));
    }
    (Body::from(r.body.clone()), None)
}
