//! `io-harness eval FILE --providers a,b,c`: a question set (JSON Lines) run
//! across vendors, each question a run group, scored deterministically
//! (`core::eval`), stored (`evals` lists them, `--resume` continues one), and
//! printed as a matrix a row a vendor and a table a row a question and vendor
//! (`--json`, `--format csv|markdown`). A progress bar on a terminal; nothing
//! on a pipe. `eval --demo` runs the bundled five questions on the stub vendor.
//! `io-harness evals` lists the stored evals.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use io_harness::core::eval::{self, EvalReport, JudgeSpec, Question, SetName, Subset, table};
use io_harness::launch::{
    EvalCall, EvalEnd, EvalProgress, JOBS_BOUND, Launch, MAX_JOBS, workspace_ready,
};
use io_harness::store::{EvalRow, NewEval};
use io_harness::{Error, Result, Store, Vendor};

use super::{out, task};
use io_harness::core::id::EvalId;

/// The bundled question set `eval --demo` runs.
const DEMO_SET: &str = include_str!("../../demo/eval-demo.jsonl");

/// The bundled sample of each published set `eval --demo --set NAME` runs
/// (demo/sets/: invented rows in each set's published form; the stub answers
/// them), and the name its report gives it.
fn demo_sample(set: SetName) -> (&'static str, &'static str) {
    match set {
        SetName::Own => ("demo", DEMO_SET),
        SetName::SimpleQa => (
            "demo/simple_qa_test_set.csv",
            include_str!("../../demo/sets/simple_qa_test_set.demo.csv"),
        ),
        SetName::SimpleQaVerified => (
            "demo/simpleqa_verified.csv",
            include_str!("../../demo/sets/simpleqa_verified.sample.csv"),
        ),
        SetName::Frames => (
            "demo/test.tsv",
            include_str!("../../demo/sets/frames_test.sample.tsv"),
        ),
        SetName::SealQa => (
            "demo/seal-0.jsonl",
            include_str!("../../demo/sets/seal-0.sample.jsonl"),
        ),
        SetName::DeepSearchQa => (
            "demo/DSQA-full.csv",
            include_str!("../../demo/sets/DSQA-full.sample.csv"),
        ),
        SetName::BrowseComp => (
            "demo/browse_comp_test_set.csv",
            include_str!("../../demo/sets/browse_comp_test_set.sample.csv"),
        ),
    }
}

/// The flags of `eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The question set: JSON Lines, one `{"id", "question", "answers", "urls"}`
    /// a line (`answers` and `urls` optional), or a published set's file as
    /// published (SimpleQA, SimpleQA Verified, FRAMES, SealQA, DeepSearchQA,
    /// BrowseComp: recognised from its header). With --demo, the bundled set when omitted.
    pub file: Option<PathBuf>,
    /// The set FILE is (simpleqa, simpleqa-verified, frames, sealqa,
    /// deepsearchqa, browsecomp, jsonl), when its header should not decide.
    #[arg(long, value_name = "NAME")]
    pub set: Option<String>,
    /// Run only the file's first N questions.
    #[arg(long, value_name = "N", conflicts_with_all = ["sample", "resume"])]
    pub limit: Option<usize>,
    /// Run N questions drawn at random with --seed (the same N and seed draw
    /// the same questions of the same file every time).
    #[arg(long, value_name = "N", conflicts_with = "resume")]
    pub sample: Option<usize>,
    /// The seed --sample draws with (default 0).
    #[arg(long, value_name = "S", requires = "sample")]
    pub seed: Option<u64>,
    /// Keep the eval's questions and answers out of the search index and out
    /// of exports (on by default for BrowseComp, whose authors ask that its
    /// plaintext not be published; `--private=false` turns it off).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL", conflicts_with = "resume")]
    pub private: Option<bool>,
    /// Grade each answered run with a model: VENDOR or VENDOR:MODEL (never by
    /// default). The report then gives accuracy, accuracy given attempted and F1.
    #[arg(long, value_name = "VENDOR[:MODEL]", conflicts_with = "resume")]
    pub judge: Option<String>,
    /// Print the judge's grading prompt and exit (with --judge).
    #[arg(long, requires = "judge")]
    pub show_prompt: bool,
    /// The vendors, e.g. anthropic,openai,openrouter,gemini,xai,perplexity (--demo: all six).
    #[arg(long, value_delimiter = ',')]
    pub providers: Vec<String>,
    /// At most this many runs at once, across questions (default 4, at most 64).
    #[arg(long)]
    pub jobs: Option<u32>,
    /// Start no further question once the eval's runs have cost this many US dollars.
    #[arg(long)]
    pub max_usd: Option<f64>,
    /// Continue a stopped eval: only the questions that had not ended run.
    #[arg(long, conflicts_with_all = ["file", "providers", "demo"])]
    pub resume: Option<EvalId>,
    /// Run on the built-in loopback stub vendor: no key, nothing leaves this machine.
    #[arg(long)]
    pub demo: bool,
    /// Before scoring, check every run's sources under [policy] (as `compare
    /// --check`): fills each run's verified share and unsupported count.
    #[arg(long)]
    pub check: bool,
    /// The report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// The report as `markdown` (both tables) or `csv` (a row a question and vendor).
    #[arg(long, conflicts_with = "json")]
    pub format: Option<String>,
    /// Approve every `Ask` effect (default: refuse them; there is no one to ask).
    #[arg(long)]
    pub approve_all: bool,
}

