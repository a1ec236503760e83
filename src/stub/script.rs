//! The stub vendor's script: scripted responses, answered in order, optionally per
//! vendor, optionally cycled. TOML:
//!
//! ```toml
//! repeat = false                 # cycle when the end is reached
//! emulate_usage = false          # estimate input tokens and cache reads/writes from
//!                                # each request (`cache`), instead of the scripted usage
//! [[response]]
//! vendor = "anthropic"           # optional: only requests to this vendor's path
//! wire = "openai-responses"      # optional: only requests on this wire (its path)
//! match = "text"                # optional: only requests whose body holds this text;
//!                                # a request no `match` fits gets the entries without one;
//!                                # when several fit, those with the longest `match`
//! status = 200                   # default 200
//! headers = { "retry-after" = "1" }
//! body = '''{"type": "message", ...}'''   # or body_file = "relative/to/script.json"
//! delay_ms = 0                   # wait before answering
//! truncate_after = 20            # send a full Content-Length, then close after N bytes
//! drip_ms = 100                  # send the body one byte per interval
//! pad_bytes = 1048576            # follow the body with this many spaces (made as sent)
//! # When the request asks for a stream (a 2xx answer is then sent as SSE):
//! stream = { event_delay_ms = 30, pause_after = 10, pause_ms = 2000 }
//! #   raw = true          the body is SSE already (sent event by event as written)
//! #   event_delay_ms      wait before each event after the first
//! #   pause_after, pause_ms   wait once, before event N+1 (a search running)
//! #   end_after = N       end the body cleanly after N events (a stream cut short)
//! #   reset_after = N     reset the connection after N events
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::core::error::{Error, Result};
use crate::core::vendor::{Vendor, Wire};

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedResponse {
    /// Which vendor's path it answers; any when `None`.
    pub vendor: Option<Vendor>,
    /// Which wire's requests it answers, where the vendor has a wire with its own
    /// path (`openai-responses`); `None` answers the vendor's spec path.
    pub wire: Option<Wire>,
    /// Only requests whose body holds this text (an eval's question): such
    /// entries answer before those without one, which answer the rest.
    pub matches: Option<String>,
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay_ms: Option<u64>,
    /// Close the connection after this many body bytes.
    pub truncate_after: Option<usize>,
    /// Send the body one byte per this many milliseconds.
    pub drip_ms: Option<u64>,
    /// Follow the body with this many spaces, generated as they are sent.
    pub pad_bytes: Option<usize>,
    /// How it streams when the request asks for a stream.
    pub stream: StreamScript,
}

/// How a scripted answer streams (`stream = { … }` in the script).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamScript {
    /// The body is SSE already: sent as written, one event at a time.
    #[serde(default)]
    pub raw: bool,
    /// Wait this long before each event after the first.
    pub event_delay_ms: Option<u64>,
    /// Pause once after this many events…
    pub pause_after: Option<usize>,
    /// …for this long.
    pub pause_ms: Option<u64>,
    /// End the body cleanly after this many events.
    pub end_after: Option<usize>,
    /// Reset the connection after this many events.
    pub reset_after: Option<usize>,
}

impl Default for ScriptedResponse {
    fn default() -> Self {
        ScriptedResponse {
            vendor: None,
            wire: None,
            matches: None,
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
            delay_ms: None,
            truncate_after: None,
            drip_ms: None,
            pad_bytes: None,
            stream: StreamScript::default(),
        }
    }
}

/// The whole script.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// Answers in order.
    pub responses: Vec<ScriptedResponse>,
    /// Start again at the first when the last was used.
    pub repeat: bool,
    /// Report each 2xx answer's input-side usage as the cache emulation
    /// (`stub::cache`) estimates it from the request, not as scripted.
    pub emulate_usage: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    repeat: bool,
    #[serde(default)]
    emulate_usage: bool,
    #[serde(default)]
    response: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    vendor: Option<Vendor>,
    wire: Option<Wire>,
    #[serde(rename = "match")]
    matches: Option<String>,
    status: Option<u16>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    body: Option<String>,
    body_file: Option<String>,
    delay_ms: Option<u64>,
    truncate_after: Option<usize>,
    drip_ms: Option<u64>,
    pad_bytes: Option<usize>,
    #[serde(default)]
    stream: StreamScript,
}

const DEMO: &str = include_str!("../../demo/stub-demo.toml");

const EVAL_DEMO: &str = include_str!("../../demo/stub-eval.toml");

