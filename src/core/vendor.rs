//! The vocabulary of who is spoken to: `Vendor` (the companies, by the name
//! io.toml, the command line and the store use, with each one's public defaults:
//! base URL, path, key variable, model) and `Wire` (one vendor API shape each, by
//! the io.toml value that picks it). Names only; what a wire can carry is the
//! capability table's (`core::capability`). Imports only `core::word`: every
//! other layer reads these words (`core::word` spells them).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::core::word::{UnknownWord, Word};

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

    /// The company's name as a reader writes it (`OpenRouter`).
    pub fn display_name(self) -> &'static str {
        match self {
            Vendor::Anthropic => "Anthropic",
            Vendor::OpenAi => "OpenAI",
            Vendor::OpenRouter => "OpenRouter",
            Vendor::Gemini => "Google",
        }
    }

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
        f.pad(self.as_str())
    }
}

impl Word for Vendor {
    // io.toml and the command line call a vendor a provider.
    const KIND: &'static str = "provider";
    const ALL: &'static [Vendor] = &Vendor::ALL;
    fn as_str(self) -> &'static str {
        Vendor::as_str(self)
    }
}

impl FromStr for Vendor {
    type Err = UnknownWord;

    fn from_str(s: &str) -> Result<Self, UnknownWord> {
        Vendor::parse_word(s)
    }
}

/// One vendor API shape.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum Wire {
    /// Anthropic Messages with the spec's tool versions (`web_tools = "2025"`).
    #[default]
    #[serde(rename = "anthropic-2025")]
    Anthropic2025,
    /// Anthropic Messages with the newest tool versions (`web_tools = "2026"`).
    #[serde(rename = "anthropic-2026")]
    Anthropic2026,
    /// OpenAI Chat Completions (`api = "chat"`, the spec's).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses (`api = "responses"`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// OpenRouter's web plugin (`api = "plugin"`, the spec's).
    #[serde(rename = "openrouter-plugin")]
    OpenRouterPlugin,
    /// OpenRouter's server tools (`api = "server-tools"`).
    #[serde(rename = "openrouter-server-tools")]
    OpenRouterServerTools,
    /// Google's Gemini API, `generateContent` (its only wire).
    #[serde(rename = "gemini")]
    Gemini,
}

impl Wire {
    /// Every wire, the spec's first for each vendor.
    pub const ALL: [Wire; 7] = [
        Wire::Anthropic2025,
        Wire::Anthropic2026,
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::OpenRouterPlugin,
        Wire::OpenRouterServerTools,
        Wire::Gemini,
    ];

    /// The vendor that serves it.
    pub fn vendor(self) -> Vendor {
        match self {
            Wire::Anthropic2025 | Wire::Anthropic2026 => Vendor::Anthropic,
            Wire::OpenAiChat | Wire::OpenAiResponses => Vendor::OpenAi,
            Wire::OpenRouterPlugin | Wire::OpenRouterServerTools => Vendor::OpenRouter,
            Wire::Gemini => Vendor::Gemini,
        }
    }

    /// The spec's wire for a vendor (the default).
    pub fn spec(vendor: Vendor) -> Wire {
        match vendor {
            Vendor::Anthropic => Wire::Anthropic2025,
            Vendor::OpenAi => Wire::OpenAiChat,
            Vendor::OpenRouter => Wire::OpenRouterPlugin,
            Vendor::Gemini => Wire::Gemini,
        }
    }

    /// True for the wires the spec's table describes.
    pub fn is_spec(self) -> bool {
        Wire::spec(self.vendor()) == self
    }

    /// The `io.toml` key that picks a wire for this vendor.
    pub fn key(vendor: Vendor) -> &'static str {
        match vendor {
            Vendor::Anthropic => "web_tools",
            Vendor::OpenAi | Vendor::OpenRouter | Vendor::Gemini => "api",
        }
    }

    /// The value of that key naming this wire.
    pub fn value(self) -> &'static str {
        match self {
            Wire::Anthropic2025 => "2025",
            Wire::Anthropic2026 => "2026",
            Wire::OpenAiChat => "chat",
            Wire::OpenAiResponses => "responses",
            Wire::OpenRouterPlugin => "plugin",
            Wire::OpenRouterServerTools => "server-tools",
            Wire::Gemini => "generate-content",
        }
    }

    /// The key and value that select it among its vendor's wires: `api = "responses"`.
    pub fn choice(self) -> String {
        format!("{} = \"{}\"", Wire::key(self.vendor()), self.value())
    }

    /// The `io.toml` setting that selects it: `[providers.openai] api = "responses"`.
    pub fn setting(self) -> String {
        format!("[providers.{}] {}", self.vendor(), self.choice())
    }

    /// The wire in words: `OpenAI Responses`.
    pub fn name(self) -> &'static str {
        match self {
            Wire::Anthropic2025 => "Anthropic Messages with the 2025 tool versions",
            Wire::Anthropic2026 => "Anthropic Messages with the 2026 tool versions",
            Wire::OpenAiChat => "OpenAI Chat Completions",
            Wire::OpenAiResponses => "OpenAI Responses",
            Wire::OpenRouterPlugin => "OpenRouter's web plugin",
            Wire::OpenRouterServerTools => "OpenRouter's server tools",
            Wire::Gemini => "the Gemini API",
        }
    }

    /// A short label: `openai · api = "responses"`.
    pub fn label(self) -> String {
        format!("{} · {}", self.vendor(), self.choice())
    }

    /// The wire a config value names for a vendor, or a config error naming the key
    /// and the accepted values.
    pub fn parse(vendor: Vendor, value: &str) -> Result<Wire, String> {
        Wire::ALL
            .into_iter()
            .find(|w| w.vendor() == vendor && w.value() == value)
            .ok_or_else(|| {
                let accepted: Vec<String> = Wire::ALL
                    .iter()
                    .filter(|w| w.vendor() == vendor)
                    .map(|w| format!("\"{}\"", w.value()))
                    .collect();
                format!(
                    "[providers.{vendor}] {} = \"{value}\" is not a wire this crate speaks; \
                     accepted values: {} (default {})",
                    Wire::key(vendor),
                    accepted.join(", "),
                    accepted.first().map_or("", String::as_str)
                )
            })
    }

    /// The path appended to the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Wire::OpenAiResponses => "/v1/responses",
            _ => self.vendor().path(),
        }
    }
}

impl Word for Wire {
    const KIND: &'static str = "wire";
    const ALL: &'static [Wire] = &Wire::ALL;
    /// The spelling a stored plan and JSON use (`openai-responses`).
    fn as_str(self) -> &'static str {
        match self {
            Wire::Anthropic2025 => "anthropic-2025",
            Wire::Anthropic2026 => "anthropic-2026",
            Wire::OpenAiChat => "openai-chat",
            Wire::OpenAiResponses => "openai-responses",
            Wire::OpenRouterPlugin => "openrouter-plugin",
            Wire::OpenRouterServerTools => "openrouter-server-tools",
            Wire::Gemini => "gemini",
        }
    }
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.label())
    }
}
