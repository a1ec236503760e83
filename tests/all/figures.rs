//! One truth (issue 27, items 1–3): every figure and verdict agrees on every
//! screen. A verdict shows on the run that was checked and no other; one demo
//! run (transcript + cache, on the built-in stub) reads the same figures in
//! `runs --json`, `compare --json`, the step lines `run` prints, the console's
//! Run panes and its Sources list; and a step's cache writes and reads are told
//! apart wherever a step is shown.

// The binary is built with every default feature, and these tests run it.
#![cfg(all(
    feature = "console",
    feature = "stub",
    feature = "otlp",
    feature = "mcp",
    feature = "check"
))]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::cli::{at, json, run};
use common::console::*;
use crossterm::event::KeyCode;
use io_harness::console::testing::{Msg, past_run, update};
use io_harness::core::price::usd_or_dash;
use io_harness::store::Store;
use io_harness::stub::Script;
use io_harness::{Config, RunId};
use pretty_assertions::assert_eq;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The demo with its transcript cached, as io.toml.example has it.
const TRANSCRIPT_CACHE: &str = "[run]\nconversation = \"transcript\"\ncache = true\n";

/// Every figure a run summary carries, by its one name.
const FIGURES: [&str; 14] = [
    "requests",
    "input_tokens",
    "cache_write_tokens",
    "cache_read_tokens",
    "output_tokens",
    "searches",
    "failed_searches",
    "fetches",
    "failed_fetches",
    "fees_micro_usd",
    "cost_micro_usd",
    "vendor_cost_micro_usd",
    "fees_counted_here",
    "wall_ms",
];

/// `[vendor    1.2s step N] A in, B cache write, C cache read / D out tokens, …`:
/// the vendor, the step and the four counts (`in` is the plain input, as the
/// figures' `input_tokens`).
fn step_line(line: &str) -> Option<(String, u32, [u64; 4])> {
    let rest = line.strip_prefix('[')?;
    let (head, said) = rest.split_once("] ")?;
    let vendor = head.split_whitespace().next()?.to_string();
    let step = head.rsplit_once("step ")?.1.trim().parse().ok()?;
    let (counts, _) = said.split_once(" out tokens")?;
    let numbers: Vec<u64> = counts
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(
        counts.contains(" in, ")
            && counts.contains(" cache write, ")
            && counts.contains(" cache read / "),
        "{line}"
    );
    Some((vendor, step, numbers.try_into().ok()?))
}

/// The run selected in Sources.
fn selected(s: &io_harness::console::testing::State) -> Option<RunId> {
    s.sources.runs.get(s.sources.selected).map(|r| r.run_id)
}

/// The cells of the Run panes' Σ row, as drawn.
fn sum_row(screen: &str) -> Vec<String> {
    let line = screen
        .lines()
        .find(|l| l.contains("│Σ "))
        .unwrap_or_else(|| panic!("no Σ row:\n{screen}"));
    let (_, after) = line.split_once("│Σ ").unwrap();
    let (cells, _) = after.split_once('│').unwrap();
    cells.split_whitespace().map(str::to_string).collect()
}

/// The requests table has a column for cache writes and one for cache reads,
/// and the chart draws each in its own colour, named in its legend.
fn cache_told_apart(s: &io_harness::console::testing::State) {
    let mut t = Terminal::new(TestBackend::new(140, 40)).unwrap();
    t.draw(|f| io_harness::console::testing::draw(f, s))
        .unwrap();
    let buffer = t.backend().buffer().clone();
    let shown = t.backend().to_string();
    let header = shown.lines().find(|l| l.contains("│st ")).unwrap();
    let cells: Vec<&str> = header.split_whitespace().collect();
    assert!(
        cells.windows(4).any(|w| w == ["in", "c.wr", "c.rd", "out"]),
        "{header}"
    );
    // The legend's swatch before each name, and its colour.
    let colour = |name: &str| {
        let (y, line) = shown
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(&format!("█{name}")))
            .unwrap_or_else(|| panic!("no █{name} in the legend:\n{shown}"));
        let x = line
            .chars()
            .collect::<Vec<_>>()
            .windows(name.chars().count() + 1)
            .position(|w| w[0] == '█' && w[1..].iter().collect::<String>() == name)
            .unwrap();
        // Each drawn line is quoted: its first character is not on screen.
        let cell = &buffer[(x as u16 - 1, y as u16)];
        assert_eq!(cell.symbol(), "█", "{line}");
        cell.fg
    };
    let (write, read) = (colour("c.wr"), colour("c.rd"));
    assert_ne!(write, read, "cache writes and reads in one colour");
    assert_ne!(write, colour("tok"));
    assert_ne!(read, colour("tok"));
}

