//! One goal on several vendors at once: a run group. Each vendor that can carry
//! the declaration gets its own copy of the operator's workspace and its own run,
//! all concurrent in one task, sharing one cancellation and (when set) one dollar
//! cap; a vendor that cannot carry it, or cannot start (no key, its copy could
//! not be made), is recorded with its reason and the others run. Every run is an
//! ordinary run of the store, resumable on its own.
//!
//! The copies (`run::copy`: what ignore files exclude, `.git`, the store's folder
//! and earlier copies left out) are measured first: a group whose copies would
//! not fit where they go is refused before anything is copied, recorded or sent,
//! naming the sizes. Each copy is removed when its run ends, unless
//! `Copies::keep` says to keep them (`--keep-copies`); a run killed before its
//! end keeps its copy, so `run --resume` finds it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::approve::Approver;
use crate::core::contract::TaskContract;
use crate::core::error::{Error, Result};
use crate::core::id::{GroupId, RunId};
use crate::core::policy::Policy;
use crate::core::vendor::Vendor;
use crate::provider::Provider;
use crate::run::copy::{Copied, copy_workspace, measure, remove_copy, remove_emptied, size};
use crate::run::observe::Observer;
use crate::run::options::{GroupBudget, RunOptions, RunResult};
use crate::store::{NewGroup, Store};

/// One vendor of a comparison: its name and its provider, or why none could be
/// built (a key not set).
pub struct Entrant<P> {
    /// The vendor's name (`anthropic`, `openai`, `openrouter`).
    pub vendor: Vendor,
    /// Its provider, or why there is none.
    pub provider: Result<P>,
    /// Who sees its events.
    pub observer: Arc<dyn Observer>,
}

/// How one vendor's column of a comparison ended.
#[derive(Debug)]
pub enum Column {
    /// It ran (to any outcome, cancelled included).
    Ran(RunResult),
    /// It could not carry the declaration: the spec's refusal, as said.
    Refused(String),
    /// It did not start: no key, an unpriced dollar cap, a store error. Recorded
    /// beside the refusals, so a comparison names every vendor asked.
    NotStarted(String),
}

/// What a comparison did, per vendor in the order given.
#[derive(Debug)]
pub struct GroupResult {
    /// The group's id in the store.
    pub group_id: GroupId,
    /// Per vendor: its name, its workspace copy (none when it did not run), how it ended.
    pub columns: Vec<(Vendor, Option<PathBuf>, Column)>,
    /// Whether the copies were kept; removed as each run ended otherwise.
    pub kept: bool,
}

/// Where a comparison's workspace copies go: under the store's data directory
/// (the folder its file is in), one folder per group and vendor.
#[derive(Debug, Clone)]
pub struct Copies {
    /// The store's data directory.
    pub data_dir: PathBuf,
    /// The store's file, never copied (nor its `-wal`, `-shm`, `-journal`).
    pub store_file: Option<PathBuf>,
    /// Told of each copy once made (before any run starts), to show progress.
    pub announce: Option<Announce>,
    /// Keep each copy when its run ends (`--keep-copies`); removed otherwise.
    pub keep: bool,
}

/// Told of one copy: the vendor, where, and how much it holds.
pub type Tell = dyn Fn(Vendor, &Path, Copied) + Send + Sync;

/// What is told of each copy.
#[derive(Clone)]
pub struct Announce(pub Arc<Tell>);

impl std::fmt::Debug for Announce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Announce")
    }
}

impl Copies {
    /// The copies beside the store file at `store_file`.
    ///
    /// A store on PostgreSQL has no folder here: its copies go in the
    /// platform data directory's `io-harness` folder.
    pub fn beside(store_file: &Path) -> Copies {
        if crate::core::location::is_url(&store_file.to_string_lossy()) {
            return Copies {
                data_dir: dirs::data_dir()
                    .map_or_else(|| PathBuf::from("."), |d| d.join("io-harness")),
                store_file: None,
                announce: None,
                keep: false,
            };
        }
        let data_dir = match store_file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Copies {
            data_dir,
            store_file: Some(store_file.to_path_buf()),
            announce: None,
            keep: false,
        }
    }

