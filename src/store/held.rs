//! The runs and evals this process holds (started or claimed, not yet ended),
//! whose heartbeat `lease` keeps while the store is open.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use crate::core::id::{EvalId, RunId};

/// The held runs and evals, and whether the heartbeat thread has started.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// The runs, by id.
    pub runs: Mutex<BTreeSet<RunId>>,
    /// The evals, by id.
    pub evals: Mutex<BTreeSet<EvalId>>,
    /// The heartbeat thread is running.
    pub beating: AtomicBool,
}