/// What an eval runs: its id, its vendors, its runs at once, its cap.
struct Plan {
    eval_id: EvalId,
    vendors: Vec<Vendor>,
    jobs: u32,
    cap: Option<u64>,
}

/// How `eval` ended once its report was printed: every question it could run
/// ended, or some were left pending (said on stderr; exit 2 when nothing was
/// sent, else 1).
pub enum Ended {
    /// Nothing left pending by a vendor that could not start or a failure.
    Done,
    /// Questions left pending: why, and whether no run started at all.
    Pending {
        /// What kept them pending and how to continue.
        said: String,
        /// No run was started by this call.
        nothing_sent: bool,
    },
}

/// The exit code of `eval`.
pub fn exit(result: Result<Ended>) -> std::process::ExitCode {
    match result {
        Ok(Ended::Done) => std::process::ExitCode::SUCCESS,
        Ok(Ended::Pending { said, nothing_sent }) => {
            out::note(&said);
            std::process::ExitCode::from(if nothing_sent { 2 } else { 1 })
        }
        Err(e) => super::exit::fail(&e),
    }
}

/// Run (or resume) an eval and print its report.
pub async fn go(
    config: Option<PathBuf>,
    store_path: Option<PathBuf>,
    args: EvalArgs,
) -> Result<Ended> {
    let format = Format::of(args.json, args.format.as_deref())?;
    let judge = args
        .judge
        .as_deref()
        .map(|j| JudgeSpec::parse(j).map_err(|e| Error::config(format!("--judge {j}: {e}"))))
        .transpose()?;
    if args.show_prompt {
        out::print(eval::judge::PROMPT)?;
        out::print("\n")?;
        return Ok(Ended::Done);
    }
    let cap = task::max_usd(args.max_usd)?;
    let jobs = args.jobs.unwrap_or(4);
    if jobs == 0 {
        return Err(Error::config("--jobs 0 runs nothing: give 1 or more"));
    }
    if jobs > MAX_JOBS {
        return Err(Error::config(format!(
            "--jobs {jobs}: at most {MAX_JOBS} runs at once — {JOBS_BOUND}"
        )));
    }
    // A resumed eval runs as it was started: on the stub when it was the demo.
    let (stored, demo) = match args.resume {
        Some(id) => {
            let launch = task::launch(config.as_deref(), false)?;
            let (store, path) = launch.open_store(store_path.clone())?;
            let row = store.eval(id)?.ok_or_else(|| {
                Error::refused(format!(
                    "there is no eval {id} in {}; `io-harness evals` lists them",
                    io_harness::core::location::shown(&path.display().to_string())
                ))
            })?;
            let demo = row.demo;
            (Some(row), demo)
        }
        None => (None, args.demo),
    };
    let mut launch = task::launch(config.as_deref(), demo)?;
    let (store, path) = launch.open_store(store_path)?;
    let plan = match stored {
        Some(row) => resumed(&store, row, args.jobs, cap)?,
        None => fresh(&store, &launch, &args, (jobs, cap), judge)?,
    };
    // Claimed from here (a fresh eval as it was created, a resumed one in
    // `resumed`): released however the run ends, so `evals` says it stopped.
    let text = format == Format::Text;
    let ran = run(&mut launch, &store, &path, &plan, &args, demo, text).await;
    let released = store.release_eval(plan.eval_id);
    let end = ran?;
    released?;
    if args.check {
        let runs: Vec<_> = store
            .eval_questions(plan.eval_id, &launch.plan().prices)?
            .iter()
            .flat_map(|q| q.runs.iter().map(|r| r.run_id))
            .collect();
        super::compare::check_runs(&store, &runs, &launch.plan().policy).await?;
    }
    let report = report(&store, &launch, plan.eval_id)?;
    format.print(&report)?;
    Ok(ended(plan.eval_id, &end))
}

