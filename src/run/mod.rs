//! The run loop and the local tools it executes.

mod absorb;
mod act;
pub mod copy;
pub mod engine;
pub mod group;
pub mod net;
pub mod observe;
mod options;
mod resume;
pub mod session;
pub(crate) mod spawn;
mod step;
pub mod tools;
pub mod workspace;

pub use engine::{run_with, run_with_options};
pub use observe::{Emitter, NoObserver, Observer};
pub use options::{
    AgentDef, DEFAULT_MAX_CONTINUATIONS, DEFAULT_MAX_DEPTH, GroupBudget, RunOptions, RunResult,
};
pub use resume::{NextStep, next_step};
pub use session::Session;
