//! Runs as OpenTelemetry traces in the GenAI semantic conventions, for teams that
//! look at everything in one OTLP backend (Jaeger, Tempo, Honeycomb, Phoenix…).
//!
//! `settings` reads `[telemetry]` and the `OTEL_*` variables; `spans` turns what
//! a run did into spans; `live` is the `Observer` that does it as a run goes;
//! `backfill` does it for stored runs, with their original timestamps; `queue`
//! is the only way out, bounded and off the run's thread. Off unless an
//! endpoint is configured; it never blocks, slows or fails a run.
//!
//! `settings` is always built (io.toml's `[telemetry]` is checked and listed
//! whatever the build); the exporter and the spans need the `otlp` feature.

#[cfg(feature = "otlp")]
pub mod backfill;
#[cfg(feature = "otlp")]
mod exporter;
#[cfg(feature = "otlp")]
mod headers;
#[cfg(feature = "otlp")]
pub mod live;
#[cfg(feature = "otlp")]
pub mod queue;
pub mod settings;
#[cfg(feature = "otlp")]
pub mod spans;

#[cfg(feature = "otlp")]
pub use exporter::{FINISH_GRACE, Telemetry, vendor_secrets};
#[cfg(feature = "otlp")]
pub use live::TraceObserver;
#[cfg(feature = "otlp")]
pub use queue::{EXPORT_TIMEOUT, QUEUE_SPANS, Scrub};
pub use settings::{Protocol, Resolved, Stated, resolved};