/// Eval `plan` run: the workspace checked, the stub (for the demo), telemetry
/// and MCP started, its questions run with a progress bar, and what kept any
/// pending.
async fn run(
    launch: &mut Launch,
    store: &Store,
    path: &std::path::Path,
    plan: &Plan,
    args: &EvalArgs,
    demo: bool,
    text: bool,
) -> Result<EvalEnd> {
    workspace_ready(&launch.plan().task.workspace)?;
    if demo {
        launch.serve_with(io_harness::stub::demo::eval_stub().await?);
    }
    launch.start_telemetry()?;
    launch.start_mcp().await?;
    let total = store.eval(plan.eval_id)?.map_or(0, |r| r.questions);
    if text {
        out::note(&format!(
            "eval {}: {total} question{} × {} ({}), at most {} run{} at once",
            plan.eval_id,
            if total == 1 { "" } else { "s" },
            plan.vendors.len(),
            names(&plan.vendors),
            plan.jobs,
            if plan.jobs == 1 { "" } else { "s" }
        ));
    }
    let copies = io_harness::run::group::Copies::beside(path);
    let bar = Bar::new(store, plan.eval_id, total);
    let approver: &dyn io_harness::Approver = if args.approve_all {
        &io_harness::ApproveAll
    } else {
        &io_harness::NobodyToAsk
    };
    let call = EvalCall {
        store,
        copies: &copies,
        approver,
        cancel: task::cancel_on_ctrl_c(),
        progress: &bar,
    };
    let ran = launch
        .eval(plan.eval_id, &plan.vendors, plan.jobs, plan.cap, call)
        .await;
    bar.0.finish_and_clear();
    if let Some(line) = launch.finish().await {
        out::note(&line);
    }
    ran
}

/// What kept questions pending, a line a cause, and how to continue.
fn ended(eval_id: EvalId, end: &EvalEnd) -> Ended {
    if end.finished() {
        return Ended::Done;
    }
    let mut ids: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for (vendor, why, qs) in &end.not_started {
        lines.push(format!("  {vendor} did not start: {why} ({})", some(qs)));
        ids.extend(qs.iter().map(String::as_str));
    }
    for (id, why) in &end.failed {
        lines.push(format!("  {id} failed: {why}"));
        ids.push(id);
    }
    ids.sort_unstable();
    ids.dedup();
    let n = ids.len();
    Ended::Pending {
        said: format!(
            "eval {eval_id}: {n} question{} left pending; `io-harness eval --resume {eval_id}` runs them once this is fixed:\n{}",
            if n == 1 { "" } else { "s" },
            lines.join("\n")
        ),
        nothing_sent: end.started == 0,
    }
}

/// The first few of `ids`, and how many more.
fn some(ids: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = ids
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    text
}

