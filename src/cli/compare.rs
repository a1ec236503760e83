//! `io-harness compare GROUP_ID [--json]`: a run group side by side — per run its
//! outcome, steps, tokens, cost, wall time, searches, citations and domains; the
//! vendors that did not run and why; the overlap of cited domains and URLs between each pair;
//! each final answer's first lines; its cited share, verified share and unsupported
//! count (`--check` checks every run's sources first).

use std::path::PathBuf;

use io_harness::check::{Limits, check_run};
use io_harness::core::compare::table::render;
use io_harness::{Config, Error, Result, Store};

use super::out;
use io_harness::core::id::GroupId;
use io_harness::core::verdict::Verdict;

/// Print group `group_id` compared; with `check`, every run's sources checked first.
pub async fn compare(
    config: Option<PathBuf>,
    store: Option<PathBuf>,
    group_id: GroupId,
    json: bool,
    check: bool,
) -> Result<()> {
    let loaded = Config::discover(config.as_deref())?;
    let path = store.unwrap_or_else(|| loaded.config.store_path(loaded.path.as_deref()));
    let store = Store::open(&path).map_err(|e| Error::store_unusable(&path, &e))?;
    if check {
        check_group(&store, group_id, &loaded.config, &path).await?;
    }
    let Some(c) = store.comparison(group_id, &loaded.config.price_table())? else {
        return Err(Error::refused(format!(
            "there is no run group {group_id} in {}; `io-harness runs` shows each run's group",
            path.display()
        )));
    };
    if json {
        return out::json(&serde_json::to_string_pretty(&c).unwrap_or_default());
    }
    out::print(&render(&c))
}

/// Check every run of the group under the policy, as `check-sources` does.
async fn check_group(
    store: &Store,
    group_id: GroupId,
    config: &Config,
    path: &std::path::Path,
) -> Result<()> {
    let Some(group) = store.group(group_id)? else {
        return Err(Error::refused(format!(
            "there is no run group {group_id} in {}; `io-harness runs` shows each run's group",
            path.display()
        )));
    };
    check_runs(store, &group.runs, &config.policy()).await
}

/// Check each of `runs`' sources under `policy`, as `check-sources` does, one
/// line a run on stderr. `compare --check` and `eval --check` both come here.
pub(super) async fn check_runs(
    store: &Store,
    runs: &[io_harness::core::id::RunId],
    policy: &io_harness::Policy,
) -> Result<()> {
    for &id in runs {
        let rows = check_run(store, id, policy, Limits::default()).await?;
        let found = rows.iter().filter(|r| r.verdict == Verdict::Found).count();
        out::note(&format!(
            "checked run {id}: {found} of {} sources found",
            rows.len()
        ));
    }
    Ok(())
}