    /// The folder of group `group_id`'s copies.
    pub fn group_dir(&self, group_id: GroupId) -> PathBuf {
        self.data_dir.join("groups").join(group_id.to_string())
    }

    /// What a copy of `workspace` leaves out: the copies' own folder, the
    /// store's files, and the store's whole folder when it lies inside the
    /// workspace (not when it is the workspace, or holds it).
    fn skip(&self, workspace: &Path) -> Vec<PathBuf> {
        let mut skip = vec![self.data_dir.join("groups")];
        let inside = match (self.data_dir.canonicalize(), workspace.canonicalize()) {
            (Ok(data), Ok(ws)) => data != ws && data.starts_with(&ws),
            _ => false,
        };
        if inside {
            skip.push(self.data_dir.clone());
        }
        if let Some(f) = &self.store_file {
            skip.push(f.clone());
            for suffix in ["-wal", "-shm", "-journal"] {
                let mut name = f.as_os_str().to_owned();
                name.push(suffix);
                skip.push(PathBuf::from(name));
            }
        }
        skip
    }
}

/// Where a group's runs are recorded and work, and what they run under.
pub struct Venue<'a, A: ?Sized> {
    /// The store every run records into.
    pub store: &'a Store,
    /// Where the workspace copies go.
    pub copies: &'a Copies,
    /// The policy local tools run under.
    pub policy: &'a Policy,
    /// Who answers what the policy asks.
    pub approver: &'a A,
}

/// Run `contract` on every entrant at once, as a new group recorded in the
/// venue's store, each in a copy of `contract.workspace` made where its `copies`
/// say (the store's files and the copies' own folder are never copied).
/// `options` is what every run is given (its cancellation cancels them all);
/// `cap` is the group's dollar cap.
pub async fn run_group<P, A>(
    venue: &Venue<'_, A>,
    contract: &TaskContract,
    entrants: Vec<Entrant<P>>,
    options: RunOptions,
    cap: Option<u64>,
) -> Result<GroupResult>
where
    P: Provider,
    A: Approver + ?Sized,
{
    fits(venue.copies, contract, &entrants)?;
    let group_id = venue.store.create_group(&NewGroup {
        goal: contract.goal.clone(),
        workspace: absolute(&contract.workspace).display().to_string(),
        max_usd_micro: cap,
        private: false,
    })?;
    in_group(venue, contract, entrants, options, cap, group_id).await
}

/// Refuse a group whose copies would not fit where they go: the workspace
/// measured as it would be copied, times the runs that would start, against the
/// space free there (its files' blocks counted, so many small files are not
/// underestimated). Nothing is copied, recorded or sent when it does not fit.
fn fits<P: Provider>(
    copies: &Copies,
    contract: &TaskContract,
    entrants: &[Entrant<P>],
) -> Result<()> {
    let runs = entrants
        .iter()
        .filter(|e| matches!(&e.provider, Ok(p) if p.carries(contract.web.as_ref()).is_ok()))
        .count() as u64;
    if runs == 0 {
        return Ok(());
    }
    let ws = &contract.workspace;
    let m = measure(ws, &copies.skip(ws)).map_err(|e| Error::io(ws, e))?;
    std::fs::create_dir_all(&copies.data_dir).map_err(|e| Error::io(&copies.data_dir, e))?;
    let Some((free, block)) = crate::machine::space::free(&copies.data_dir) else {
        return Ok(());
    };
    let each = m
        .bytes
        .saturating_add(m.files.saturating_add(1).saturating_mul(block));
    let need = each.saturating_mul(runs);
    if need <= free {
        return Ok(());
    }
    Err(Error::refused(format!(
        "the workspace {} holds {} in {} file{} (what its ignore files exclude not counted); {runs} \
         cop{} of it need about {}, but {} has {} free — nothing was copied or sent. Free space \
         there, put the store (and so the copies) elsewhere with --store or store.path, or leave \
         build outputs out of the copies with a .gitignore",
        absolute(ws).display(),
        size(m.bytes),
        m.files,
        if m.files == 1 { "" } else { "s" },
        if runs == 1 { "y" } else { "ies" },
        size(need),
        absolute(&copies.data_dir).display(),
        size(free),
    )))
}

