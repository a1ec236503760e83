//! The local tools, executed in this process: confined to the workspace, gated by
//! the policy and, for `Ask`, by the approver. Each returns a `ToolResult` whose text
//! becomes the next turn's observation; a refusal is a result too, never a crash.
//!
//! `http_get` is the tool this process executes itself, so unlike a
//! provider-executed search it is enforced here: `Act::Net` is decided for the
//! exact `host:port`; the host's resolved addresses are checked and the connection
//! pinned to them (`run::net`: loopback, private and link-local only for a host a
//! rule names); redirects are not followed (each hop must be asked for, and so
//! gated, on its own).

use crate::core::text::shorten;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::approve::{ApprovalRequest, Approver};
use crate::core::completion::ToolCall;
use crate::core::event::EventKind;
use crate::core::host::net_target;
use crate::core::policy::{Act, Effect, Policy, Rule};
use crate::run::net::{pinned_client, resolve_checked};
use crate::run::workspace::{confine, open_read, open_write};

/// Longest text a tool hands back to the model.
pub const MAX_OUTPUT: usize = 8_000;
const MAX_READ: u64 = 1 << 20;
const MAX_HTTP_BODY: usize = 64 * 1024;
const MAX_MATCHES: usize = 200;

/// What a tool produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// Whether it did what was asked.
    pub ok: bool,
    /// Its output, or why it did not run.
    pub output: String,
}

impl ToolResult {
    /// It ran; its output, shortened to `MAX_OUTPUT`.
    pub(crate) fn ok(output: impl Into<String>) -> Self {
        ToolResult {
            ok: true,
            output: shorten(output.into(), MAX_OUTPUT),
        }
    }
    /// It did not run, and why.
    pub(crate) fn err(output: impl Into<String>) -> Self {
        ToolResult {
            ok: false,
            output: output.into(),
        }
    }
}

/// Where and under which rules tools run.
pub struct ToolEnv<'a> {
    /// The workspace root.
    pub workspace: &'a Path,
    /// The rules.
    pub policy: &'a Policy,
    /// Who answers `Ask`.
    pub approver: &'a dyn Approver,
    /// Where approval events go.
    pub emit: &'a (dyn Fn(EventKind) + Send + Sync),
}

