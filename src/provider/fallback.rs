//! `Fallback`: providers tried in order. Every member is checked against the
//! declaration before the first request, so a chain containing a provider that
//! would refuse refuses as a whole and sends nothing. A member that fails after its
//! own retries (transport error, 5xx, 529) hands over to the next; a 4xx that the
//! next would also get does not.

use async_trait::async_trait;

use super::{AttemptSink, Provider, Reply};
use crate::core::error::{Error, Result};
use crate::core::turn::Turn;
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;

/// Providers in order of preference.
pub struct Fallback {
    members: Vec<Box<dyn Provider>>,
}

impl Fallback {
    /// A chain of at least one provider.
    pub fn new(members: Vec<Box<dyn Provider>>) -> Result<Self> {
        if members.is_empty() {
            return Err(Error::config(
                "a fallback chain needs at least one provider",
            ));
        }
        Ok(Fallback { members })
    }
}

#[async_trait]
impl Provider for Fallback {
    fn vendor(&self) -> Vendor {
        self.members
            .first()
            .map_or(Vendor::default(), |m| m.vendor())
    }

    fn wire(&self) -> Wire {
        self.members.first().map_or(Wire::default(), |m| m.wire())
    }

    fn model(&self) -> &str {
        self.members.first().map_or("", |m| m.model())
    }

    fn max_tokens(&self) -> u32 {
        self.members.first().map_or(0, |m| m.max_tokens())
    }

    fn carries(&self, web: Option<&WebAccess>) -> Result<()> {
        self.members.iter().try_for_each(|m| m.carries(web))
    }

    async fn complete(&self, turn: &Turn, sink: &dyn AttemptSink) -> Result<Reply> {
        self.carries(turn.web.as_ref())?;
        let mut last = None;
        for member in &self.members {
            let mut own = turn.clone();
            own.model = member.model().to_string();
            own.max_tokens = member.max_tokens();
            match member.complete(&own, sink).await {
                Ok(reply) => return Ok(reply),
                Err(e) if e.is_retryable() => {
                    tracing::warn!("{} failed, trying the next provider: {e}", member.vendor());
                    last = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::config("the fallback chain is empty")))
    }
}
