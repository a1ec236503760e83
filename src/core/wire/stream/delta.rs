//! What a wire's stream assembler reports as events arrive (`Delta`), the trait
//! each wire's assembler implements (`WireAssembler`), and the two errors they
//! share. Below every per-wire assembler and the framing in `mod.rs`.

use crate::core::completion::{Citation, Completion, ServerToolCall, ToolCall};
use crate::core::error::{Error, Result};
use crate::core::vendor::Vendor;

/// Something a stream made known before it ended, in the order it arrived.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    /// More answer text.
    Text(String),
    /// A provider-executed tool started; its input (the query, the URL) is complete
    /// where the wire says it this early (OpenAI Responses names it only with the
    /// result, so there it comes with `ServerToolReturned`).
    ServerToolStarted {
        /// The vendor's id for the call (empty where the wire has none).
        id: String,
        /// `web_search`, `web_fetch`.
        tool: String,
        /// The query or URL, where the vendor said.
        input: Option<String>,
    },
    /// A provider-executed tool's result arrived: ok, or failed with the vendor's code.
    ServerToolReturned {
        /// The id of the call it answers.
        id: String,
        /// The call, paired with what it was asked.
        call: ServerToolCall,
    },
    /// A source the answer cites.
    Citation(Citation),
    /// The model asked for a local tool, its arguments complete.
    ToolCallRequested(ToolCall),
    /// The vendor's count of output tokens so far.
    OutputTokens(u64),
}

/// The per-wire half of an assembler: fed whole SSE events, in order.
pub trait WireAssembler: Send {
    /// One event: its `event:` name, where it had one, and its `data:` text.
    /// `Err` ends the attempt (an `error` event, an error chunk, a malformed event).
    fn event(&mut self, name: Option<&str>, data: &str, out: &mut Vec<Delta>) -> Result<()>;
    /// The body ended: the completion, or why what arrived is not one.
    fn finish(self: Box<Self>) -> Result<Completion>;
}

/// The error for a body that ended before its wire's final event.
pub(crate) fn incomplete(provider: Vendor, what: &str, events: u64) -> Error {
    Error::Transport {
        provider,
        message: format!(
            "the stream ended before {what} ({events} events received); nothing of it was recorded"
        ),
        retryable: true,
    }
}

/// The error for an event whose data is not the JSON its wire sends.
pub(crate) fn bad_event(provider: Vendor, data: &str, e: &serde_json::Error) -> Error {
    Error::Decode {
        provider,
        message: format!("a stream event is not JSON: {e}"),
        snippet: crate::core::wire::json::snippet(data.as_bytes()),
    }
}
