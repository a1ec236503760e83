//! The console's evals (issue 29, item 5): Compare lists the stored evals above
//! the comparisons, newest first; Enter on one shows its matrix and per-question
//! table; Enter on a question opens that question's comparison with that
//! vendor's run chosen, Enter on a vendor the claims of its first run; `e`
//! writes the Markdown `eval --format markdown` prints beside io.toml, refusing
//! a symbolic link there — on the pure state (TestBackend snapshots) and driven
//! for real on an eval run on the stub.

#![cfg(all(feature = "console", feature = "stub"))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cli::{bin, run};
use common::console::*;
use crossterm::event::KeyCode;
use io_harness::console::testing::{Effect, EvalListed, EvalPick, Msg, Screen, update};
use io_harness::core::eval::{Question, QuestionRecord, QuestionStatus, RunRecord, report};
use io_harness::core::figures::RunFigures;
use io_harness::core::id::{EvalId, GroupId};
use io_harness::core::outcome::Outcome;
use io_harness::launch::{EvalCall, Launch, Quiet};
use io_harness::store::{EvalRow, GroupRow, NewEval};
use io_harness::{RunId, Vendor};
use pretty_assertions::assert_eq;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Three questions on two vendors, scored by `core::eval::report`: the third
/// not run (the eval's cap), OpenAI wrong on the second.
fn records() -> Vec<QuestionRecord> {
    let q = |id: &str, text: &str| Question {
        id: id.into(),
        question: text.into(),
        answers: strings(&["2015"]),
        urls: strings(&["https://blog.rust-lang.org/2015/05/15/Rust-1.0.html"]),
        ..Question::default()
    };
    let run = |id: i64, vendor: &str, answer: &str, cost: u64, wall: u64| RunRecord {
        run_id: RunId(id),
        vendor: vendor.parse().unwrap(),
        outcome: Some(Outcome::Passed),
        answer: answer.into(),
        cited: strings(&["https://blog.rust-lang.org/2015/05/15/Rust-1.0.html"]),
        figures: RunFigures {
            cost_micro_usd: Some(cost),
            wall_ms: Some(wall),
            searches: 1,
            cited_share: Some(1.0),
            ..RunFigures::default()
        },
        claims: vec![],
    };
    vec![
        QuestionRecord {
            question: q("q1", "When was Rust 1.0 released?"),
            group_id: Some(GroupId(11)),
            status: QuestionStatus::Done,
            runs: vec![
                run(21, "anthropic", "In 2015.", 17_065, 1200),
                run(22, "openai", "2015", 11_733, 900),
            ],
            refusals: vec![],
            judgings: vec![],
        },
        QuestionRecord {
            question: q("q2", "Which year did Rust 1.0 ship?"),
            group_id: Some(GroupId(12)),
            status: QuestionStatus::Done,
            runs: vec![
                run(23, "anthropic", "It shipped in 2015.", 17_230, 1500),
                run(24, "openai", "2016", 11_790, 700),
            ],
            refusals: vec![],
            judgings: vec![],
        },
        QuestionRecord {
            question: q("q3", "And Rust 2018?"),
            status: QuestionStatus::Skipped,
            ..QuestionRecord::default()
        },
    ]
}

pub(crate) fn listed() -> (EvalListed, io_harness::core::eval::EvalReport) {
    let mut r = report(
        EvalId(3),
        "sets/rust.jsonl",
        &[Vendor::Anthropic, Vendor::OpenAi],
        &records(),
    );
    r.max_usd_micro = Some(50_000);
    let row = EvalRow {
        eval_id: EvalId(3),
        created_at: "2025-06-01T10:00:00Z".into(),
        file: "sets/rust.jsonl".into(),
        vendors: vec![Vendor::Anthropic, Vendor::OpenAi],
        jobs: 4,
        max_usd_micro: Some(50_000),
        demo: false,
        finished_at: Some("2025-06-01T10:01:00Z".into()),
        questions: 3,
        done: 2,
        skipped: 1,
        running: None,
        ..EvalRow::default()
    };
    let cost = r.cost();
    (EvalListed { row, cost }, r)
}

