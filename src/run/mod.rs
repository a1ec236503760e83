//! The run loop and the local tools it executes (loop being written).

pub mod tools;
pub mod workspace;
