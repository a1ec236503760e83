//! The store: one SQLite file (WAL, a busy timeout, ordered additive migrations
//! tracked by `PRAGMA user_version`) behind a sync API; callers on async threads
//! wrap calls in `spawn_blocking` or accept a short write. One file a table
//! family, each owning its reads and writes: `runs` (the runs table and
//! sessions), `lease` (which process holds a run), `steps` (steps, checkpoints,
//! transcripts), `calls` (provider and server-tool calls, priced into a run's
//! ledger), `citations`, `verdicts` (check-sources), `claims` (cited spans),
//! `groups`, `evals`, `search` (the full-text index); `figures`, `compare` and
//! `export` read across them; `db` opens and migrates; `words` spells the core
//! vocabulary in columns; `types` holds the rows.
//!
//! Accounting and citation rows are logged and swallowed on failure: failing a run
//! the provider answered because a bookkeeping row could not be written would trade
//! a real answer for an entry. No secret ever reaches this module.

mod calls;
mod citations;
mod claims;
mod compare;
mod copy;
mod db;
mod engine;
mod evals;
pub mod export;
mod figures;
mod groups;
mod held;
mod judgings;
mod lease;
#[cfg(feature = "postgres")]
mod pg;
mod runs;
#[cfg(feature = "postgres")]
mod schema_pg;
pub mod search;
#[cfg(feature = "postgres")]
mod search_pg;
mod steps;
pub mod types;
mod value;
pub mod verdicts;
mod words;

pub use calls::{Ledger, LedgerLine, fees_sum as ledger_fees, sum as ledger_sum};
pub use claims::{ClaimRow, RunClaims};
pub use copy::CopySummary;
pub use db::{SCHEMA_VERSION, Store};
pub(crate) use db::{db_err, now};
pub use evals::{EvalRow, NewEval};
pub use figures::{by, me, wall_ms};
pub use groups::{GroupRow, NewGroup};
pub use lease::{EXPIRY as LEASE_EXPIRY, HEARTBEAT};
pub use steps::StepRecord;
pub use types::*;
