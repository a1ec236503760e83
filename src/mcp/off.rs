//! `McpServers` in a build without the `mcp` feature: none can be started, so
//! io.toml's `[[mcp]]` is refused before a run rather than silently dropped.

use std::time::Duration;

use crate::core::error::{Error, Result};
use crate::core::turn::ToolSpec;
use crate::mcp::def::McpDef;

/// Started MCP servers: in this build there never are any.
#[derive(Debug)]
pub struct McpServers {
    never: std::convert::Infallible,
}

impl McpServers {
    /// Refused: this build has no MCP client.
    pub async fn start(defs: &[McpDef], _timeout: Duration) -> Result<McpServers> {
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        Err(Error::config(format!(
            "io.toml names MCP servers ({}), but this build of io-harness has no MCP support \
             (cargo feature `mcp`); build with it, or remove the [[mcp]] tables. Nothing was sent.",
            names.join(", ")
        )))
    }

    /// The tools, as offered to the model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        match self.never {}
    }

    /// What each server states it may reach.
    pub fn declared_net(&self) -> serde_json::Value {
        match self.never {}
    }

    /// The process id of a server.
    pub fn pid(&self, _server: &str) -> Option<u32> {
        match self.never {}
    }

    /// Whether `name` is one of these tools.
    pub fn offers(&self, _name: &str) -> bool {
        match self.never {}
    }

    /// Call a tool.
    pub async fn call(
        &self,
        _name: &str,
        _arguments: &serde_json::Value,
    ) -> std::result::Result<String, String> {
        match self.never {}
    }

    /// Stop every server.
    pub async fn shutdown(self) {
        match self.never {}
    }
}
