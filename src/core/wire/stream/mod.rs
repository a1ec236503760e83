//! Streamed answers: server-sent events assembled, as their bytes arrive, into
//! the same `Completion` the non-streamed decoder yields for the equivalent body.
//!
//! Two layers. `Assembler` owns the SSE framing (the `sse-stream` crate's parser,
//! fed byte chunks cut anywhere — inside an event, inside a UTF-8 character) and
//! hands each whole event to one `WireAssembler`, the per-wire part: it keeps what
//! the events say, reports `Delta`s as they become known, and at the end rebuilds
//! the non-streamed body and runs that wire's own decoder over it, so the two
//! paths cannot drift apart. A new wire adds one `WireAssembler` and one arm in
//! `assembler_for`, and says `streams: true` in its capability row (a test
//! holds the two together); until then its endpoint asks for no stream.
//!
//! A stream is complete only on its wire's final event (`message_stop`; a
//! `finish_reason` and then `[DONE]`); `finish` on anything less is a retryable
//! transport error, never a completion. Pure: no I/O, no clock.

mod anthropic;
mod chat;
mod delta;
mod frame;
mod gemini;
mod openai_responses;
mod perplexity_agent;
mod perplexity_sonar;
pub mod render;
mod xai;

use std::io::Cursor;
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll, Waker};

use futures_util::Stream;
use sse_stream::{Sse, SseByteStream};

use crate::core::completion::Completion;
use crate::core::error::{Error, Result};
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::vendor::Wire;
pub use delta::{Delta, WireAssembler};
pub(crate) use delta::{bad_event, incomplete};

/// The assembler for a streamed answer on `wire`, or `None` for a wire this
/// crate does not stream (its encoder then never asks for a stream). `head` is
/// the response's status and headers (the request id comes from them).
pub fn assembler_for(wire: Wire, head: WireResponse) -> Option<Assembler> {
    let vendor = wire.vendor();
    let part: Box<dyn WireAssembler> = match wire {
        Wire::Anthropic2025 | Wire::Anthropic2026 => Box::new(anthropic::Messages::new(head)),
        Wire::OpenAiChat | Wire::OpenRouterPlugin | Wire::OpenRouterServerTools => {
            Box::new(chat::Chat::new(vendor, head))
        }
        Wire::OpenAiResponses => Box::new(openai_responses::Responses::new(head)),
        Wire::Gemini => Box::new(gemini::Gemini::new(head)),
        Wire::Xai => Box::new(xai::Xai::new(head)),
        Wire::PerplexityAgent => Box::new(perplexity_agent::Agent::new(head)),
        Wire::PerplexitySonar => Box::new(perplexity_sonar::Sonar::new(head)),
    };
    Some(Assembler::new(vendor, part))
}

/// Whether answers on `wire` can be streamed (its encoder adds `"stream": true`).
/// Every wire this crate speaks does today; a new wire starts at `false` until it
/// has its `WireAssembler`.
pub fn streams(wire: Wire) -> bool {
    wire.capabilities().streams
}

/// The byte chunks handed to the SSE parser: the sender is the assembler's, the
/// receiving end is polled only from `feed`, so "nothing queued" is `Pending` and
/// a dropped sender is the end of the body.
struct Feed(mpsc::Receiver<Cursor<Vec<u8>>>);

impl Stream for Feed {
    type Item = std::result::Result<Cursor<Vec<u8>>, std::convert::Infallible>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.0.try_recv() {
            Ok(chunk) => Poll::Ready(Some(Ok(chunk))),
            Err(mpsc::TryRecvError::Empty) => Poll::Pending,
            Err(mpsc::TryRecvError::Disconnected) => Poll::Ready(None),
        }
    }
}

/// SSE framing plus one wire: `feed` byte chunks as they arrive, then `finish`.
pub struct Assembler {
    /// The vendor's name, for the errors of a malformed stream.
    provider: Vendor,
    sse: SseByteStream<Feed>,
    tx: Option<mpsc::Sender<Cursor<Vec<u8>>>>,
    wire: Box<dyn WireAssembler>,
    /// What has been reported, against the per-step caps.
    live: crate::core::wire::cap::Live,
    events: u64,
    bytes: u64,
}

impl std::fmt::Debug for Assembler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Assembler")
            .field("provider", &self.provider)
            .field("events", &self.events)
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl Assembler {
    /// An assembler over any wire.
    pub fn new(vendor: Vendor, wire: Box<dyn WireAssembler>) -> Self {
        let (tx, rx) = mpsc::channel();
        Assembler {
            provider: vendor,
            sse: SseByteStream::new(Feed(rx)),
            tx: Some(tx),
            wire,
            live: crate::core::wire::cap::Live::default(),
            events: 0,
            bytes: 0,
        }
    }

    /// Whole events received so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Bytes fed so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Feed the next chunk of the body; the deltas it completed are appended to
    /// `out` in order, those before an error included.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Delta>) -> Result<()> {
        self.bytes += chunk.len() as u64;
        if let Some(tx) = &self.tx {
            // The receiver lives in `self.sse`, so this send cannot fail.
            let _ = tx.send(Cursor::new(chunk.to_vec()));
        }
        self.drain(out)
    }

    /// The body ended: the completion (held to the per-step caps, as a whole
    /// body's is), or why what arrived is not one. An event cut off by the end
    /// is discarded, as the SSE standard says.
    pub fn finish(mut self) -> Result<Completion> {
        self.tx = None;
        let mut out = Vec::new();
        self.drain(&mut out)?;
        self.wire.finish().map(crate::core::wire::cap::bound)
    }

    /// Keep the deltas of one event that are within the per-step caps.
    fn report(&mut self, deltas: Vec<Delta>, out: &mut Vec<Delta>) {
        let live = &mut self.live;
        out.extend(deltas.into_iter().filter(|d| match d {
            Delta::ServerToolStarted { .. } => live.started(),
            Delta::ServerToolReturned { .. } => live.returned(),
            Delta::Citation(c) => live.citation(c),
            _ => true,
        }));
    }

    fn drain(&mut self, out: &mut Vec<Delta>) -> Result<()> {
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            match Pin::new(&mut self.sse).poll_next(&mut cx) {
                Poll::Pending | Poll::Ready(None) => return Ok(()),
                Poll::Ready(Some(Err(e))) => {
                    return Err(Error::Decode {
                        provider: self.provider,
                        message: format!("the event stream is malformed: {e}"),
                        snippet: format!("after {} events", self.events),
                    });
                }
                Poll::Ready(Some(Ok(Sse { event, data, .. }))) => {
                    // A block with no data (a bare `event:`, an `id:`) carries nothing.
                    let Some(data) = data else { continue };
                    self.events += 1;
                    let mut deltas = Vec::new();
                    let said = self.wire.event(event.as_deref(), &data, &mut deltas);
                    self.report(deltas, out);
                    said?;
                }
            }
        }
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    /// The capability table says which wires stream; an assembler says which
    /// can. They agree, row by row.
    #[test]
    fn the_table_streams_exactly_the_wires_with_an_assembler() {
        for wire in Wire::ALL {
            assert_eq!(
                wire.capabilities().streams,
                assembler_for(wire, WireResponse::default()).is_some(),
                "{wire}"
            );
        }
    }
}
