//! One turn as the vendor-neutral input to a vendor encoder (`Turn`), and the exact
//! request an encoder produces (`WireRequest`).
//!
//! A request is, by default, one flattened user message (the goal plus every
//! observation so far), the local tools, and the web declaration; in
//! `"transcript"` mode the vendor's own blocks of every step go back too
//! (`history`), and `cache` asks for prompt caching. Secrets never live here: a header
//! that needs a key names the variable that supplies it, and only the transport
//! reads that variable.

use serde::{Deserialize, Serialize};

use crate::core::contract::TaskContract;
use crate::core::transcript::{Caching, Conversation, Exchange, same_family};
use crate::core::vendor::Wire;
use crate::core::web::WebAccess;

/// A local tool offered to the model, in vendor-neutral form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its input object.
    pub input_schema: serde_json::Value,
}

/// The input to one vendor request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The model to ask.
    pub model: String,
    /// The output token cap.
    pub max_tokens: u32,
    /// The task's goal.
    pub goal: String,
    /// Every observation so far, each already prefixed `[step N] `.
    pub observations: Vec<String>,
    /// Local tools offered to the model.
    pub tools: Vec<ToolSpec>,
    /// Provider-executed web access, as declared on the contract.
    pub web: Option<WebAccess>,
    /// Flattened (the spec's) or transcript.
    #[serde(default)]
    pub conversation: Conversation,
    /// Transcript mode: every step so far, as the vendors answered it.
    #[serde(default)]
    pub history: Vec<Exchange>,
    /// Prompt caching, when asked for.
    #[serde(default)]
    pub cache: Option<Caching>,
}

impl Turn {
    /// The request of a contract's next step: its goal, declaration, conversation
    /// mode and caching, with the observations and exchanges so far. The engine,
    /// `preview` (a first step: none of either) and `preview --resume` (a stored
    /// run's) all build their turn here, so a previewed body is the sent body.
    pub fn for_step(
        contract: &TaskContract,
        model: String,
        max_tokens: u32,
        tools: Vec<ToolSpec>,
        observations: Vec<String>,
        history: Vec<Exchange>,
    ) -> Turn {
        let cache = contract.cache.map(|ttl| Caching {
            ttl,
            key: Caching::key_for(&contract.goal, &model),
        });
        Turn {
            model,
            max_tokens,
            goal: contract.goal.clone(),
            observations,
            tools,
            web: contract.web.clone(),
            conversation: contract.conversation,
            history,
            cache,
        }
    }

    /// The one user message every vendor gets: the goal, then the observations.
    pub fn user_message(&self) -> String {
        if self.observations.is_empty() {
            return self.goal.clone();
        }
        let mut text = self.goal.clone();
        text.push_str("\n\nObservations so far:\n");
        text.push_str(&self.observations.join("\n"));
        text
    }

    /// The goal with the first `n` observations, flattened as `user_message` does.
    pub fn opening(&self, n: usize) -> String {
        let n = n.min(self.observations.len());
        if n == 0 {
            return self.goal.clone();
        }
        let mut text = self.goal.clone();
        text.push_str("\n\nObservations so far:\n");
        text.push_str(&self.observations[..n].join("\n"));
        text
    }

    /// In transcript mode, what `wire` is sent: how many observations the opening
    /// user message carries and the exchanges after it. Exchanges of another
    /// vendor (a fallback) are not sent — their encrypted content is not readable
    /// here — so the transcript restarts after the last of them, from the goal
    /// and the observations made before it. `None` in flattened mode.
    pub fn history_for(&self, wire: Wire) -> Option<(usize, &[Exchange])> {
        if self.conversation != Conversation::Transcript {
            return None;
        }
        let start = self
            .history
            .iter()
            .rposition(|e| !same_family(e.wire, wire))
            .map_or(0, |i| i + 1);
        let rest = &self.history[start..];
        let opening = rest
            .first()
            .map_or(self.observations.len(), |first| first.observations_before);
        Some((opening, rest))
    }

    /// The declaration, when it turns anything on.
    pub fn web_enabled(&self) -> Option<&WebAccess> {
        self.web.as_ref().filter(|w| w.enabled())
    }
}

/// A header value: plain text, or a secret the transport fills from a variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeaderValue {
    /// Sent as written.
    Plain(String),
    /// `prefix` followed by the value of the environment variable `env`.
    Secret {
        /// Text before the key (`"Bearer "`, or empty).
        prefix: String,
        /// The variable that holds the key.
        env: String,
    },
}

impl HeaderValue {
    /// How a previewed header reads: redacted, and on the demo (the loopback
    /// stub vendor, which checks no key) a secret header says there is none —
    /// `preview --demo` and the console's demo preview say the same.
    pub fn previewed(&self, demo: bool) -> String {
        match self {
            HeaderValue::Secret { .. } if demo => {
                "(none: the stub vendor checks no key)".to_string()
            }
            _ => self.redacted(),
        }
    }

    /// How the header reads with the secret redacted: `Bearer $OPENAI_API_KEY`.
    pub fn redacted(&self) -> String {
        match self {
            HeaderValue::Plain(v) => v.clone(),
            HeaderValue::Secret { prefix, env } => format!("{prefix}${env}"),
        }
    }
}

/// The exact request a vendor encoder produced, before any secret is filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireRequest {
    /// Always `POST` for the vendors here.
    pub method: String,
    /// The full URL.
    pub url: String,
    /// Headers in the order sent.
    pub headers: Vec<(String, HeaderValue)>,
    /// The body bytes exactly as sent.
    pub body: Vec<u8>,
}

impl WireRequest {
    /// The variables whose values the transport will read for this request.
    pub fn secret_envs(&self) -> impl Iterator<Item = &str> {
        self.headers.iter().filter_map(|(_, v)| match v {
            HeaderValue::Secret { env, .. } => Some(env.as_str()),
            HeaderValue::Plain(_) => None,
        })
    }
}

/// The vendor's HTTP answer, as bytes, for a decoder.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WireResponse {
    /// HTTP status.
    pub status: u16,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl WireResponse {
    /// The first header with this (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_message_flattens_goal_and_observations() {
        let mut t = Turn {
            model: "m".into(),
            max_tokens: 1,
            goal: "do it".into(),
            observations: vec![],
            tools: vec![],
            web: None,
            ..Turn::default()
        };
        assert_eq!(t.user_message(), "do it");
        t.observations = vec!["[step 1] a".into(), "[step 2] b".into()];
        assert_eq!(
            t.user_message(),
            "do it\n\nObservations so far:\n[step 1] a\n[step 2] b"
        );
    }

    #[test]
    fn secrets_redact_to_their_variable() {
        let v = HeaderValue::Secret {
            prefix: "Bearer ".into(),
            env: "OPENAI_API_KEY".into(),
        };
        assert_eq!(v.redacted(), "Bearer $OPENAI_API_KEY");
    }
}