/// Run one built-in local tool.
pub async fn execute(env: &ToolEnv<'_>, call: &ToolCall) -> ToolResult {
    let arg = |k: &str| {
        call.input
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let need =
        |k: &str| arg(k).ok_or_else(|| format!("{} needs a string argument \"{k}\"", call.name));
    let result = match call.name.as_str() {
        "read_file" => match need("path") {
            Ok(p) => read_file(env, &p).await,
            Err(e) => Err(e),
        },
        "write_file" => match (need("path"), need("content")) {
            (Ok(p), Ok(c)) => write_file(env, &p, &c).await,
            (Err(e), _) | (_, Err(e)) => Err(e),
        },
        "list_dir" => list_dir(env, &arg("path").unwrap_or_else(|| ".".into())).await,
        "search_text" => match need("pattern") {
            Ok(p) => search_text(env, &p, &arg("path").unwrap_or_else(|| ".".into())).await,
            Err(e) => Err(e),
        },
        "http_get" => match need("url") {
            Ok(u) => http_get(env, &u).await,
            Err(e) => Err(e),
        },
        other => Err(format!("there is no local tool named \"{other}\"")),
    };
    match result {
        Ok(out) => ToolResult::ok(out),
        Err(e) => ToolResult::err(e),
    }
}

/// Decide an act; ask the approver when the policy says so.
pub(crate) async fn gate(
    env: &ToolEnv<'_>,
    act: Act,
    target: &str,
    tool: &str,
) -> Result<(), String> {
    let decision = env.policy.decide(act, target);
    let why = decision.rule.as_ref().map_or_else(
        || format!("no rule allows {} {target}", act.as_str()),
        |r| r.describe(),
    );
    match decision.effect {
        Effect::Allow => Ok(()),
        Effect::Deny => Err(format!(
            "refused: {} {target} is denied by {why}",
            act.as_str()
        )),
        Effect::Ask => {
            let request = ApprovalRequest {
                act,
                target: target.to_string(),
                tool: tool.to_string(),
                why,
            };
            (env.emit)(EventKind::ApprovalAsked {
                act,
                target: request.target.clone(),
                tool: request.tool.clone(),
                why: request.why.clone(),
            });
            let approved = env.approver.approve(&request).await;
            (env.emit)(EventKind::ApprovalAnswered { approved });
            if approved {
                Ok(())
            } else {
                Err(env
                    .approver
                    .declined(&request, &how_to_allow(decision.rule.as_ref(), act, target)))
            }
        }
    }
}

/// What the operator changes in io.toml so that `act` on `target` runs unasked.
fn how_to_allow(rule: Option<&Rule>, act: Act, target: &str) -> String {
    match rule {
        Some(r) if !r.fallback => format!(
            "an allow cannot outrank an ask, so change \"{}\" under [policy] ask{} to allow",
            r.entry(),
            r.source
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        ),
        _ => format!(
            "add \"{}:{target}\" to [policy] allow in io.toml",
            act.as_str()
        ),
    }
}

async fn read_file(env: &ToolEnv<'_>, path: &str) -> Result<String, String> {
    use tokio::io::AsyncReadExt;
    let c = confine(env.workspace, path)?;
    gate(env, Act::Read, &c.relative, "read_file").await?;
    let file = open_read(&c.absolute, path).await?;
    let len = file.metadata().await.map_or(0, |m| m.len());
    if len > MAX_READ {
        return Err(format!(
            "{path} is {len} bytes; read_file reads files up to {MAX_READ}"
        ));
    }
    // Bounded even if the file grows while it is read.
    let mut bytes = Vec::new();
    file.take(MAX_READ + 1)
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| format!("{path}: {e}"))?;
    if bytes.len() as u64 > MAX_READ {
        return Err(format!(
            "{path} grew past {MAX_READ} bytes while it was read"
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8 text"))
}

async fn write_file(env: &ToolEnv<'_>, path: &str, content: &str) -> Result<String, String> {
    use tokio::io::AsyncWriteExt;
    let c = confine(env.workspace, path)?;
    gate(env, Act::Write, &c.relative, "write_file").await?;
    if let Some(parent) = c.absolute.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        // The directories made must still lead inside (nothing raced a link in).
        confine(env.workspace, path)?;
    }
    let mut file = open_write(&c.absolute, path).await?;
    file.write_all(content.as_bytes())
        .await
        .map_err(|e| format!("{path}: {e}"))?;
    file.flush().await.map_err(|e| format!("{path}: {e}"))?;
    Ok(format!("wrote {} bytes to {}", content.len(), c.relative))
}

async fn list_dir(env: &ToolEnv<'_>, path: &str) -> Result<String, String> {
    let c = confine(env.workspace, path)?;
    gate(env, Act::Read, &c.relative, "list_dir").await?;
    let mut entries = tokio::fs::read_dir(&c.absolute)
        .await
        .map_err(|e| format!("{path}: {e}"))?;
    let mut names = Vec::new();
    while let Some(e) = entries
        .next_entry()
        .await
        .map_err(|e| format!("{path}: {e}"))?
    {
        let dir = e.file_type().await.map(|t| t.is_dir()).unwrap_or(false);
        names.push(format!(
            "{}{}",
            e.file_name().to_string_lossy(),
            if dir { "/" } else { "" }
        ));
    }
    names.sort();
    Ok(if names.is_empty() {
        "(empty)".into()
    } else {
        names.join("\n")
    })
}

async fn search_text(env: &ToolEnv<'_>, pattern: &str, path: &str) -> Result<String, String> {
    let re = regex::Regex::new(pattern).map_err(|e| format!("bad pattern {pattern:?}: {e}"))?;
    let c = confine(env.workspace, path)?;
    gate(env, Act::Read, &c.relative, "search_text").await?;
    let root = c.absolute.clone();
    let workspace = env.workspace.canonicalize().map_err(|e| e.to_string())?;
    let policy = env.policy.clone();
    // A directory walk is blocking work: keep it off the async threads.
    tokio::task::spawn_blocking(move || {
        let mut hits = Vec::new();
        let walker = walkdir::WalkDir::new(&root).follow_links(false).into_iter();
        for entry in walker
            .filter_entry(|e| !is_skipped(e.file_name()))
            .flatten()
        {
            if !entry.file_type().is_file()
                || entry.metadata().map(|m| m.len() > MAX_READ).unwrap_or(true)
            {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(&workspace)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            if policy.decide(Act::Read, &rel).effect == Effect::Deny {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            for (n, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    hits.push(format!(
                        "{rel}:{}: {}",
                        n + 1,
                        shorten(line.to_string(), 200)
                    ));
                    if hits.len() >= MAX_MATCHES {
                        hits.push(format!("(stopped at {MAX_MATCHES} matches)"));
                        return hits.join("\n");
                    }
                }
            }
        }
        if hits.is_empty() {
            "no matches".to_string()
        } else {
            hits.join("\n")
        }
    })
    .await
    .map_err(|e| format!("search failed: {e}"))
}

fn is_skipped(name: &std::ffi::OsStr) -> bool {
    matches!(name.to_str(), Some(".git" | "target" | "node_modules"))
}

async fn http_get(env: &ToolEnv<'_>, raw: &str) -> Result<String, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("bad URL {raw:?}: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "http_get fetches http and https URLs only, not {}",
            url.scheme()
        ));
    }
    let host = url
        .host_str()
        .ok_or_else(|| format!("URL {raw} has no host"))?;
    // Decided on the host as a host (`example.com.` is `example.com`).
    let (name, port) = net_target(&url).ok_or_else(|| format!("URL {raw} has no host"))?;
    let target = format!("{name}:{port}");
    gate(env, Act::Net, &target, "http_get").await?;
    let named = env.policy.names(Act::Net, &target);
    let addrs = resolve_checked(host, port, named).await?;
    let response = pinned_client(host, &addrs)?
        .get(url.clone())
        .timeout(Duration::from_secs(20))
        .send()
        .await
        .map_err(|e| format!("GET {url} failed: {e}"))?;
    let status = response.status();
    if status.is_redirection() {
        let to = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("?");
        return Ok(format!(
            "HTTP {} redirect to {to} (not followed; ask for it to fetch it)",
            status.as_u16()
        ));
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|e| format!("GET {url}: body failed: {e}"))?;
    let body = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_HTTP_BODY)]).into_owned();
    Ok(format!("HTTP {}\n{body}", status.as_u16()))
}
