//! The run loop and the local tools it executes.

pub mod engine;
pub mod net;
pub mod observe;
mod resume;
pub mod session;
mod spawn;
pub mod tools;
pub mod workspace;

pub use engine::{
    DEFAULT_MAX_CONTINUATIONS, DEFAULT_MAX_DEPTH, RunOptions, RunResult, run_with, run_with_options,
};
pub use observe::{Emitter, NoObserver, Observer};
pub use resume::{NextStep, next_step};
pub use session::Session;