/// The stored eval `row` again, under `--jobs` and `--max-usd` when given.
fn resumed(store: &Store, row: EvalRow, jobs: Option<u32>, cap: Option<u64>) -> Result<Plan> {
    // Claimed before anything changes: another process running it refuses this.
    store.claim_eval(row.eval_id)?;
    let vendors = row.vendors.clone();
    let cap = cap.or(row.max_usd_micro);
    store.eval_resumed(row.eval_id, cap)?;
    Ok(Plan {
        eval_id: row.eval_id,
        vendors,
        jobs: jobs.unwrap_or(row.jobs).clamp(1, MAX_JOBS),
        cap,
    })
}

/// A new eval: the questions read and checked, the vendors named, recorded.
fn fresh(
    store: &Store,
    launch: &Launch,
    args: &EvalArgs,
    (jobs, cap): (u32, Option<u64>),
    judge: Option<JudgeSpec>,
) -> Result<Plan> {
    let read = questions(args)?;
    let subset = subset(args)?;
    let rows = read.questions.len();
    let picked = subset.pick(rows);
    let mut all = read.questions;
    let questions: Vec<Question> = picked
        .iter()
        .filter_map(|&i| all.get_mut(i).map(std::mem::take))
        .collect();
    let private = args
        .private
        .unwrap_or_else(|| read.set.private_by_default());
    let vendors = vendors(&args.providers, args.demo)?;
    // Each question's task is checked as `run` checks one, before any is recorded.
    if let Some(q) = questions.first() {
        task::require_goal(&launch.eval_contract(q))?;
    }
    let eval_id = store.create_eval(&NewEval {
        file: read.file,
        vendors: vendors.clone(),
        jobs,
        max_usd_micro: cap,
        demo: args.demo,
        questions,
        set: read.set,
        revision: read.revision,
        rows: Some(rows as u64),
        subset,
        judge,
        private,
    })?;
    Ok(Plan {
        eval_id,
        vendors,
        jobs,
        cap,
    })
}

/// A question file read: how the eval names it, the set it is, its
/// questions (all of them) and its revision.
struct Read {
    file: String,
    set: SetName,
    questions: Vec<Question>,
    revision: Option<String>,
}

