//! The run loop and the local tools it executes.

pub mod tools;
pub mod workspace;
