//! The transport: the `Provider` trait a run talks to, an HTTP provider per vendor
//! on reqwest (rustls), bounded retries, and `Fallback` across providers.
//!
//! Knows reqwest, timeouts, retries and API keys — not JSON shapes: every body is
//! made by `core::wire::encode` and read by `core::wire::decode`.

mod body;
mod fallback;
mod http;
pub mod retry;
pub mod scrub;
mod spelling;
pub mod stream;
mod talk;
pub mod tls;

pub use body::{DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT};
pub use fallback::Fallback;
pub use http::{ApiKey, HttpProvider};
pub use retry::RetryPolicy;
pub use stream::DEFAULT_IDLE_TIMEOUT;
pub use talk::{AttemptSink, NoSink, Provider, Reply};
