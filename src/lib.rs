//! io-harness: run agent tasks against LLM vendors (Anthropic, OpenAI, OpenRouter)
//! with provider-executed web search and fetch declared once (`WebAccess`), each
//! vendor's exact request shape (or a refusal), and every citation and server-tool
//! call recorded in SQLite.
//!
//! Rings: `core` is pure (declarations, vendor wire, decoding, events); the I/O
//! modules (`provider`, `store`, `config` loading, `run`) do the effects; the binary's
//! console and subcommands wire the two.
//!
//! The seam where they meet is `launch`: the one place a run is assembled (where a
//! request to a vendor goes, and its provider with its key and transport limits),
//! for `run`, `preview` and the console alike. The first request of a contract is
//! `Turn::for_step` (so a previewed body is the sent body), and the offline demo's
//! set-up lives with the stub (`stub::demo`).

#![warn(missing_docs)]

pub mod approve;
#[cfg(feature = "check")]
pub mod check;
pub mod config;
#[cfg(feature = "console")]
pub mod console;
pub mod core;
pub mod error;
pub mod launch;
pub mod mcp;
pub mod provider;
pub mod run;
pub mod store;
#[cfg(feature = "stub")]
pub mod stub;
pub mod telemetry;

pub use crate::approve::{
    Answer, ApprovalRequest, ApproveAll, Approver, ChannelApprover, DenyAll, NobodyToAsk,
};
pub use crate::config::{Config, Loaded, USER_CONFIG_ENV, write_web};
pub use crate::core::completion::{
    Citation, Completion, ServerToolCall, StopReason, ToolCall, Usage,
};
pub use crate::core::contract::{Budget, TaskContract, Verification};
pub use crate::core::event::{BudgetKind, Cost, Event, EventKind, RunId, RunOutcome};
pub use crate::core::policy::{Act, Decision, Effect, Policy, Rule};
pub use crate::core::price;
pub use crate::core::price::{Price, PriceOverride, PriceRow, PriceTable};
pub use crate::core::turn::{HeaderValue, ToolSpec, Turn, WireRequest, WireResponse};
pub use crate::core::web::WebAccess;
pub use crate::core::wire::{Endpoint, Vendor, Wire};
pub use crate::error::{Error, Result, VendorError};
pub use crate::mcp::McpDef;
pub use crate::provider::{
    ApiKey, AttemptSink, Fallback, HttpProvider, NoSink, Provider, Reply, RetryPolicy,
};
pub use crate::run::AgentDef;
pub use crate::run::{RunOptions, RunResult, Session, run_with, run_with_options};
pub use crate::store::Store;
