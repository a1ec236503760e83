//! What a run talks to: the `Provider` trait, the `Reply` it gives, and the
//! `AttemptSink` it reports attempts to. Below the HTTP provider, the fallback and
//! the stream reader that implement or feed it.

use async_trait::async_trait;

use crate::core::completion::Completion;
use crate::core::error::Result;
use crate::core::event::EventKind;
use crate::core::plan::RunPlan;
use crate::core::turn::Turn;
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

/// One completion, with what it took to get it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The decoded response.
    pub completion: Completion,
    /// First attempt sent to final response received, waits included.
    pub latency_ms: u64,
    /// HTTP attempts made.
    pub attempts: u32,
    /// The vendor that answered (for a `Fallback`, the member).
    pub provider: Vendor,
    /// The model that was asked.
    pub model: String,
    /// The wire that answered (a transcript sends its blocks back to it only).
    pub wire: Wire,
    /// Where the request went: scheme, host and port (never credentials or a
    /// path), recorded with the request so a trace sent later names it.
    pub endpoint: Option<String>,
}

/// A URL's scheme, host and port (`http://127.0.0.1:4242`); `None` when it does
/// not parse. User, password, path and query are left behind.
pub fn origin(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    Some(format!(
        "{}://{}:{}",
        u.scheme(),
        u.host_str()?,
        u.port_or_known_default()?
    ))
}

/// Where a provider reports each attempt and retry.
pub trait AttemptSink: Send + Sync {
    /// One event (`RequestSent`, `Retrying`, and a streamed answer's deltas).
    fn emit(&self, kind: EventKind);
}

/// Discards attempt events.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSink;

impl AttemptSink for NoSink {
    fn emit(&self, _: EventKind) {}
}

/// Something that answers turns. A provider that ignores `turn.web` is honestly
/// non-searching, not broken: it returns no citations and its runs complete.
#[async_trait]
pub trait Provider: Send + Sync {
    /// The vendor recorded with each run (a `Fallback`'s first member's; each
    /// answer records the vendor that gave it).
    fn vendor(&self) -> Vendor;
    /// The wire it speaks (a `Fallback`'s first member's).
    fn wire(&self) -> Wire;
    /// The model asked.
    fn model(&self) -> &str;
    /// The output token cap per request.
    fn max_tokens(&self) -> u32;
    /// What this provider would record as a run's plan (`core::plan`): its
    /// endpoint, model, output cap and limits; `None` where it has no such
    /// thing to say (a provider made in a test).
    fn plan(&self) -> Option<RunPlan> {
        None
    }
    /// Refuse, before any request, a declaration this provider cannot carry.
    fn carries(&self, _web: Option<&WebAccess>) -> Result<()> {
        Ok(())
    }
    /// Answer one turn.
    async fn complete(&self, turn: &Turn, sink: &dyn AttemptSink) -> Result<Reply>;
}
