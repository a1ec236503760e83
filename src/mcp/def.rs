//! What io.toml's `[[mcp]]` resolves to — a server to start and the hosts it
//! states it may reach — and how long a start or a call may take. Built in
//! every build; below the client and its stand-in.

use std::time::Duration;

/// A stdio MCP server to start, as io.toml's `[[mcp]]` resolves to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpDef {
    /// Its name (tools appear as `mcp__<name>__<tool>`).
    pub name: String,
    /// The program to start.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment.
    pub env: std::collections::BTreeMap<String, String>,
    /// Hosts it states it may reach: recorded, not enforced here.
    pub net: Vec<String>,
}

/// How long a start or a call may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
