//! What a stored run's next step starts from: its checkpoint (contract,
//! observations) and, in a transcript, every exchange so far. `preview --resume`
//! builds the next request from it with `Turn::for_step`, as the engine does when
//! the run is resumed, so the operator sees what goes back before it is sent.

use crate::core::contract::TaskContract;
use crate::core::error::{Error, Result};
use crate::core::id::RunId;
use crate::core::outcome::Outcome;
use crate::core::transcript::{Conversation, Exchange};
use crate::store::Store;

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
/// checkpoint, stored steps that do not agree with it (`check_stored`) or a
/// stored transcript that does not parse is an error naming it.
pub fn next_step(store: &Store, run_id: RunId) -> Result<NextStep> {
    if let Some(outcome) = finished(store, run_id)? {
        return Err(Error::refused(format!(
            "run {run_id} already finished ({outcome}); it has no next step to preview"
        )));
    }
    let checkpoint = store
        .load_checkpoint(run_id)?
        .ok_or_else(|| Error::refused(format!("run {run_id} has no checkpoint to resume from")))?;
    let transcript = checkpoint.contract.conversation == Conversation::Transcript;
    check_stored(store, run_id, checkpoint.step, transcript)?;
    let history = if transcript {
        store.exchanges(run_id, checkpoint.step)?
    } else {
        Vec::new()
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
pub(crate) fn finished(store: &Store, run_id: RunId) -> Result<Option<Outcome>> {
    let row = store.run(run_id)?.ok_or_else(|| {
        Error::refused(format!(
            "there is no run {run_id} in this store; `io-harness runs` lists them"
        ))
    })?;
    Ok(row.outcome.filter(|o| *o != Outcome::Interrupted))
}

/// Refuse, before anything is sent, a run whose stored steps do not agree with
/// its checkpoint: the checkpoint says `step` steps were completed, so `steps` (and
/// in a transcript `exchanges`) must hold exactly steps 1 to `step`. A row deleted
/// or a checkpoint edited would otherwise resume silently, sending a transcript
/// with a hole in it or counting steps that never ran. The error names the run
/// and the first missing or unexpected step.
pub(crate) fn check_stored(
    store: &Store,
    run_id: RunId,
    step: u32,
    transcript: bool,
) -> Result<()> {
    let (steps, exchanges) = store.stored_steps(run_id)?;
    let mut trouble = gap(&steps, step, "steps");
    if transcript && trouble.is_none() {
        trouble = gap(&exchanges, step, "transcript");
    }
    match trouble {
        None => Ok(()),
        Some(what) => Err(Error::refused(format!(
            "run {run_id} cannot be resumed: its checkpoint says {step} step{} completed, but {what}; nothing was sent. \
             The store was changed outside io-harness or damaged: start the task again as a new run, or resume from a copy of the store made before the change",
            if step == 1 { " was" } else { "s were" }
        ))),
    }
}

/// How `found` (ascending step numbers) differs from exactly 1..=`step`, naming
/// the first step out of place.
fn gap(found: &[u32], step: u32, table: &str) -> Option<String> {
    // Each table has one row a step (its key is the run and the step).
    for (i, want) in (1..=step).enumerate() {
        match found.get(i) {
            Some(&got) if got == want => {}
            Some(&got) if got < want => {
                return Some(format!("an unexpected step {got} is stored in its {table}"));
            }
            _ => return Some(format!("step {want} is missing from its {table}")),
        }
    }
    found
        .get(step as usize)
        .map(|extra| format!("step {extra}, after the checkpoint's, is stored in its {table}"))
}

#[cfg(test)]
mod tests {
    use super::gap;

    #[test]
    fn the_first_step_out_of_place_is_named() {
        assert_eq!(gap(&[1, 2], 2, "steps"), None);
        assert_eq!(gap(&[], 0, "steps"), None);
        assert_eq!(
            gap(&[2], 2, "transcript").as_deref(),
            Some("step 1 is missing from its transcript")
        );
        assert_eq!(
            gap(&[1, 2], 1000, "steps").as_deref(),
            Some("step 3 is missing from its steps")
        );
        assert_eq!(
            gap(&[0, 1], 2, "steps").as_deref(),
            Some("an unexpected step 0 is stored in its steps")
        );
        assert_eq!(
            gap(&[1, 2, 3], 2, "steps").as_deref(),
            Some("step 3, after the checkpoint's, is stored in its steps")
        );
    }
}
