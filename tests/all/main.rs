//! The integration tests, as one binary: each file beside this one is a module of it
//! (linking the crate once, not once a file). A module that needs features says so
//! in its own `#![cfg(...)]`; `common` and `gemini_support` are the shared harness.

#![allow(clippy::unwrap_used)]

#[cfg(feature = "stub")]
mod common;
mod gemini_support;

mod agents;
mod claims;
mod claims_cli;
mod cli;
mod cli_first_use;
mod cli_surprises;
mod compare;
mod compare_cli;
mod config;
mod config_corpus;
mod console;
mod console_claims;
mod console_compare;
mod console_eval;
mod console_feedback;
mod console_open;
mod console_policy;
mod console_preview;
mod console_pty;
mod console_stream;
mod console_surprises;
mod conversation;
mod conversation_cost;
mod conversation_recorded;
mod core_purity;
mod crash_safety;
mod decode_props;
mod eval_cli;
mod exit_codes;
mod fault_matrix;
mod figures;
mod figures_trace;
mod gemini_run;
mod gemini_stream;
mod gemini_wire;
mod launch;
mod layering;
mod mcp;
mod narrowing;
mod perplexity_wire;
mod policy;
mod prices;
mod readme;
mod record_views;
mod reliability_cli;
mod reliability_store;
mod resume_integrity;
mod resume_plan;
mod run_loop;
mod sizes;
mod small_boundaries;
mod sources_check;
mod sources_check_boundary;
mod sources_export;
mod sources_search;
mod store;
mod stream_assemble;
mod stream_encode;
mod stream_responses;
mod stream_run;
mod telemetry;
mod terminal_text;
mod tools;
mod untrusted_input;
mod vendors_run;
mod vocabulary;
mod wire_decode;
mod wire_decode_wires;
mod wire_encode;
mod wire_matrix;
mod wire_runs;
mod wire_schema;
mod xai_wire;
