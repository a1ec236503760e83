//! `TaskContract`: what a run is asked to do, where, how success is judged, what it
//! may spend, and (optionally) what the provider may do on the web.
//!
//! `web` is `None` unless set: a contract that never mentions web access sends the
//! body it always sent.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::core::transcript::{CacheTtl, Conversation};
use crate::core::vendor::Wire;
use crate::core::web::WebAccess;

/// How the run's success is decided once the model stops.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verification {
    /// Success is the model finishing its answer.
    None,
    /// Success is a file in the workspace containing a string.
    WorkspaceFileContains {
        /// Path relative to the workspace.
        file: PathBuf,
        /// The text it must contain.
        needle: String,
    },
}

/// The default token budget. A web search step carries its results as input: a
/// recorded paused Anthropic search turn and its continuation reported 401,468 and
/// 494,549 input tokens, so 2,000,000 lets such a run take about four of them.
pub const DEFAULT_TOKEN_BUDGET: u64 = 2_000_000;

/// What a run may spend before it is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Requests to the provider (a paused turn's continuation counts).
    pub steps: u32,
    /// Wall-clock seconds.
    pub seconds: u64,
    /// Input (cached or not) plus output tokens, summed over every completion.
    pub tokens: u64,
    /// US dollars, in millionths, over every request (children included); `None`:
    /// no dollar limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_micro: Option<u64>,
}

impl Budget {
    /// What an operator should know about a dollar budget on `wire`: where the
    /// vendor reports its own cost (the capability table's `own_cost`), the
    /// budget runs on that figure, known only once each request is answered.
    pub fn note_for(&self, wire: Wire) -> Option<String> {
        let field = wire.capabilities().own_cost?;
        self.usd_micro.is_some().then(|| {
            format!(
                "note: [budget] usd runs on {}'s own {field}, known only after each request; \
                 the run stops after the request that crosses it",
                wire.vendor().display_name()
            )
        })
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 20,
            seconds: 600,
            tokens: DEFAULT_TOKEN_BUDGET,
            usd_micro: None,
        }
    }
}

/// One task for one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskContract {
    /// What the model is asked to achieve.
    pub goal: String,
    /// The directory local tools are confined to.
    pub workspace: PathBuf,
    /// How success is decided.
    pub verification: Verification,
    /// Provider-executed web access; `None` unless set.
    pub web: Option<WebAccess>,
    /// Step, time and token limits.
    pub budget: Budget,
    /// Flattened (the spec's) or transcript (`[run] conversation`).
    #[serde(default, skip_serializing_if = "is_flattened")]
    pub conversation: Conversation,
    /// Prompt caching and its lifetime (`[run] cache`, `cache_ttl`); `None`: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheTtl>,
}

fn is_flattened(c: &Conversation) -> bool {
    *c == Conversation::Flattened
}

impl TaskContract {
    /// A task confined to a workspace directory.
    pub fn workspace(
        goal: impl Into<String>,
        path: impl Into<PathBuf>,
        verification: Verification,
    ) -> Self {
        TaskContract {
            goal: goal.into(),
            workspace: path.into(),
            verification,
            web: None,
            budget: Budget::default(),
            conversation: Conversation::Flattened,
            cache: None,
        }
    }

    /// Declare provider-executed web access for this task.
    pub fn with_web(mut self, web: WebAccess) -> Self {
        self.web = Some(web);
        self
    }

    /// Replace the whole budget.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Limit the number of provider requests.
    pub fn max_steps(mut self, steps: u32) -> Self {
        self.budget.steps = steps;
        self
    }

    /// Limit the wall-clock time.
    pub fn max_seconds(mut self, seconds: u64) -> Self {
        self.budget.seconds = seconds;
        self
    }

    /// Limit the total tokens.
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.budget.tokens = tokens;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_is_none_unless_set() {
        let c = TaskContract::workspace("g", ".", Verification::None);
        assert_eq!(c.web, None);
        let c = c.with_web(WebAccess::search());
        assert_eq!(c.web, Some(WebAccess::search()));
    }
}
