//! The crate's error type: one enum at the library boundary, each variant carrying
//! what an operator needs to act (the vendor, the status, the vendor's own words).
//!
//! Messages say what happened, what was not done and what to do. No variant ever
//! carries a secret: API keys are resolved in the transport and never formatted.

use std::time::Duration;

use crate::core::refusal::Refusal;
use crate::core::vendor::Vendor;
use crate::core::word::UnknownWord;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error behind a failure while working (a SQLite error, an `io::Error`, a
/// CSV writer's), kept as the source of the variant that names what failed.
pub type Source = Box<dyn std::error::Error + Send + Sync>;

/// Everything that can go wrong, by boundary. Three kinds end a command before
/// anything was sent or done (exit 2): `Config`, `Refusal` and `Refused`; every
/// other is a failure while working (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A declaration, policy or configuration that cannot be honoured (io.toml, a
    /// flag, a theme, a script). Raised before any request is sent.
    #[error("{0}")]
    Config(String),
    /// What was asked cannot be done as asked — an unknown run, a finished run,
    /// a run another process holds, an empty query — and nothing was sent or
    /// changed.
    #[error("{0}")]
    Refused(String),
    /// A vendor cannot carry what was declared (`core::refusal`): raised by the
    /// wire's `encode` before a byte exists to send.
    #[error("{0}")]
    Refusal(Box<Refusal>),
    /// The vendor answered with an error (an HTTP error status, or an error object
    /// inside a 200).
    #[error(transparent)]
    Vendor(Box<VendorError>),
    /// The vendor answered, but not in a shape this crate can read.
    #[error("{provider}: could not read the response ({message}); the first bytes were: {snippet}")]
    Decode {
        /// Which vendor answered.
        provider: Vendor,
        /// What did not parse.
        message: String,
        /// The start of the body, for the operator to see what came back.
        snippet: String,
    },
    /// The request never got an answer: connection refused, timeout, a body cut short.
    #[error("{provider}: {message}")]
    Transport {
        /// Which vendor was being called.
        provider: Vendor,
        /// What happened, in words.
        message: String,
        /// Whether a retry could help.
        retryable: bool,
    },
    /// The SQLite store failed.
    #[error("store: {what}{}", .source.as_ref().map(|s| format!(": {s}")).unwrap_or_default())]
    Store {
        /// What was being done, or what is wrong with what was read.
        what: String,
        /// SQLite's (or the decoder's) own error, where there is one.
        #[source]
        source: Option<Source>,
    },
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path (or the thing: `stdout`, the export thread) involved.
        path: String,
        /// What the OS said.
        #[source]
        source: Source,
    },
    /// A document could not be written (CSV, JSON, a pretty-printed body).
    #[error("{what}: {source}")]
    Export {
        /// What was being written.
        what: String,
        /// The writer's error.
        #[source]
        source: Source,
    },
    /// The terminal could not be taken over, read or drawn on.
    #[error("the terminal: {what}: {source}")]
    Terminal {
        /// What was being done.
        what: String,
        /// What the terminal library said.
        #[source]
        source: std::io::Error,
    },
    /// The run was cancelled by the operator.
    #[error("cancelled")]
    Cancelled,
}

impl From<Refusal> for Error {
    fn from(r: Refusal) -> Self {
        Error::Refusal(Box::new(r))
    }
}

impl From<UnknownWord> for Error {
    fn from(e: UnknownWord) -> Self {
        Error::Config(e.to_string())
    }
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

    /// A refusal, before anything was sent or changed, of what was asked.
    pub fn refused(message: impl Into<String>) -> Self {
        Error::Refused(message.into())
    }

    /// A store failure: what was being done, and SQLite's (or the decoder's) error.
    pub fn store(what: impl Into<String>, source: impl Into<Source>) -> Self {
        Error::Store {
            what: what.into(),
            source: Some(source.into()),
        }
    }

    /// A store failure with nothing underneath: what was read is not what it should be.
    pub fn store_says(what: impl Into<String>) -> Self {
        Error::Store {
            what: what.into(),
            source: None,
        }
    }

    /// A document that could not be written.
    pub fn export(what: impl Into<String>, source: impl Into<Source>) -> Self {
        Error::Export {
            what: what.into(),
            source: source.into(),
        }
    }

    /// The terminal failed at `what`.
    pub fn terminal(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Terminal {
            what: what.into(),
            source,
        }
    }

    /// The vendor's refusal, when a vendor cannot carry what was declared.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            Error::Refusal(r) => Some(r),
            _ => None,
        }
    }

    /// Whether this is a configuration error or a vendor's refusal (raised before
    /// any request was sent).
    pub fn is_config(&self) -> bool {
        matches!(self, Error::Config(_) | Error::Refusal(_))
    }

    /// Whether the command ended before anything was sent or done — a
    /// configuration error or a refusal (exit 2) — rather than failing while
    /// working (exit 1).
    pub fn before_anything(&self) -> bool {
        matches!(
            self,
            Error::Config(_) | Error::Refusal(_) | Error::Refused(_)
        )
    }

    /// Whether waiting and sending the same request again could succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Vendor(v) => v.is_retryable(),
            Error::Transport { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// The store at `path` could not be opened: refused before anything ran
    /// (exit 2), saying how to point at another file.
    pub fn store_unusable(path: &std::path::Path, e: &Error) -> Self {
        Error::refused(format!(
            "the store {} cannot be opened ({e}); nothing was run. Pass --store PATH to use \
             another file (or a postgres:// URL), or set `url` under [store] in io.toml",
            crate::core::location::shown(&path.display().to_string())
        ))
    }

    /// An I/O error with the path (or thing) that caused it.
    pub fn io(path: impl AsRef<std::path::Path>, err: impl Into<Source>) -> Self {
        Error::Io {
            path: path.as_ref().display().to_string(),
            source: err.into(),
        }
    }
}

/// An error the vendor itself reported, with everything it said about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider} answered HTTP {status}{}: {message}{}", .error_type.as_deref().map(|t| format!(" {t}")).unwrap_or_default(), .request_id.as_deref().map(|r| format!(" (request id {r})")).unwrap_or_default())]
pub struct VendorError {
    /// The vendor that answered.
    pub provider: Vendor,
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
