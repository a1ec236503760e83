//! The MCP client (the `mcp` feature): each `[[mcp]]` server started as a child
//! process through the official Rust SDK (`rmcp`), its tools listed and offered
//! as `mcp__<server>__<tool>`, and each call made with a timeout, so a server that
//! exits or answers garbage gives an observation, never a hang.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};

use crate::core::error::{Error, Result};
use crate::core::turn::ToolSpec;
use crate::mcp::def::McpDef;

struct Server {
    def: McpDef,
    service: RunningService<RoleClient, ()>,
    tools: Vec<Tool>,
    pid: Option<u32>,
}

/// The started servers of one run (or console session).
pub struct McpServers {
    servers: Vec<Server>,
    timeout: Duration,
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.servers.iter().map(|s| s.def.name.as_str()).collect();
        f.debug_struct("McpServers")
            .field("servers", &names)
            .finish()
    }
}

impl McpServers {
    /// Start every server and list its tools; a server that cannot start, or
    /// does not answer within `timeout`, is an error naming it.
    pub async fn start(defs: &[McpDef], timeout: Duration) -> Result<McpServers> {
        let mut servers = Vec::new();
        for def in defs {
            servers.push(start_one(def, timeout).await?);
        }
        Ok(McpServers { servers, timeout })
    }

    /// The tools, as offered to the model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.servers
            .iter()
            .flat_map(|s| {
                s.tools.iter().map(move |t| ToolSpec {
                    name: format!("mcp__{}__{}", s.def.name, t.name),
                    description: t.description.as_deref().unwrap_or("").to_string(),
                    input_schema: serde_json::Value::Object((*t.input_schema).clone()),
                })
            })
            .collect()
    }

    /// What each server states it may reach, for the run's record.
    pub fn declared_net(&self) -> serde_json::Value {
        serde_json::Value::Object(
            self.servers
                .iter()
                .map(|s| (s.def.name.clone(), serde_json::json!(s.def.net)))
                .collect(),
        )
    }

    /// The process id of a server, for operators (and tests) who must stop one.
    pub fn pid(&self, server: &str) -> Option<u32> {
        self.servers
            .iter()
            .find(|s| s.def.name == server)
            .and_then(|s| s.pid)
    }

    /// Whether `name` is one of these tools.
    pub fn offers(&self, name: &str) -> bool {
        self.split(name).is_some()
    }

    fn split<'a>(&'a self, name: &'a str) -> Option<(&'a Server, &'a str)> {
        let rest = name.strip_prefix("mcp__")?;
        self.servers.iter().find_map(|s| {
            let tool = rest.strip_prefix(&s.def.name)?.strip_prefix("__")?;
            s.tools.iter().any(|t| t.name == tool).then_some((s, tool))
        })
    }

    /// Call a tool; `Err` is the observation the model reads.
    pub async fn call(
        &self,
        name: &str,
        arguments: &serde_json::Value,
    ) -> std::result::Result<String, String> {
        let (server, tool) = self
            .split(name)
            .ok_or_else(|| format!("there is no MCP tool named \"{name}\""))?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Some(args) = arguments.as_object() {
            params = params.with_arguments(args.clone());
        }
        let call = server.service.call_tool(params);
        let result = tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_| {
                format!(
                    "MCP server \"{}\" did not answer {tool} within {:?}",
                    server.def.name, self.timeout
                )
            })?
            .map_err(|e| format!("MCP server \"{}\" failed on {tool}: {e}", server.def.name))?;
        let text: Vec<String> = result
            .content
            .iter()
            .map(|c| match c.as_text() {
                Some(t) => t.text.clone(),
                None => serde_json::to_string(c).unwrap_or_default(),
            })
            .collect();
        let text = text.join("\n");
        if result.is_error == Some(true) {
            Err(format!("{tool} reported an error: {text}"))
        } else {
            Ok(text)
        }
    }

    /// Stop every server.
    pub async fn shutdown(self) {
        for s in self.servers {
            let _ = tokio::time::timeout(Duration::from_secs(5), s.service.cancel()).await;
        }
    }
}

async fn start_one(def: &McpDef, timeout: Duration) -> Result<Server> {
    let fail = |why: String| {
        Error::config(format!(
            "MCP server \"{}\" ({}): {why}",
            def.name, def.command
        ))
    };
    let mut command = tokio::process::Command::new(&def.command);
    command.args(&def.args).envs(&def.env);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| fail(format!("cannot start it: {e}")))?;
    let pid = transport.id();
    let service = tokio::time::timeout(timeout, ().serve(transport))
        .await
        .map_err(|_| fail(format!("no answer to initialize within {timeout:?}")))?
        .map_err(|e| fail(format!("initialize failed: {e}")))?;
    let tools = tokio::time::timeout(timeout, service.list_all_tools())
        .await
        .map_err(|_| fail(format!("no answer to tools/list within {timeout:?}")))?
        .map_err(|e| fail(format!("tools/list failed: {e}")))?;
    Ok(Server {
        def: def.clone(),
        service,
        tools,
        pid,
    })
}