/// `run_group` in a group that already exists (a replay's).
pub async fn run_in_group<P, A>(
    venue: &Venue<'_, A>,
    contract: &TaskContract,
    entrants: Vec<Entrant<P>>,
    options: RunOptions,
    cap: Option<u64>,
    group_id: GroupId,
) -> Result<GroupResult>
where
    P: Provider,
    A: Approver + ?Sized,
{
    fits(venue.copies, contract, &entrants)?;
    in_group(venue, contract, entrants, options, cap, group_id).await
}

async fn in_group<P, A>(
    venue: &Venue<'_, A>,
    contract: &TaskContract,
    entrants: Vec<Entrant<P>>,
    options: RunOptions,
    cap: Option<u64>,
    group_id: GroupId,
) -> Result<GroupResult>
where
    P: Provider,
    A: Approver + ?Sized,
{
    let Venue { store, copies, .. } = *venue;
    let budget = cap.map(|c| Arc::new(GroupBudget::new(c)));
    let mut options = options;
    let gate = options.gate.take();
    let dir = copies.group_dir(group_id);
    let skip = copies.skip(&contract.workspace);
    let mut columns = Vec::new();
    let mut ready = Vec::new();
    for (i, entrant) in entrants.into_iter().enumerate() {
        let provider = match entrant.provider {
            Ok(p) => p,
            Err(e) => {
                let column = not_started(store, group_id, entrant.vendor, &e)?;
                columns.push((i, entrant.vendor, None, column));
                continue;
            }
        };
        if let Err(e) = provider.carries(contract.web.as_ref()) {
            let said = e.to_string();
            store.record_refusal(group_id, entrant.vendor, &said)?;
            columns.push((i, entrant.vendor, None, Column::Refused(said)));
            continue;
        }
        // A copy that fails (a full disk, too many open files) ends this
        // vendor's part only, recorded as not started.
        let copy = match own_copy(&contract.workspace, &dir, entrant.vendor, &skip, copies) {
            Ok(copy) => copy,
            Err(e) => {
                let column = not_started(store, group_id, entrant.vendor, &e)?;
                columns.push((i, entrant.vendor, None, column));
                continue;
            }
        };
        store.clear_refusal(group_id, entrant.vendor)?;
        let mut own = contract.clone();
        own.workspace = copy.clone();
        let options = RunOptions {
            observer: entrant.observer,
            group_id: Some(group_id),
            group_budget: budget.clone(),
            ..options.clone()
        };
        ready.push((i, entrant.vendor, copy, own, provider, options));
    }
    let runs = ready
        .iter()
        .map(|(_, vendor, copy, own, provider, options)| {
            run_in_copy(venue, gate.clone(), *vendor, copy, own, provider, options)
        })
        .collect::<Vec<_>>();
    let results = futures_util::future::join_all(runs).await;
    for ((i, vendor, copy, ..), result) in ready.into_iter().zip(results) {
        let column = match result {
            Ok(r) => Column::Ran(r),
            Err(e) => not_started(store, group_id, vendor, &e)?,
        };
        columns.push((i, vendor, Some(copy), column));
    }
    columns.sort_by_key(|c| c.0);
    if !copies.keep {
        // The group's folder, when every copy in it is gone.
        let _ = remove_emptied(&dir);
    }
    Ok(GroupResult {
        group_id,
        columns: columns.into_iter().map(|(_, v, p, c)| (v, p, c)).collect(),
        kept: copies.keep,
    })
}

