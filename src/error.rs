//! The crate's error type: one enum at the library boundary, each variant carrying
//! what an operator needs to act (the vendor, the status, the vendor's own words).
//!
//! Messages say what happened, what was not done and what to do. No variant ever
//! carries a secret: API keys are resolved in the transport and never formatted.

use std::time::Duration;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong, by boundary.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A declaration, policy or configuration that cannot be honoured. Raised before
    /// any request is sent.
    #[error("{0}")]
    Config(String),
    /// The vendor answered with an error (an HTTP error status, or an error object
    /// inside a 200).
    #[error(transparent)]
    Vendor(Box<VendorError>),
    /// The vendor answered, but not in a shape this crate can read.
    #[error("{provider}: could not read the response ({message}); the first bytes were: {snippet}")]
    Decode {
        /// Which vendor answered.
        provider: String,
        /// What did not parse.
        message: String,
        /// The start of the body, for the operator to see what came back.
        snippet: String,
    },
    /// The request never got an answer: connection refused, timeout, a body cut short.
    #[error("{provider}: {message}")]
    Transport {
        /// Which vendor was being called.
        provider: String,
        /// What happened, in words.
        message: String,
        /// Whether a retry could help.
        retryable: bool,
    },
    /// The SQLite store failed.
    #[error("store: {0}")]
    Store(String),
    /// A file or directory could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The path involved.
        path: String,
        /// What the OS said.
        message: String,
    },
    /// The run was cancelled by the operator.
    #[error("cancelled")]
    Cancelled,
}

impl From<VendorError> for Error {
    fn from(e: VendorError) -> Self {
        Error::Vendor(Box::new(e))
    }
}

impl Error {
    /// The vendor's own error, when the vendor answered with one.
    pub fn vendor(&self) -> Option<&VendorError> {
        match self {
            Error::Vendor(v) => Some(v),
            _ => None,
        }
    }

    /// A configuration error from anything printable.
    pub fn config(message: impl Into<String>) -> Self {
        Error::Config(message.into())
    }

    /// Whether this is a configuration error (raised before any request was sent).
    pub fn is_config(&self) -> bool {
        matches!(self, Error::Config(_))
    }

    /// Whether waiting and sending the same request again could succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Vendor(v) => v.is_retryable(),
            Error::Transport { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// The store at `path` could not be opened: a configuration error (exit 2,
    /// before any request), saying how to point at another file.
    pub fn store_unusable(path: &std::path::Path, e: &Error) -> Self {
        Error::config(format!(
            "the store {} cannot be opened ({e}); nothing was run. Pass --store PATH to use \
             another file, or set `path` under [store] in io.toml",
            path.display()
        ))
    }

    /// An I/O error with the path that caused it.
    pub fn io(path: impl AsRef<std::path::Path>, err: impl std::fmt::Display) -> Self {
        Error::Io {
            path: path.as_ref().display().to_string(),
            message: err.to_string(),
        }
    }
}

/// An error the vendor itself reported, with everything it said about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider} answered HTTP {status}{}: {message}{}", .error_type.as_deref().map(|t| format!(" {t}")).unwrap_or_default(), .request_id.as_deref().map(|r| format!(" (request id {r})")).unwrap_or_default())]
pub struct VendorError {
    /// `anthropic`, `openai` or `openrouter`.
    pub provider: String,
    /// The HTTP status; for an error inside a 200, the code the body gave, else 200.
    pub status: u16,
    /// The vendor's own error type (`rate_limit_error`, `insufficient_quota`, …).
    pub error_type: Option<String>,
    /// The vendor's own code where it sends one separately from the type.
    pub code: Option<String>,
    /// The vendor's message.
    pub message: String,
    /// The request id, from the body or the `request-id` / `x-request-id` header.
    pub request_id: Option<String>,
    /// How long the vendor asked us to wait, from `retry-after-ms` or `retry-after`.
    pub retry_after: Option<Duration>,
}

impl VendorError {
    /// Whether waiting could fix it: 408, 409, 429 and 5xx (529 included), except the
    /// 429s that mean money rather than rate (OpenAI's `insufficient_quota`,
    /// Anthropic's spend cap), which no amount of waiting fixes.
    pub fn is_retryable(&self) -> bool {
        if self.is_quota() {
            return false;
        }
        matches!(self.status, 408 | 409 | 429) || self.status >= 500
    }

    /// A 429 (or other status) that reports exhausted credit rather than a rate limit.
    pub fn is_quota(&self) -> bool {
        let words = [self.error_type.as_deref(), self.code.as_deref()];
        words.iter().flatten().any(|w| {
            matches!(
                *w,
                "insufficient_quota" | "enforced_spend_limit_reached" | "billing_error"
            )
        })
    }
}
