//! `io-harness store copy FROM TO`: everything one store holds copied into
//! another — a SQLite file and a PostgreSQL URL either way round — with a
//! progress bar on a terminal and a summary of what was copied and what the
//! target already held (so a second copy copies nothing twice).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use io_harness::core::location::{is_url, shown};
use io_harness::{Error, Result, Store};

/// What to do with stores.
#[derive(Debug, clap::Subcommand)]
pub enum StoreArgs {
    /// Copy every run (its steps, calls, citations, verdicts, claims,
    /// checkpoints), group and eval from FROM into TO, ids remapped; what TO
    /// already holds (by each run's identity) is skipped. Each a SQLite path or
    /// a postgres:// URL.
    Copy {
        /// The store to copy from (left as it is).
        from: PathBuf,
        /// The store to copy into (created and migrated if new).
        to: PathBuf,
        /// The summary as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn name(p: &Path) -> String {
    shown(&p.display().to_string())
}

/// Copy, and say what was done.
pub fn store(args: StoreArgs) -> Result<()> {
    let StoreArgs::Copy { from, to, json } = args;
    if !is_url(&from.to_string_lossy()) && !from.is_file() {
        return Err(Error::refused(format!(
            "there is no store at {}; nothing was copied — give the path of a store file or a postgres:// URL",
            from.display()
        )));
    }
    if from == to {
        return Err(Error::refused(format!(
            "FROM and TO are the same store ({}); nothing was copied",
            name(&from)
        )));
    }
    let source = Store::open(&from).map_err(|e| Error::store_unusable(&from, &e))?;
    let target = Store::open(&to).map_err(|e| Error::store_unusable(&to, &e))?;
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("copying runs {bar:30} {pos}/{len} {eta} left")
    {
        bar.set_style(style);
    }
    let sum = source.copy_into(&target, |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    if json {
        return super::out::json(&serde_json::to_string_pretty(&sum).unwrap_or_default());
    }
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    super::out::print(&format!(
        "copied {} ({}, {}, {}, {}), {}, {} from {} into {}\nalready in {}, skipped: {}, {}, {}\n",
        plural(sum.runs, "run", "runs"),
        plural(sum.steps, "step", "steps"),
        plural(sum.calls, "provider call", "provider calls"),
        plural(sum.citations, "citation", "citations"),
        plural(sum.verdicts, "verdict", "verdicts"),
        plural(sum.groups, "group", "groups"),
        plural(sum.evals, "eval", "evals"),
        name(&from),
        name(&to),
        name(&to),
        plural(sum.runs_skipped, "run", "runs"),
        plural(sum.groups_skipped, "group", "groups"),
        plural(sum.evals_skipped, "eval", "evals"),
    ))
}
