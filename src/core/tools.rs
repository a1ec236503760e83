//! The local tools' contract: names, descriptions and input schemas as offered to
//! the model. Execution lives in `crate::run::tools`; this is data only.

use serde_json::json;

use crate::core::turn::ToolSpec;

/// Every built-in local tool, in the order offered. `spawn_agent` is offered only
/// when a roster exists, so it is not in this list.
pub fn local_tool_specs() -> Vec<ToolSpec> {
    vec![
        spec(
            "read_file",
            "Read a UTF-8 text file in the workspace.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        ),
        spec(
            "write_file",
            "Create or replace a file in the workspace.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}),
        ),
        spec(
            "list_dir",
            "List the entries of a directory in the workspace.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        ),
        spec(
            "search_text",
            "Search workspace files for a regular expression; optional path narrows it.",
            json!({"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}, "required": ["pattern"]}),
        ),
        spec(
            "http_get",
            "Fetch a URL from this machine, subject to the operator's network policy.",
            json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}),
        ),
    ]
}

/// Everything a root run offers: the built-in tools, `spawn_agent` when there is
/// a roster, then `extra` (an MCP server's tools). The loop and every preview use
/// this one list, so a preview shows the tools the request will carry.
pub fn offered_tools(agent_names: &[String], extra: &[ToolSpec]) -> Vec<ToolSpec> {
    let mut tools = local_tool_specs();
    if !agent_names.is_empty() {
        tools.push(spawn_agent_spec(agent_names));
    }
    tools.extend(extra.iter().cloned());
    tools
}

/// What a run at some depth is offered: `offered_tools` with `spawn_agent` only
/// while `nesting` is allowed, within the agent's `subset` of tool names (every
/// tool without one). The loop and the preview of an agent's first request both
/// use this list.
pub fn offered_within(
    agent_names: &[String],
    extra: &[ToolSpec],
    nesting: bool,
    subset: Option<&[String]>,
) -> Vec<ToolSpec> {
    let names: &[String] = if nesting { agent_names } else { &[] };
    offered_tools(names, extra)
        .into_iter()
        .filter(|t| subset.is_none_or(|s| s.contains(&t.name)))
        .collect()
}

/// The spec of `spawn_agent`, offered when the config defines agents.
pub fn spawn_agent_spec(agent_names: &[String]) -> ToolSpec {
    spec(
        "spawn_agent",
        "Hand a sub-task to a named agent; its answer comes back as an observation.",
        json!({"type": "object", "properties": {"agent": {"type": "string", "enum": agent_names}, "task": {"type": "string"}}, "required": ["agent", "task"]}),
    )
}

fn spec(name: &str, description: &str, input_schema: serde_json::Value) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        input_schema,
    }
}