impl Script {
    /// The built-in demo: a search with citations, a local tool, a pause, a failed
    /// search and a final answer on the Anthropic wire, one cited answer each for
    /// OpenAI and OpenRouter; cycled so the console can run it again and again.
    pub fn demo() -> Script {
        // The demo is compiled in and tested; an error here is a build defect.
        Script::parse(DEMO, "demo/stub-demo.toml", None).unwrap_or_default()
    }

    /// The bundled eval's script (`eval --demo`): an answer per question and
    /// vendor, chosen by the question's words (`match`), in the shape of each
    /// wire with a path of its own (OpenAI's Responses beside its Chat).
    pub fn eval_demo() -> Script {
        // Compiled in and tested, as the demo is.
        Script::parse(EVAL_DEMO, "demo/stub-eval.toml", None).unwrap_or_default()
    }

    /// Read a script file; `body_file` paths are relative to it.
    pub fn load(path: &Path) -> Result<Script> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Script::parse(&text, &path.display().to_string(), path.parent())
    }

    /// Parse script text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str, dir: Option<&Path>) -> Result<Script> {
        let file: File = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            Error::config(format!(
                "{origin}{}: {}",
                line.map(|l| format!(":{l}")).unwrap_or_default(),
                e.message()
            ))
        })?;
        let mut responses = Vec::new();
        for (i, entry) in file.response.into_iter().enumerate() {
            let n = i + 1;
            let body = match (entry.body, entry.body_file) {
                (Some(b), None) => b.into_bytes(),
                (None, Some(f)) => {
                    let path = dir.map_or_else(|| Path::new(&f).to_path_buf(), |d| d.join(&f));
                    std::fs::read(&path).map_err(|e| {
                        Error::config(format!(
                            "{origin}: response {n}: body_file {}: {e}",
                            path.display()
                        ))
                    })?
                }
                (None, None) => Vec::new(),
                (Some(_), Some(_)) => {
                    return Err(Error::config(format!(
                        "{origin}: response {n} has both body and body_file; keep one"
                    )));
                }
            };
            responses.push(ScriptedResponse {
                vendor: entry.vendor.or(entry.wire.map(Wire::vendor)),
                wire: entry.wire,
                matches: entry.matches,
                status: entry.status.unwrap_or(200),
                headers: entry.headers.into_iter().collect(),
                body,
                delay_ms: entry.delay_ms,
                truncate_after: entry.truncate_after,
                drip_ms: entry.drip_ms,
                pad_bytes: entry.pad_bytes,
                stream: entry.stream,
            });
        }
        Ok(Script {
            responses,
            repeat: file.repeat,
            emulate_usage: file.emulate_usage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_parses_and_every_body_decodes() {
        let demo = Script::parse(DEMO, "demo", None).unwrap();
        assert!(demo.repeat);
        assert!(demo.responses.len() >= 5);
        for r in &demo.responses {
            let vendor = r.vendor.unwrap_or(Vendor::Anthropic);
            let response = crate::core::turn::WireResponse {
                status: r.status,
                headers: vec![],
                body: r.body.clone(),
            };
            let wire = r.wire.unwrap_or(Wire::spec(vendor));
            crate::core::wire::decode_wire(wire, &response).unwrap();
        }
    }

    #[test]
    fn the_eval_demo_parses_and_every_body_decodes() {
        let script = Script::parse(EVAL_DEMO, "eval", None).unwrap();
        assert!(script.responses.len() >= 20);
        for r in &script.responses {
            let vendor = r.vendor.unwrap();
            let response = crate::core::turn::WireResponse {
                status: r.status,
                headers: vec![],
                body: r.body.clone(),
            };
            let wire = r.wire.unwrap_or(Wire::spec(vendor));
            crate::core::wire::decode_wire(wire, &response).unwrap();
        }
        // Every path a wire is sent to has an answer for every question.
        for wire in Wire::ALL {
            let answers = script
                .responses
                .iter()
                .filter(|r| r.vendor == Some(wire.vendor()))
                .filter(|r| r.wire.unwrap_or(Wire::spec(wire.vendor())).path() == wire.path())
                .count();
            assert!(answers >= 6, "{wire:?}: {answers}");
        }
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let err = Script::parse(
            "repeat = true\n[[response]]\nstatuss = 200\n",
            "s.toml",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("s.toml:3: unknown field `statuss`"),
            "{err}"
        );
        let err = Script::parse(
            "[[response]]\nbody = 'x'\nbody_file = 'y'\n",
            "s.toml",
            None,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "s.toml: response 1 has both body and body_file; keep one"
        );
    }
}