#[test]
fn one_run_reads_the_same_figures_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    std::fs::write(path.join("io.toml"), TRANSCRIPT_CACHE).unwrap();
    let (code, _, printed) =
        run(at(path).args(["run", "--demo", "--providers", "anthropic,openai"]));
    assert_eq!(code, 0, "{printed}");

    let listed = json(path, &["runs", "--json"]);
    let listed = listed.as_array().unwrap();
    let group = listed[0]["group_id"].as_i64().unwrap();
    let compared = json(path, &["compare", &group.to_string(), "--json"]);
    let columns = compared["runs"].as_array().unwrap();
    assert_eq!(columns.len(), listed.len());

    let config = Config::parse(TRANSCRIPT_CACHE, "io.toml").unwrap();
    let prices = config.price_table();
    let store = Store::open(path.join("data/runs.db")).unwrap();
    let mut anthropic_wrote_then_read = false;
    for col in columns {
        let id = col["run_id"].as_i64().unwrap();
        let row = listed.iter().find(|r| r["run_id"] == id).unwrap();
        // `runs --json` and `compare --json`: the same names for the same numbers.
        for name in FIGURES {
            assert!(row.get(name).is_some(), "runs --json has no {name}: {row}");
            assert_eq!(row[name], col[name], "run {id}: {name}");
        }
        let figure = |name: &str| row[name].as_u64().unwrap();

        // The step lines `run` printed add up to the same figures.
        let vendor = row["provider"].as_str().unwrap();
        let mut summed = [0u64; 4];
        let mut steps = Vec::new();
        for (_, step, counts) in printed
            .lines()
            .filter_map(step_line)
            .filter(|(v, _, _)| v == vendor)
        {
            let [_, write, read, _] = counts;
            for (s, c) in summed.iter_mut().zip(counts) {
                *s += c;
            }
            steps.push((step, write, read));
        }
        assert_eq!(
            summed,
            [
                figure("input_tokens"),
                figure("cache_write_tokens"),
                figure("cache_read_tokens"),
                figure("output_tokens"),
            ],
            "{vendor}: the step lines against the figures"
        );
        if vendor == "anthropic" {
            // docs/run.md's "step 2 writing the prefix and step 3 reading it".
            anthropic_wrote_then_read = steps.iter().any(|&(s, w, _)| s == 2 && w > 0)
                && steps.iter().any(|&(s, _, r)| s == 3 && r > 0);
        }

        // The console's Run panes of the stored run: its Σ row.
        let mut s = state();
        update(&mut s, past_run(&store, RunId(id), &prices).unwrap());
        let cells = sum_row(&screen(&s, 140, 40));
        let failed = figure("failed_searches") + figure("failed_fetches");
        let srch = match figure("searches") + figure("fetches") {
            made if failed > 0 => format!("{made}({failed})"),
            made => made.to_string(),
        };
        assert_eq!(
            cells[..5],
            [
                figure("input_tokens").to_string(),
                figure("cache_write_tokens").to_string(),
                figure("cache_read_tokens").to_string(),
                figure("output_tokens").to_string(),
                srch,
            ],
            "run {id}: the Run panes' Σ row"
        );
        if vendor == "anthropic" {
            cache_told_apart(&s);
        }
        let cost = usd_or_dash(row["cost_micro_usd"].as_u64());
        assert!(cells.contains(&cost), "run {id}: {cost} in {cells:?}");

        // Its row in Sources: the same cost.
        let mut s = state();
        update(&mut s, key(KeyCode::F(4)));
        update(&mut s, Msg::Runs(store.priced_runs(None, &prices).unwrap()));
        let shown = screen(&s, 140, 40);
        let line = shown
            .lines()
            .find(|l| l.trim_start_matches('"').starts_with(&format!("│{id} ")))
            .unwrap_or_else(|| panic!("run {id} in Sources:\n{shown}"));
        assert!(line.contains(&cost), "{cost} in {line}");
    }
    assert!(anthropic_wrote_then_read, "{printed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verdict_shows_on_the_run_that_was_checked_and_no_other() {
    let mut l = LiveConsole::scripted(Script::demo()).await;
    for _ in 0..3 {
        l.state.run.outcome = None;
        l.send(ctrl('r'));
        l.until(|s| s.run.outcome.is_some() && !s.run.running).await;
    }
    l.send(key(KeyCode::F(4)));
    l.until(|s| s.sources.loaded && s.sources.runs.len() == 3)
        .await;
    // Newest first: run 1 is the last row.
    l.send(key(KeyCode::Down));
    l.send(key(KeyCode::Down));
    assert_eq!(selected(&l.state), Some(RunId(1)));
    l.send(key(KeyCode::Char('k')));
    l.until(|s| s.sources.checks.len() == 3).await;
    // Every run's citations by domain, run 1 still selected.
    l.send(key(KeyCode::Char('g')));
    l.until(|s| {
        s.sources
            .citations
            .iter()
            .map(|c| c.run_id)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == 3
    })
    .await;
    assert_eq!(selected(&l.state), Some(RunId(1)));
    let url = "https://crates.io/crates/io-harness";
    // The by-domain list is drawn once every message the keys asked for is in
    // (a store read can land after the one that met the condition above: the
    // listing and the verdicts are two reads, in either order under load).
    l.until(|s| {
        let shown = screen(s, 140, 60);
        shown.contains(&format!("run 3 · {url}")) && shown.contains("[not_allowed]")
    })
    .await;
    let shown = screen(&l.state, 140, 60);
    assert!(
        shown.contains(&format!("run 1 · {url}  [not_allowed]")),
        "{shown}"
    );
    for run in [2, 3] {
        let line = shown
            .lines()
            .find(|line| line.contains(&format!("run {run} · {url}")))
            .unwrap_or_else(|| panic!("run {run}:\n{shown}"));
        assert!(!line.contains('['), "run {run} was never checked: {line}");
    }
}
