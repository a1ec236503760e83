//! What a stored run's next step starts from: its checkpoint (contract,
//! observations) and, in a transcript, every exchange so far. `preview --resume`
//! builds the next request from it with `Turn::for_step`, as the engine does when
//! the run is resumed, so the operator sees what goes back before it is sent.

use crate::core::contract::TaskContract;
use crate::core::event::RunId;
use crate::core::wire::transcript::{Conversation, Exchange};
use crate::error::{Error, Result};
use crate::store::{INTERRUPTED, Store};

/// A stored run's state before its next step.
#[derive(Debug, Clone)]
pub struct NextStep {
    /// The last completed step (the next is `step + 1`).
    pub step: u32,
    /// The run's contract, as checkpointed.
    pub contract: TaskContract,
    /// Every observation so far.
    pub observations: Vec<String>,
    /// In a transcript, every exchange so far (empty when flattened).
    pub history: Vec<Exchange>,
}

/// Read a run's next step from the store; an unknown or finished run, a missing
/// checkpoint or a stored transcript that does not parse is an error naming it.
pub fn next_step(store: &Store, run_id: RunId) -> Result<NextStep> {
    if let Some(outcome) = finished(store, run_id)? {
        return Err(Error::refused(format!(
            "run {run_id} already finished ({outcome}); it has no next step to preview"
        )));
    }
    let checkpoint = store
        .load_checkpoint(run_id)?
        .ok_or_else(|| Error::refused(format!("run {run_id} has no checkpoint to resume from")))?;
    let history = match checkpoint.contract.conversation {
        Conversation::Transcript => store.exchanges(run_id, checkpoint.step)?,
        Conversation::Flattened => Vec::new(),
    };
    Ok(NextStep {
        step: checkpoint.step,
        contract: checkpoint.contract,
        observations: checkpoint.observations,
        history,
    })
}

/// How a stored run ended, `None` while it has not (an interrupted run has not);
/// an unknown run is an error naming it.
pub(crate) fn finished(store: &Store, run_id: RunId) -> Result<Option<String>> {
    let row = store.run(run_id)?.ok_or_else(|| {
        Error::refused(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        ))
    })?;
    Ok(row.outcome.filter(|o| o != INTERRUPTED))
}
