//! Where a run is assembled — the one seam every run, preview and comparison
//! goes through. io.toml is resolved once into a `Plan` (per vendor its
//! endpoint, model, output cap and limits; the task; the tools a run offers;
//! the policy and prices) and a `Launch` adds what runs need started (the demo's
//! stub, the MCP servers, the OTLP exporter) and begins them: `run`,
//! `run_group`, `replay`. A preview is built by the plan the way the run's step
//! builds a request, so the previewed bytes are the sent bytes.
//!
//! `vendor` resolves one vendor (`VendorSetup`, `Limits`, `Key`); `plan` is
//! pure; `ready` refuses a workspace that is not there; `start` does the starting; `eval` runs
//! a stored eval's questions as groups; `question_file` reads a question set
//! within its limits. Below the console and the command line,
//! above `config`, `run`, `mcp`, `telemetry` and `stub`.

mod agent;
mod eval;
mod judge;
mod plan;
mod question_file;
mod ready;
mod resumed;
mod start;
mod vendor;

pub use eval::{EvalCall, EvalEnd, EvalProgress, JOBS_BOUND, MAX_JOBS, Quiet};
pub use plan::{Plan, Preview, STUB_PLACEHOLDER};
pub use question_file::{PARQUET_TO_JSONL, SetFile, read_questions, read_set, read_set_bytes};
pub use ready::workspace_ready;
pub use resumed::started_with;
pub use start::{Call, Group, Launch};
pub use vendor::{Key, Limits, VendorSetup};
