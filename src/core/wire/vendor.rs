//! `Vendor`: the companies this crate speaks to, by the name io.toml, the command
//! line and the store use, with each one's public defaults (base URL, path, key
//! variable, model). Below every wire file; names no wire.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The vendors this crate speaks to.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    /// Anthropic Messages (the default).
    #[default]
    Anthropic,
    /// OpenAI Chat Completions.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenRouter Chat Completions.
    #[serde(rename = "openrouter")]
    OpenRouter,
    /// Google's Gemini API (`generateContent`).
    #[serde(rename = "gemini")]
    Gemini,
}

impl Vendor {
    /// Every vendor, in display order.
    pub const ALL: [Vendor; 4] = [
        Vendor::Anthropic,
        Vendor::OpenAi,
        Vendor::OpenRouter,
        Vendor::Gemini,
    ];

    /// The name used in `io.toml`, on the command line and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Anthropic => "anthropic",
            Vendor::OpenAi => "openai",
            Vendor::OpenRouter => "openrouter",
            Vendor::Gemini => "gemini",
        }
    }

    /// The public API base URL (the part before the vendor's fixed path).
    pub fn default_base_url(self) -> &'static str {
        match self {
            Vendor::Anthropic => "https://api.anthropic.com",
            Vendor::OpenAi => "https://api.openai.com",
            Vendor::OpenRouter => "https://openrouter.ai/api",
            Vendor::Gemini => "https://generativelanguage.googleapis.com/v1beta",
        }
    }

    /// The path appended to the base URL (Gemini's continues with the model and
    /// the method: `/models/{model}:generateContent`).
    pub fn path(self) -> &'static str {
        match self {
            Vendor::Anthropic => "/v1/messages",
            Vendor::OpenAi | Vendor::OpenRouter => "/v1/chat/completions",
            Vendor::Gemini => "/models",
        }
    }

    /// The base URL of this vendor's API served at `host_port` over plain HTTP, as
    /// the built-in stub serves it (OpenRouter's under `/api`, as on openrouter.ai).
    pub fn base_url_at(self, host_port: &str) -> String {
        match self {
            Vendor::OpenRouter => format!("http://{host_port}/api"),
            Vendor::Gemini => format!("http://{host_port}/v1beta"),
            Vendor::Anthropic | Vendor::OpenAi => format!("http://{host_port}"),
        }
    }

    /// The variable that holds the key unless `io.toml` names another.
    pub fn default_api_key_env(self) -> &'static str {
        match self {
            Vendor::Anthropic => "ANTHROPIC_API_KEY",
            Vendor::OpenAi => "OPENAI_API_KEY",
            Vendor::OpenRouter => "OPENROUTER_API_KEY",
            Vendor::Gemini => "GEMINI_API_KEY",
        }
    }

    /// The model used when `io.toml` names none.
    pub fn default_model(self) -> &'static str {
        match self {
            Vendor::Anthropic => "claude-sonnet-4-5",
            Vendor::OpenAi => "gpt-5-search-api",
            Vendor::OpenRouter => "openai/gpt-5.2",
            // Google's models page (ai.google.dev/gemini-api/docs/models), read
            // 2026-12-04: Gemini 3.5 Flash, stable, with Google Search and URL context.
            Vendor::Gemini => "gemini-3.5-flash",
        }
    }
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Vendor {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Vendor::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown provider \"{s}\"; use one of: anthropic, openai, openrouter, gemini"
                ))
            })
    }
}