/// One vendor's run in its own copy, once the group's gate lets it start; the
/// copy is removed when the run ends unless the group keeps its copies (a killed
/// process never gets that far: its copy stays for `run --resume`).
async fn run_in_copy<P, A>(
    venue: &Venue<'_, A>,
    gate: Option<Arc<tokio::sync::Semaphore>>,
    vendor: Vendor,
    copy: &Path,
    own: &TaskContract,
    provider: &P,
    options: &RunOptions,
) -> Result<RunResult>
where
    P: Provider,
    A: Approver + ?Sized,
{
    // Held to the run's end; a closed gate is no gate.
    let _permit = match &gate {
        Some(g) => g.acquire().await.ok(),
        None => None,
    };
    let ran = crate::run::run_with_options(
        own,
        provider,
        venue.store,
        venue.policy,
        venue.approver,
        options.clone(),
    )
    .await;
    if !venue.copies.keep {
        if let Err(e) = remove_copy(copy) {
            tracing::warn!(
                "{vendor}'s workspace copy {} not removed: {e}",
                copy.display()
            );
        }
    }
    ran
}

/// `vendor`'s own copy of `workspace` in the group's folder `dir`, announced.
/// Absolute, so the run resumes (and a replay copies) from any directory.
fn own_copy(
    workspace: &Path,
    dir: &Path,
    vendor: Vendor,
    skip: &[PathBuf],
    copies: &Copies,
) -> Result<PathBuf> {
    let copy = absolute(&unused(dir, vendor));
    let copied = copy_workspace(workspace, &copy, skip).map_err(|e| {
        Error::io(
            workspace,
            format!(
                "could not be copied for {vendor} into {}: {e}",
                copy.display()
            ),
        )
    })?;
    if let Some(Announce(say)) = &copies.announce {
        say(vendor, &copy, copied);
    }
    Ok(copy)
}

/// `path` made absolute against the current directory (not resolved: a link
/// stays a link); as given when there is no current directory.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A vendor that did not start, recorded beside the refusals.
fn not_started(store: &Store, group_id: GroupId, vendor: Vendor, e: &Error) -> Result<Column> {
    let said = e.to_string();
    store.record_refusal(group_id, vendor, &said)?;
    Ok(Column::NotStarted(said))
}

/// The copy's folder: `<group>/<vendor>`, or `<vendor>-2`, … when a replay on
/// the same vendor already has one.
fn unused(dir: &Path, vendor: Vendor) -> PathBuf {
    let first = dir.join(vendor.as_str());
    (2..)
        .map(|n| dir.join(format!("{vendor}-{n}")))
        .take(10_000)
        .find(|p| !p.exists())
        .filter(|_| first.exists())
        .unwrap_or(first)
}

/// What a replay starts from: a stored run's goal, declaration, verification and
/// budgets, to be run in a fresh copy of the workspace it started from — never its
/// transcript, so nothing one vendor sent (its encrypted blocks included) reaches
/// another.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The task, its workspace the operator's (a grouped run's own is a copy).
    pub contract: TaskContract,
    /// The original's group, when it has one.
    pub group_id: Option<GroupId>,
    /// The run replayed.
    pub original: RunId,
}

impl Replay {
    /// The task of stored run `id`; a config error when there is none.
    pub fn of(store: &Store, id: RunId) -> Result<Replay> {
        let Some(run) = store.run(id)? else {
            return Err(Error::refused(format!(
                "there is no run {id} in the store; `io-harness runs` lists them"
            )));
        };
        let Some(checkpoint) = store.load_checkpoint(id)? else {
            return Err(Error::refused(format!(
                "run {id} has no recorded task to replay"
            )));
        };
        let mut contract = checkpoint.contract;
        if let Some(group) = run.group_id.map(|g| store.group(g)).transpose()?.flatten() {
            contract.workspace = PathBuf::from(group.workspace);
        }
        Ok(Replay {
            contract,
            group_id: run.group_id,
            original: id,
        })
    }

    /// The group the replay joins: the original's, else a new one with the
    /// original put in it.
    pub fn group(&self, store: &Store, cap: Option<u64>) -> Result<GroupId> {
        if let Some(g) = self.group_id {
            return Ok(g);
        }
        let group_id = store.create_group(&NewGroup {
            goal: self.contract.goal.clone(),
            workspace: absolute(&self.contract.workspace).display().to_string(),
            max_usd_micro: cap,
            private: false,
        })?;
        store.join_group(self.original, group_id)?;
        Ok(group_id)
    }
}
