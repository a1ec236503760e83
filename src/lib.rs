//! io-harness: run agent tasks against LLM vendors (Anthropic, OpenAI, OpenRouter)
//! with provider-executed web search and fetch declared once (`WebAccess`), each
//! vendor's exact request shape (or a refusal), and every citation and server-tool
//! call recorded in SQLite.
//!
//! Rings: `core` is pure (declarations, vendor wire, decoding, events); the I/O
//! modules (`provider`, `store`, `config` loading, `run`) do the effects; the binary's
//! console and subcommands wire the two.
//!
//! The seam where they meet is `launch`: io.toml resolved once into a `Plan` (per
//! vendor its endpoint, model, output cap and limits; the task; the offered tools;
//! the policy and prices) and a `Launch` that starts what runs need and begins
//! them (`run`, `run_group`, `replay`). A preview is built by the plan the way the
//! run's step builds a request, so a previewed body is the sent body.
//!
//! ```no_run
//! # async fn demo() -> io_harness::Result<()> {
//! use io_harness::{Config, Launch};
//! let loaded = Config::discover(None)?;
//! let launch = Launch::resolve(&loaded, false);
//! let contract = launch.plan().contract(|c| c.goal = "Which version is current?".into());
//! let preview = launch.preview(&contract, io_harness::Vendor::Anthropic, None);
//! println!("{}", String::from_utf8_lossy(&preview.request?.body));
//! # Ok(())
//! # }
//! ```
//!
//! Cargo features (all on by default; the binary needs every one): `console` (the
//! operator console), `stub` (the loopback stub vendor and the offline demo),
//! `otlp` (OpenTelemetry export), `mcp` (stdio MCP servers as tools), `check`
//! (`check-sources`). Without them the library is core, provider, run, store,
//! config and launch.

#![warn(missing_docs)]

pub mod approve;
#[cfg(feature = "check")]
pub mod check;
pub mod config;
#[cfg(feature = "console")]
pub mod console;
pub mod core;

pub mod launch;
pub mod machine;
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
    Citation, Claim, Completion, ServerToolCall, StopReason, ToolCall, Usage,
};
pub use crate::core::contract::{Budget, TaskContract, Verification};
pub use crate::core::endpoint::Endpoint;
/// The crate's error type (`core::error`), where every module names it.
pub use crate::core::error;
pub use crate::core::error::{Error, Result, VendorError};
pub use crate::core::event::{Cost, Event, EventKind};
pub use crate::core::id::{EvalId, GroupId, RunId, SessionId};
pub use crate::core::outcome::{BudgetKind, Outcome, RunOutcome};
pub use crate::core::policy::{Act, Decision, Effect, Policy, Rule};
pub use crate::core::price;
pub use crate::core::price::{Price, PriceOverride, PriceRow, PriceTable};
pub use crate::core::turn::{HeaderValue, ToolSpec, Turn, WireRequest, WireResponse};
pub use crate::core::vendor::{Vendor, Wire};
pub use crate::core::web::WebAccess;
pub use crate::launch::{Call, Group, Launch, Plan, Preview};
pub use crate::mcp::McpDef;
pub use crate::provider::{
    ApiKey, AttemptSink, Fallback, HttpProvider, NoSink, Provider, Reply, RetryPolicy,
};
pub use crate::run::AgentDef;
pub use crate::run::{RunOptions, RunResult, Session, run_with, run_with_options};
pub use crate::store::Store;
