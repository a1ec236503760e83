//! Stdio MCP servers (`[[mcp]]`), through the official Rust SDK (`rmcp`) with the
//! `mcp` feature (`client`; without it, `off` refuses to start any): each is
//! started as a child process, its tools listed and offered to the model as
//! `mcp__<server>__<tool>`, and each call made with a timeout, so a server that
//! exits or answers garbage gives an observation, never a hang. The hosts a server
//! states it may reach (`net`) are recorded with the run as what this process was
//! told — declared here, enforced (if at all) by that server.

#[cfg(feature = "mcp")]
mod client;
mod def;
#[cfg(not(feature = "mcp"))]
mod off;

#[cfg(feature = "mcp")]
pub use client::McpServers;
pub use def::{DEFAULT_TIMEOUT, McpDef};
#[cfg(not(feature = "mcp"))]
pub use off::McpServers;
