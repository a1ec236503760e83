//! How a run ended: `Outcome`, the word `runs.outcome` stores and every view
//! reads (`interrupted` for a run whose process is gone), and `RunOutcome`, the
//! loop's own account of an ending with what it knows (the failed check's
//! reason, the budget, the error). Pure vocabulary.

use serde::{Deserialize, Serialize};

crate::core::word::word! {
    /// The word for how a run ended, as stored, printed and sent as JSON.
    pub enum Outcome ("outcome") {
        /// The verification passed.
        Passed = "passed",
        /// The model finished but the verification did not pass.
        Failed = "failed",
        /// A budget ran out.
        BudgetExhausted = "budget_exhausted",
        /// The operator cancelled it.
        Cancelled = "cancelled",
        /// The model declined the task.
        Refused = "refused",
        /// The answer was cut off at the output token limit.
        Truncated = "truncated",
        /// The provider or the transport failed for good.
        Error = "error",
        /// Its process is gone and it never recorded an ending (killed):
        /// `run --resume` continues it.
        Interrupted = "interrupted",
    }
}

impl Outcome {
    /// An ending that produced an answer worth grading: the model finished
    /// (passed or not). Every other ending gave no final answer — an error, a
    /// refusal, a cut-off, a budget, a cancel or a kill — and is not graded.
    pub fn answered(self) -> bool {
        matches!(self, Outcome::Passed | Outcome::Failed)
    }
}

/// Which budget ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetKind {
    /// The step limit.
    Steps,
    /// The wall-clock limit.
    Time,
    /// The token limit.
    Tokens,
    /// Too many consecutive `pause_turn` continuations.
    Continuations,
    /// The dollar limit (`[budget] usd`, `--max-usd`).
    Usd,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RunOutcome {
    /// The verification passed.
    Passed,
    /// The model finished but the verification did not pass.
    Failed {
        /// Why the verification failed.
        reason: String,
    },
    /// A budget ran out.
    BudgetExhausted {
        /// Which one.
        budget: BudgetKind,
    },
    /// The operator cancelled it.
    Cancelled,
    /// The model declined the task (`stop_reason: "refusal"`); not verified.
    Refused {
        /// What the model said, possibly empty.
        text: String,
    },
    /// The answer was cut off at the output token limit (`max_tokens`); not verified.
    Truncated {
        /// The limit the request carried.
        max_tokens: u32,
    },
    /// The provider or the transport failed for good.
    Error {
        /// What happened.
        message: String,
    },
}

impl RunOutcome {
    /// Its word, as `runs.outcome` stores it.
    pub fn word(&self) -> Outcome {
        match self {
            RunOutcome::Passed => Outcome::Passed,
            RunOutcome::Failed { .. } => Outcome::Failed,
            RunOutcome::BudgetExhausted { .. } => Outcome::BudgetExhausted,
            RunOutcome::Cancelled => Outcome::Cancelled,
            RunOutcome::Refused { .. } => Outcome::Refused,
            RunOutcome::Truncated { .. } => Outcome::Truncated,
            RunOutcome::Error { .. } => Outcome::Error,
        }
    }

    /// The word stored in `runs.outcome`.
    pub fn label(&self) -> &'static str {
        self.word().as_str()
    }

    /// True only for `Passed`.
    pub fn passed(&self) -> bool {
        matches!(self, RunOutcome::Passed)
    }
}

/// An outcome that may not be there yet, as JSON: its word, or `running` while
/// the run has none (`#[serde(with = "crate::core::outcome::or_running")]`).
pub mod or_running {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Outcome;

    /// The word a run without an outcome is shown as.
    pub const RUNNING: &str = "running";

    /// Serialise: the outcome's word, else `running`.
    pub fn serialize<S: Serializer>(o: &Option<Outcome>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(o.map_or(RUNNING, Outcome::as_str))
    }

    /// Deserialise: `running` is none.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Outcome>, D::Error> {
        let word = String::deserialize(d)?;
        if word == RUNNING {
            return Ok(None);
        }
        word.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

/// An outcome that may be missing because nothing ran, as JSON and in tables:
/// its word, or `not run` (`#[serde(with = "crate::core::outcome::or_not_run")]`).
pub mod or_not_run {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Outcome;

    /// The word a cell without a run's outcome is shown as.
    pub const NOT_RUN: &str = "not run";

    /// The outcome's word, else `not run`.
    pub fn word(o: Option<Outcome>) -> &'static str {
        o.map_or(NOT_RUN, Outcome::as_str)
    }

    /// Serialise: the outcome's word, else `not run`.
    pub fn serialize<S: Serializer>(o: &Option<Outcome>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(word(*o))
    }

    /// Deserialise: `not run` is none.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Outcome>, D::Error> {
        let w = String::deserialize(d)?;
        if w == NOT_RUN {
            return Ok(None);
        }
        w.parse().map(Some).map_err(serde::de::Error::custom)
    }
}
