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
    /// xAI's Grok, on its Responses API.
    #[serde(rename = "xai")]
    Xai,
    /// Perplexity: its Agent API, or Sonar on Chat Completions.
    #[serde(rename = "perplexity")]
    Perplexity,
}

impl Vendor {
    /// Every vendor, in display order.
    pub const ALL: [Vendor; 6] = [
        Vendor::Anthropic,
        Vendor::OpenAi,
        Vendor::OpenRouter,
        Vendor::Gemini,
        Vendor::Xai,
        Vendor::Perplexity,
    ];

    /// The company's name as a reader writes it (`OpenRouter`).
    pub fn display_name(self) -> &'static str {
        match self {
            Vendor::Anthropic => "Anthropic",
            Vendor::OpenAi => "OpenAI",
            Vendor::OpenRouter => "OpenRouter",
            Vendor::Gemini => "Google",
            Vendor::Xai => "xAI",
            Vendor::Perplexity => "Perplexity",
        }
    }

    /// The name used in `io.toml`, on the command line and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Anthropic => "anthropic",
            Vendor::OpenAi => "openai",
            Vendor::OpenRouter => "openrouter",
            Vendor::Gemini => "gemini",
            Vendor::Xai => "xai",
            Vendor::Perplexity => "perplexity",
        }
    }

    /// The public API base URL (the part before the vendor's fixed path).
    pub fn default_base_url(self) -> &'static str {
        match self {
            Vendor::Anthropic => "https://api.anthropic.com",
            Vendor::OpenAi => "https://api.openai.com",
            Vendor::OpenRouter => "https://openrouter.ai/api",
            Vendor::Gemini => "https://generativelanguage.googleapis.com/v1beta",
            Vendor::Xai => "https://api.x.ai/v1",
            Vendor::Perplexity => "https://api.perplexity.ai",
        }
    }

    /// The path appended to the base URL (Gemini's continues with the model and
    /// the method: `/models/{model}:generateContent`; Perplexity's is its default
    /// wire's, the Agent API).
    pub fn path(self) -> &'static str {
        match self {
            Vendor::Anthropic => "/v1/messages",
            Vendor::OpenAi | Vendor::OpenRouter => "/v1/chat/completions",
            Vendor::Gemini => "/models",
            Vendor::Xai => "/v1/responses",
            Vendor::Perplexity => "/v1/agent",
        }
    }

    /// The base URL of this vendor's API served at `host_port` over plain HTTP, as
    /// the built-in stub serves it (OpenRouter's under `/api`, as on openrouter.ai;
    /// xAI's and Perplexity's under their names, since their paths are OpenAI's).
    pub fn base_url_at(self, host_port: &str) -> String {
        match self {
            Vendor::OpenRouter => format!("http://{host_port}/api"),
            Vendor::Gemini => format!("http://{host_port}/v1beta"),
            Vendor::Xai => format!("http://{host_port}/xai/v1"),
            Vendor::Perplexity => format!("http://{host_port}/perplexity"),
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
            Vendor::Xai => "XAI_API_KEY",
            Vendor::Perplexity => "PERPLEXITY_API_KEY",
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
            // xAI's tools guides use grok-4.3 in every example (docs.x.ai, read
            // 2026-12-05), and it is recorded answering with reasoning and cost.
            Vendor::Xai => "grok-4.3",
            // Perplexity's Agent API names its own model `perplexity/sonar`
            // (docs.perplexity.ai, Agent API models, read 2026-12-05).
            Vendor::Perplexity => "perplexity/sonar",
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
    /// xAI's Responses API, `POST /v1/responses` (its only wire).
    #[serde(rename = "xai")]
    Xai,
    /// Perplexity's Agent API, `POST /v1/agent` (`api = "agent"`, the default).
    #[serde(rename = "perplexity-agent")]
    PerplexityAgent,
    /// Perplexity's Sonar on Chat Completions, `POST /chat/completions`
    /// (`api = "sonar"`).
    #[serde(rename = "perplexity-sonar")]
    PerplexitySonar,
}

impl Wire {
    /// Every wire, the spec's first for each vendor.
    pub const ALL: [Wire; 10] = [
        Wire::Anthropic2025,
        Wire::Anthropic2026,
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::OpenRouterPlugin,
        Wire::OpenRouterServerTools,
        Wire::Gemini,
        Wire::Xai,
        Wire::PerplexityAgent,
        Wire::PerplexitySonar,
    ];

    /// The vendor that serves it.
    pub fn vendor(self) -> Vendor {
        match self {
            Wire::Anthropic2025 | Wire::Anthropic2026 => Vendor::Anthropic,
            Wire::OpenAiChat | Wire::OpenAiResponses => Vendor::OpenAi,
            Wire::OpenRouterPlugin | Wire::OpenRouterServerTools => Vendor::OpenRouter,
            Wire::Gemini => Vendor::Gemini,
            Wire::Xai => Vendor::Xai,
            Wire::PerplexityAgent | Wire::PerplexitySonar => Vendor::Perplexity,
        }
    }

    /// The spec's wire for a vendor (the default). For the vendors the spec does
    /// not name, the wire their current documents say is the way forward:
    /// Perplexity's Agent API, since Sonar on Chat Completions was supported
    /// only until 2026-09-27 (docs.perplexity.ai/docs/getting-started/pricing).
    pub fn spec(vendor: Vendor) -> Wire {
        match vendor {
            Vendor::Anthropic => Wire::Anthropic2025,
            Vendor::OpenAi => Wire::OpenAiChat,
            Vendor::OpenRouter => Wire::OpenRouterPlugin,
            Vendor::Gemini => Wire::Gemini,
            Vendor::Xai => Wire::Xai,
            Vendor::Perplexity => Wire::PerplexityAgent,
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
            Vendor::OpenAi
            | Vendor::OpenRouter
            | Vendor::Gemini
            | Vendor::Xai
            | Vendor::Perplexity => "api",
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
            Wire::Xai => "responses",
            Wire::PerplexityAgent => "agent",
            Wire::PerplexitySonar => "sonar",
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
            Wire::Xai => "xAI's Responses API",
            Wire::PerplexityAgent => "Perplexity's Agent API",
            Wire::PerplexitySonar => "Perplexity's Sonar (Chat Completions)",
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
            // Perplexity's own path (docs.perplexity.ai, Sonar API reference): no /v1.
            Wire::PerplexitySonar => "/chat/completions",
            _ => self.vendor().path(),
        }
    }

    /// The model asked when io.toml names none: the vendor's, except where a
    /// wire takes another spelling (Sonar on Chat Completions says `sonar`; its
    /// Agent API `perplexity/sonar`).
    pub fn default_model(self) -> &'static str {
        match self {
            Wire::PerplexitySonar => "sonar",
            _ => self.vendor().default_model(),
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
            Wire::Xai => "xai",
            Wire::PerplexityAgent => "perplexity-agent",
            Wire::PerplexitySonar => "perplexity-sonar",
        }
    }
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.label())
    }
}