#[test]
fn compare_lists_evals_beside_comparisons_and_enter_shows_the_matrix() {
    let mut s = state();
    assert_eq!(
        update(&mut s, key(KeyCode::F(5))),
        vec![Effect::LoadGroups, Effect::LoadEvals]
    );
    let (eval, report) = listed();
    let group = |id: i64, goal: &str| GroupRow {
        group_id: GroupId(id),
        created_at: "2025-06-01T10:00:30Z".into(),
        goal: goal.into(),
        runs: vec![RunId(id * 2), RunId(id * 2 + 1)],
        ..GroupRow::default()
    };
    update(
        &mut s,
        Msg::Groups(vec![
            group(12, "Which year did Rust 1.0 ship?"),
            group(11, "When was Rust 1.0 released?"),
        ]),
    );
    update(&mut s, Msg::Evals(vec![eval]));
    insta::assert_snapshot!("compare_evals_100x16", screen(&s, 100, 16));
    // The eval is chosen first; ↓ chooses the first comparison, ↑ the eval again.
    update(&mut s, key(KeyCode::Down));
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Effect::OpenGroup(GroupId(12))]
    );
    update(&mut s, key(KeyCode::Up));
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Effect::OpenEval(EvalId(3))]
    );
    update(&mut s, Msg::Eval(Ok(Box::new(report.clone()))));
    insta::assert_snapshot!("eval_matrix_120x24", screen(&s, 120, 24));
    // The rows drawn are the ones `eval` prints, a row a vendor then a row a
    // question and vendor.
    let text = screen(&s, 160, 30);
    let printed = io_harness::core::eval::table::render(&report);
    // What the figures are, in the pane's few words (the printed notes are long).
    let long = io_harness::core::eval::table::notes(&report, false);
    let short = io_harness::core::eval::table::notes(&report, true);
    for line in printed
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty() && !long.contains(*l))
        .chain(short.lines())
    {
        assert!(text.contains(line), "{line}\n{text}");
    }
    // Small terminals draw without a panic, wherever the cursor is.
    for _ in 0..10 {
        update(&mut s, key(KeyCode::Down));
    }
    for (w, h) in [(40, 10), (60, 12), (80, 14)] {
        assert!(screen(&s, w, h).contains("F5"), "{w}x{h}");
    }
    let small = screen(&s, 120, 14);
    assert!(
        small.contains("▶ q3"),
        "the chosen row stays in sight\n{small}"
    );
    // `e` writes this eval; Esc goes back to the list.
    assert_eq!(
        update(&mut s, key(KeyCode::Char('e'))),
        vec![Effect::ExportEval(EvalId(3))]
    );
    assert_eq!(
        update(&mut s, key(KeyCode::Esc)),
        vec![Effect::LoadGroups, Effect::LoadEvals]
    );
    assert!(s.compare.listing());
    // On the list `e` writes nothing and says how.
    assert_eq!(update(&mut s, key(KeyCode::Char('e'))), vec![]);
    assert!(s.notice.as_ref().unwrap().0.contains("open an eval first"));
    // The help lists the key.
    update(&mut s, key(KeyCode::F(1)));
    for _ in 0..30 {
        update(&mut s, key(KeyCode::Down));
    }
    let help = screen(&s, 100, 40);
    assert!(
        help.contains("write the open eval's matrix as Markdown"),
        "{help}"
    );
}

#[test]
fn in_an_eval_each_row_asks_for_what_it_opens() {
    let mut s = state();
    update(&mut s, key(KeyCode::F(5)));
    let (eval, report) = listed();
    update(&mut s, Msg::Evals(vec![eval]));
    update(&mut s, key(KeyCode::Enter));
    update(&mut s, Msg::Eval(Ok(Box::new(report))));
    // Rows: anthropic, openai, then q1 × (anthropic, openai), q2 × …, q3 × ….
    for _ in 0..5 {
        update(&mut s, key(KeyCode::Down));
    }
    let view = s.compare.eval.as_ref().unwrap();
    let Some(EvalPick::Cell(cell)) = view.chosen() else {
        panic!("{:?}", view.chosen());
    };
    assert_eq!((cell.id.as_str(), cell.vendor.as_str()), ("q2", "openai"));
    // Enter: q2's comparison, OpenAI's run chosen once it is read.
    assert_eq!(
        update(&mut s, key(KeyCode::Enter)),
        vec![Effect::OpenGroup(GroupId(12))]
    );
    // A not-run question says so and opens nothing.
    let mut unrun = s.clone();
    unrun.compare.eval.as_mut().unwrap().at = 6;
    assert_eq!(update(&mut unrun, key(KeyCode::Enter)), vec![]);
    assert!(
        unrun
            .notice
            .as_ref()
            .unwrap()
            .0
            .contains("q3 has not run yet")
    );
    // `r` on a vendor's row: its first run (q1's).
    let mut r = s.clone();
    r.compare.eval.as_mut().unwrap().at = 1;
    assert_eq!(
        update(&mut r, key(KeyCode::Char('r'))),
        vec![Effect::OpenRun(RunId(22))]
    );
    assert_eq!(s.compare.select_run, Some(RunId(24)));
}

/// The bundled demo set run as an eval on the stub, through the library (as
/// `eval --demo` runs it), into the console's store; its id.
async fn demo_eval(c: &LiveConsole) -> EvalId {
    let ws = c.dir.path().display().to_string();
    let loaded = loaded(&format!("[task]\nworkspace = {ws:?}\n"));
    let mut launch = Launch::resolve(&loaded, true);
    launch.serve_with(io_harness::stub::demo::eval_stub().await.unwrap());
    let set = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/eval-demo.jsonl"))
        .unwrap();
    let store = &c.executor.store;
    let id = store
        .create_eval(&NewEval {
            file: "demo".into(),
            vendors: Vendor::ALL.to_vec(),
            jobs: 4,
            max_usd_micro: None,
            demo: true,
            questions: io_harness::core::eval::questions(&set, "demo").unwrap(),
            ..NewEval::default()
        })
        .unwrap();
    let copies = io_harness::run::group::Copies::beside(&c.store_path);
    let call = EvalCall {
        store,
        copies: &copies,
        approver: &io_harness::NobodyToAsk,
        cancel: tokio_util::sync::CancellationToken::new(),
        progress: &Quiet,
    };
    launch.eval(id, &Vendor::ALL, 4, None, call).await.unwrap();
    id
}

