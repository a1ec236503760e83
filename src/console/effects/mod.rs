//! Performs the effects `update` returns, off the UI task: a run or a
//! comparison is a spawned task begun through the launch seam (`Launch::run`,
//! `Launch::run_group`); store reads are `spawn_blocking`; each result comes back
//! to the loop as a `Msg`. `executor` holds what runs need and dispatches each
//! effect; `browser` opens a URL; `compare` starts a comparison; `evals` reads
//! the evals Compare lists and writes one's Markdown; `sources` performs the Sources
//! screen's effects; `reads` are the store reads the screens show. Nothing here
//! decides what to show.

mod browser;
mod compare;
mod evals;
mod executor;
mod reads;
pub mod setup;
mod sources;
pub mod terminal;

pub use executor::Executor;
pub use reads::{next_request, past_run};
