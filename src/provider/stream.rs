//! Reading a streamed answer: the body's chunks go, as they arrive, into the
//! pure assembler (`core::wire::stream`); every delta it reports becomes a run
//! event at once; the attempt ends with the assembled completion or an error
//! the retry policy judges like any other (a cut stream, an early end, an
//! `error` event, a silence longer than the idle timeout).

use std::time::Duration;

use super::AttemptSink;
use crate::core::completion::Completion;
use crate::core::error::{Error, Result};
use crate::core::event::EventKind;
use crate::core::turn::WireResponse;
use crate::core::vendor::Vendor;
use crate::core::wire::stream::{Assembler, Delta};

/// How long a stream may stay silent before the attempt is a timeout.
///
/// Two minutes: the longest silences a healthy stream has are a server-side
/// search or fetch running (Anthropic sends `ping`s meanwhile, OpenRouter
/// `: OPENROUTER PROCESSING` comments, and both count as traffic) and a search
/// model's time to its first token on Chat Completions, which sends nothing at
/// all until then and takes tens of seconds on a long search. Twice the longest
/// of those is still far shorter than the ten-minute request deadline a hung
/// connection would otherwise wait for. `[providers.NAME] idle_timeout_secs`
/// changes it.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// A stream that sends more than this is refused rather than held in memory.
pub const MAX_STREAM_BYTES: u64 = 64 * 1024 * 1024;

/// Whether a response is an event stream (rather than, say, a JSON error).
pub(super) fn is_event_stream(head: &WireResponse) -> bool {
    (200..300).contains(&head.status)
        && head
            .header("content-type")
            .is_some_and(|t| t.trim_start().starts_with("text/event-stream"))
}

/// Read one streamed answer to its end.
pub(super) async fn read(
    mut assembler: Assembler,
    vendor: Vendor,
    url: &str,
    mut response: reqwest::Response,
    idle: Duration,
    sink: &dyn AttemptSink,
) -> Result<Completion> {
    let provider = vendor;
    loop {
        let chunk = match tokio::time::timeout(idle, response.chunk()).await {
            Err(_) => {
                return Err(Error::Transport {
                    provider,
                    message: format!(
                        "the stream from {url} was silent for {} s after {} events (idle_timeout_secs under [providers.{provider}] sets the limit)",
                        idle.as_secs_f64(),
                        assembler.events()
                    ),
                    retryable: true,
                });
            }
            Ok(Err(e)) => {
                return Err(Error::Transport {
                    provider,
                    message: format!(
                        "the stream from {url} was cut after {} bytes and {} events: {}",
                        assembler.bytes(),
                        assembler.events(),
                        super::body::without_url(&e)
                    ),
                    retryable: true,
                });
            }
            Ok(Ok(None)) => break,
            Ok(Ok(Some(chunk))) => chunk,
        };
        if assembler.bytes() + chunk.len() as u64 > MAX_STREAM_BYTES {
            return Err(Error::Transport {
                provider,
                message: format!(
                    "the stream from {url} passed {} MiB; it was dropped rather than held in memory",
                    MAX_STREAM_BYTES >> 20
                ),
                retryable: false,
            });
        }
        let mut deltas = Vec::new();
        let fed = assembler.feed(&chunk, &mut deltas);
        for delta in deltas {
            sink.emit(event_of(provider, delta));
        }
        fed?;
    }
    assembler.finish()
}

/// The run event a delta is reported as.
pub fn event_of(provider: Vendor, delta: Delta) -> EventKind {
    match delta {
        Delta::Text(text) => EventKind::TextDelta { text },
        Delta::ServerToolStarted { id, tool, input } => EventKind::ServerToolStarted {
            provider,
            tool,
            id,
            input,
        },
        Delta::ServerToolReturned { id, call } => EventKind::ServerToolReturned {
            provider,
            ok: call.succeeded(),
            tool: call.tool,
            id,
            error: call.error,
            input: call.input,
        },
        Delta::Citation(citation) => EventKind::CitationReceived { citation },
        Delta::ToolCallRequested(call) => EventKind::ToolCallRequested {
            id: call.id,
            name: call.name,
            input: crate::core::text::shorten(call.input.to_string(), 200),
        },
        Delta::OutputTokens(output_tokens) => EventKind::OutputTokens { output_tokens },
    }
}