/// The question set FILE names (or the bundled one with --demo, or the
/// bundled sample of the set `--set` names), and how the eval names it.
fn questions(args: &EvalArgs) -> Result<Read> {
    let set = args
        .set
        .as_deref()
        .map(|s| {
            s.parse::<SetName>().map_err(|_| {
                Error::config(format!(
                    "--set {s}: not a set eval reads; give one of {}",
                    <SetName as io_harness::core::word::Word>::ALL
                        .iter()
                        .map(|n| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .transpose()?;
    match &args.file {
        Some(path) => {
            let f = io_harness::launch::read_set(path, set)?;
            Ok(Read {
                file: path.display().to_string(),
                set: f.set,
                questions: f.questions,
                revision: Some(f.revision),
            })
        }
        None if args.demo && set.is_some_and(|s| s != SetName::Own) => {
            let (name, text) = demo_sample(set.unwrap_or_default());
            let f = io_harness::launch::read_set_bytes(text.as_bytes(), name, set)?;
            Ok(Read {
                file: name.into(),
                set: f.set,
                questions: f.questions,
                revision: Some(f.revision),
            })
        }
        None if args.demo => Ok(Read {
            file: "demo".into(),
            set: SetName::Own,
            questions: eval::questions(DEMO_SET, "demo")?,
            revision: None,
        }),
        None => Err(Error::config(
            "eval needs a question set: FILE (JSON Lines, one {\"id\", \"question\", \"answers\", \"urls\"} a line, or a published set's file), or --demo for the bundled one",
        )),
    }
}

/// The subset `--limit` or `--sample`/`--seed` asks for; refused at 0.
fn subset(args: &EvalArgs) -> Result<Subset> {
    match (args.limit, args.sample) {
        (Some(0), _) => Err(Error::config("--limit 0 runs nothing: give 1 or more")),
        (_, Some(0)) => Err(Error::config("--sample 0 runs nothing: give 1 or more")),
        (Some(n), _) => Ok(Subset::Limit { n }),
        (None, Some(n)) => Ok(Subset::Sample {
            n,
            seed: args.seed.unwrap_or(0),
        }),
        (None, None) => Ok(Subset::All),
    }
}

/// The vendors `--providers` names that exist, in order; one that does not is
/// said and left out, and the others run. Named twice, or none: refused.
fn vendors(names: &[String], demo: bool) -> Result<Vec<Vendor>> {
    if names.is_empty() && demo {
        return Ok(Vendor::ALL.to_vec());
    }
    let named = task::providers(names, |name, e| {
        out::note(&format!("{name}: not run — {e}"));
        Ok(())
    })?;
    if named.is_empty() {
        return Err(Error::config(
            "--providers names no vendor that exists: give one or more of anthropic,openai,openrouter,gemini,xai,perplexity",
        ));
    }
    Ok(named)
}

fn names(vendors: &[Vendor]) -> String {
    vendors
        .iter()
        .map(Vendor::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Eval `eval_id` read back and scored (`Store::eval_report`, as the console
/// reads it).
pub fn report(store: &Store, launch: &Launch, eval_id: EvalId) -> Result<EvalReport> {
    store
        .eval_report(eval_id, &launch.plan().prices)?
        .ok_or_else(|| Error::store_says(format!("eval {eval_id} was not recorded")))
}

/// How the report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Markdown,
    Csv,
}

impl Format {
    fn of(json: bool, format: Option<&str>) -> Result<Format> {
        match (json, format) {
            (true, _) => Ok(Format::Json),
            (false, None) => Ok(Format::Text),
            (false, Some("markdown" | "md")) => Ok(Format::Markdown),
            (false, Some("csv")) => Ok(Format::Csv),
            (false, Some(other)) => Err(Error::config(format!(
                "--format {other}: give markdown or csv (or --json)"
            ))),
        }
    }

    fn print(self, r: &EvalReport) -> Result<()> {
        match self {
            Format::Text => out::print(&table::render(r)),
            Format::Json => out::json(&serde_json::to_string_pretty(r).unwrap_or_default()),
            Format::Markdown => out::print(&table::markdown(r)),
            Format::Csv => out::print(&table::csv(r)),
        }
    }
}

/// The progress bar: questions done of all, dollars spent, time left; drawn on
/// stderr when it is a terminal, hidden otherwise.
struct Bar(indicatif::ProgressBar);

impl Bar {
    fn new(store: &Store, eval_id: EvalId, total: u64) -> Bar {
        if !std::io::stderr().is_terminal() {
            return Bar(indicatif::ProgressBar::hidden());
        }
        let done = store.eval(eval_id).ok().flatten().map_or(0, |r| r.done);
        let bar = indicatif::ProgressBar::new(total).with_position(done);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} questions · {msg} · {eta} left",
        ) {
            bar.set_style(style);
        }
        bar.set_message("$0.000000 spent");
        bar.enable_steady_tick(Duration::from_millis(250));
        bar.reset_eta();
        Bar(bar)
    }
}

impl EvalProgress for Bar {
    fn ended(&self, _last: &str, done: usize, _total: usize, spent_micro_usd: u64) {
        self.0.set_position(done as u64);
        self.0.set_message(format!(
            "{} spent",
            io_harness::core::price::usd(spent_micro_usd)
        ));
    }
}

/// `io-harness evals`: the stored evals, newest first.
pub fn list(
    config: Option<PathBuf>,
    store_path: Option<PathBuf>,
    json: bool,
    limit: u32,
) -> Result<()> {
    let launch = task::launch(config.as_deref(), false)?;
    let (store, _) = launch.open_store(store_path)?;
    let rows = store.evals(limit)?;
    if json {
        return out::json(&serde_json::to_string_pretty(&rows).unwrap_or_default());
    }
    if rows.is_empty() {
        return out::line(
            "no evals yet: `io-harness eval FILE --providers a,b` runs one (`eval --demo` offline)",
        );
    }
    let mut text = String::new();
    for r in rows {
        let state = r.status();
        text.push_str(&format!(
            "#{:<4} {}  {}  {}/{} questions × {}  {}\n",
            r.eval_id,
            r.created_at.get(..16).unwrap_or(&r.created_at),
            r.file,
            r.done,
            r.questions,
            r.vendors
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(","),
            state
        ));
    }
    out::print(&text)
}