/// F5, then Enter on the eval listed first: its report on screen.
async fn open_first_eval(c: &mut LiveConsole) {
    c.send(key(KeyCode::F(5)));
    c.until(|s| !s.compare.evals.is_empty()).await;
    c.send(key(KeyCode::Enter));
    c.until(|s| s.compare.eval.is_some()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_evals_question_opens_its_comparison_and_a_vendor_its_claims_for_real() {
    let mut c = LiveConsole::demo().await;
    let id = demo_eval(&c).await;
    open_first_eval(&mut c).await;
    let listed = &c.state.compare.evals[0];
    assert_eq!(listed.row.eval_id, id);
    // The report is the store's, scored once in the library, as `eval` reads it.
    let prices = &c.executor.launch.plan().prices;
    let stored = c.executor.store.eval_report(id, prices).unwrap().unwrap();
    let view = c.state.compare.eval.clone().unwrap();
    assert_eq!(view.report, stored);
    assert_eq!(listed.cost, stored.cost());
    assert_eq!(
        (view.report.vendors.len(), view.report.questions.len()),
        (6, 30)
    );
    let text = screen(&c.state, 160, 40);
    assert!(
        text.contains(&format!("eval {id} · demo · 5 questions × 6 vendors")),
        "{text}"
    );
    // ↓ to q2 on OpenAI (6 vendor rows, then q1 × 6, then q2's first … second).
    for _ in 0..13 {
        c.send(key(KeyCode::Down));
    }
    let cell = view.report.questions[7].clone();
    assert_eq!((cell.id.as_str(), cell.vendor.as_str()), ("q2", "openai"));
    c.send(key(KeyCode::Enter));
    c.until(|s| s.compare.result.is_some()).await;
    let compared = c.state.compare.result.as_ref().unwrap();
    assert_eq!(Some(compared.group_id), cell.group_id);
    assert_eq!(
        c.state.compare.chosen().map(|(r, v)| (r, v.to_string())),
        Some((cell.run_id.unwrap(), "openai".to_string()))
    );
    let text = screen(&c.state, 120, 40);
    assert!(
        text.contains(&format!("▶ #{} openai", cell.run_id.unwrap())),
        "{text}"
    );
    // Esc: back to the eval, the cursor where it was.
    c.send(key(KeyCode::Esc));
    let back = c.state.compare.eval_shown().unwrap();
    assert_eq!(back.at, 13);
    // ↑ to the vendor rows: OpenAI's (its first run, q1's); Enter opens its claims.
    for _ in 0..12 {
        c.send(key(KeyCode::Up));
    }
    let first = view.report.questions[1].clone();
    assert_eq!((first.id.as_str(), first.vendor.as_str()), ("q1", "openai"));
    c.send(key(KeyCode::Enter));
    assert_eq!(c.state.screen, Screen::Sources);
    let run = first.run_id.unwrap();
    c.until(|s| s.sources.claims.as_ref().is_some_and(|k| k.run_id == run))
        .await;
    let text = screen(&c.state, 120, 40);
    assert!(text.contains(&format!("claims · run {run}")), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_writes_what_eval_format_markdown_prints_and_refuses_a_link() {
    let mut c = LiveConsole::demo().await;
    let dir = c.dir.path().to_path_buf();
    std::fs::write(dir.join("io.toml"), "").unwrap();
    // The eval made by the binary into the console's store, its Markdown kept.
    let (code, printed, err) = run(bin().current_dir(&dir).args([
        "--config", "io.toml", "--store", "runs.db", "eval", "--demo", "--format", "markdown",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(printed.starts_with("# eval 1 · demo"), "{printed}");
    open_first_eval(&mut c).await;
    c.state.notice = None;
    c.send(key(KeyCode::Char('e')));
    c.until(|s| s.notice.is_some()).await;
    let path = dir.join("eval-1.md");
    let (said, error) = c.state.notice.clone().unwrap();
    assert!(!error, "{said}");
    assert!(said.contains(&path.display().to_string()), "{said}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), printed);
    // Written again over the regular file it left.
    c.state.notice = None;
    c.send(key(KeyCode::Char('e')));
    c.until(|s| s.notice.is_some()).await;
    assert!(!c.state.notice.as_ref().unwrap().1);
    // A symbolic link there is refused and left as it is, its target untouched.
    std::fs::remove_file(&path).unwrap();
    let target = dir.join("elsewhere.md");
    std::fs::write(&target, "mine\n").unwrap();
    std::os::unix::fs::symlink(&target, &path).unwrap();
    c.state.notice = None;
    c.send(key(KeyCode::Char('e')));
    c.until(|s| s.notice.is_some()).await;
    let (said, error) = c.state.notice.clone().unwrap();
    assert!(error, "{said}");
    assert!(said.contains("symbolic link"), "{said}");
    assert!(said.contains("nothing was written"), "{said}");
    assert!(path.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
}
