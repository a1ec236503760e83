//! `io-harness export otlp [RUN_ID ...] [--since DATE]`: stored runs sent to the
//! OTLP collector `[telemetry]` (or `OTEL_EXPORTER_OTLP_ENDPOINT`) names, as
//! traces with their original timestamps, so a team can backfill. Without
//! RUN_IDs every run started since DATE (all runs without --since) is sent.

use std::path::PathBuf;

use io_harness::launch::Launch;
use io_harness::telemetry::{self, Telemetry, backfill};
use io_harness::{Config, Error, Result, RunId};

/// What to export.
#[derive(Debug, clap::Subcommand)]
pub enum ExportArgs {
    /// Send stored runs to an OTLP collector as GenAI traces, over OTLP/HTTP
    /// (protobuf) or OTLP/gRPC (`protocol = "grpc"` under [telemetry], or
    /// OTEL_EXPORTER_OTLP_PROTOCOL=grpc).
    Otlp {
        /// The runs (default: every run, or those since --since).
        run_ids: Vec<i64>,
        /// Only runs started on or after this date (YYYY-MM-DD, or an RFC 3339 time).
        #[arg(long, conflicts_with = "run_ids")]
        since: Option<String>,
    },
}

/// Send and say what went out.
pub async fn export(
    config_path: Option<PathBuf>,
    store_path: Option<PathBuf>,
    args: ExportArgs,
) -> Result<()> {
    let ExportArgs::Otlp { run_ids, since } = args;
    let since = since.as_deref().map(since_key).transpose()?;
    let loaded = Config::discover(config_path.as_deref())?;
    let launch = Launch::resolve(&loaded, false);
    let plan = launch.plan();
    let settings = telemetry::resolved(loaded.config.telemetry.as_ref())?;
    let Some((endpoint, _)) = settings.endpoint.clone() else {
        return Err(Error::config(
            "no OTLP endpoint: set otlp_endpoint under [telemetry] in io.toml, or OTEL_EXPORTER_OTLP_ENDPOINT. Nothing was sent.",
        ));
    };
    let (store, _) = launch.open_store(store_path)?;
    let ids: Vec<RunId> = run_ids.into_iter().map(RunId).collect();
    let mut runs = backfill::choose(&store, &ids, since.as_deref())?;
    // A private eval's runs (BrowseComp's by default) hold its questions and
    // answers: never exported.
    let chosen = runs.len();
    let mut kept = Vec::with_capacity(chosen);
    for run in runs {
        if !store.is_private(run.run_id)? {
            kept.push(run);
        }
    }
    runs = kept;
    if runs.len() < chosen {
        super::out::note(&format!(
            "left out {} run{} of a private eval: its questions and answers are not exported",
            chosen - runs.len(),
            if chosen - runs.len() == 1 { "" } else { "s" }
        ));
    }
    let endpoints = plan.vendors.values().map(|s| &s.endpoint);
    let Some(t) = Telemetry::start(&settings, telemetry::vendor_secrets(endpoints))? else {
        return Ok(());
    };
    let prices = &plan.prices;
    let mut spans = 0;
    for run in &runs {
        let base_url = plan.setup(run.provider).endpoint.base_url.clone();
        let shape = t.shape(&base_url);
        let root = opentelemetry::Context::new();
        spans += backfill::send_run(&shape, &store, prices, run, "io-harness", &root)?;
    }
    let shown = io_harness::provider::scrub::display_url(&endpoint);
    let trouble = tokio::task::spawn_blocking(move || t.finish_stored())
        .await
        .unwrap_or_else(|e| Some(format!("telemetry: the export thread failed: {e}")));
    match trouble {
        Some(line) => Err(Error::export(
            line,
            format!(
                "{} run{} read from the store; send them again once the collector is reachable",
                runs.len(),
                if runs.len() == 1 { " was" } else { "s were" }
            ),
        )),
        None => {
            super::out::note(&format!(
                "sent {} run{} ({spans} spans) to {shown}",
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            ));
            Ok(())
        }
    }
}

/// A date or an RFC 3339 time as text comparable with the store's `started_at`
/// (UTC, milliseconds).
fn since_key(s: &str) -> Result<String> {
    let date = s.len() == 10
        && s.char_indices().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    if date {
        return Ok(s.to_string());
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        let utc = t.with_timezone(&chrono::Utc);
        return Ok(utc.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    }
    Err(Error::config(format!(
        "--since {s:?} is not a date; expected YYYY-MM-DD (such as 2026-01-31) or an RFC 3339 time. Nothing was sent."
    )))
}
