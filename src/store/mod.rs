//! The SQLite store (being written): runs, steps, provider calls, citations,
//! server-tool calls and checkpoints in one file.

pub mod types;
pub use types::*;
