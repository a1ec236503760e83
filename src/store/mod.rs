//! The SQLite store: one file, WAL, a busy timeout, ordered additive migrations
//! tracked by `PRAGMA user_version`. Sync API; callers on async threads wrap calls
//! in `spawn_blocking` or accept a short write.
//!
//! Accounting and citation rows are logged and swallowed on failure: failing a run
//! the provider answered because a bookkeeping row could not be written would trade
//! a real answer for an entry. No secret ever reaches this module.

pub mod checks;
mod claim;
mod claims;
mod compare;
mod db;
mod eval;
pub mod export;
mod figures;
pub mod file;
mod group;
mod ledger;
mod read;
mod runner;
pub mod search;
mod step;
mod trace;
pub mod types;
mod words;
mod write;

pub use claims::{ClaimRow, RunClaims};
pub use db::{SCHEMA_VERSION, Store};
pub(crate) use db::{db_err, now};
pub use eval::{EvalRow, NewEval};
pub use figures::wall_ms;
pub use group::{GroupRow, NewGroup};
pub use ledger::{Ledger, LedgerLine, fees_sum as ledger_fees, sum as ledger_sum};
pub use step::StepRecord;
pub use types::*;
