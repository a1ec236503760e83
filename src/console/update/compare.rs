//! The Compare screen's half of `update`: starting a comparison from the form
//! (every vendor asked, the ones that refuse the declaration shown with their
//! refusal), folding each vendor's events into its column, Esc twice cancelling
//! every run, and opening the chosen run in the Run panes or in Sources; on
//! the stored list, opening an eval or a comparison; in an eval, opening a
//! question's comparison or a vendor's claims, and `e` writing its Markdown.

use crate::console::state::compare::{CompareColumn, CompareView, Listed};
use crate::console::state::evals::{EvalPick, EvalView};
use crate::console::state::keys::Action;
use crate::console::state::run::RunView;
use crate::console::state::{Effect, NoticeCause, Screen, State};
use crate::core::eval::EvalReport;
use crate::core::id::RunId;
use crate::core::vendor::Vendor;

/// Run the form's goal and declaration on every vendor at once.
pub(super) fn start(state: &mut State) -> Vec<Effect> {
    if state.busy() {
        state.say(
            "a run is already in progress; Esc cancels it before a comparison starts",
            true,
        );
        return Vec::new();
    }
    if state.form.goal_text().trim().is_empty() {
        state.say(
            "the goal is empty: type what the runs should achieve first",
            true,
        );
        state.notice_cause = Some(NoticeCause::EmptyGoal);
        return Vec::new();
    }
    let refusal = |v: Vendor| {
        state
            .previews
            .iter()
            .find(|p| p.vendor == v)
            .and_then(|p| p.request.as_ref().err().cloned())
    };
    let columns: Vec<CompareColumn> = Vendor::ALL
        .iter()
        .map(|&v| {
            let refused = refusal(v);
            CompareColumn {
                vendor: v,
                model: state.form.model_for(v),
                run: RunView {
                    running: refused.is_none(),
                    ..RunView::default()
                },
                refused,
            }
        })
        .collect();
    if columns.iter().all(|c| c.refused.is_some()) {
        state.say(
            "no vendor carries this declaration: each one's refusal is on Declare",
            true,
        );
        return Vec::new();
    }
    let vendors = columns
        .iter()
        .map(|c| (c.vendor, c.model.clone()))
        .collect();
    state.compare = CompareView {
        goal: state.form.goal_text(),
        columns,
        running: true,
        stored: std::mem::take(&mut state.compare.stored),
        evals: std::mem::take(&mut state.compare.evals),
        ..CompareView::default()
    };
    state.screen = Screen::Compare;
    state.notice = None;
    state.notice_cause = None;
    vec![Effect::StartCompare {
        contract: Box::new(state.form.contract()),
        vendors,
    }]
}

/// Esc while a comparison runs (on any screen): the first asks, the second
/// cancels every run. On Compare, with a question's comparison open from an
/// eval: back to the eval; with one finished, or an eval: back to the stored
/// list. `None` when neither.
pub(super) fn cancel(state: &mut State) -> Option<Vec<Effect>> {
    if !state.compare.running {
        if state.screen != Screen::Compare || state.compare.listing() || state.run.running {
            return None;
        }
        let c = &mut state.compare;
        if c.eval.is_some() && c.eval_shown().is_none() {
            *c = CompareView {
                stored: std::mem::take(&mut c.stored),
                evals: std::mem::take(&mut c.evals),
                stored_at: c.stored_at,
                eval: c.eval.take(),
                ..CompareView::default()
            };
            return Some(Vec::new());
        }
        *c = CompareView {
            stored: std::mem::take(&mut c.stored),
            evals: std::mem::take(&mut c.evals),
            stored_at: c.stored_at,
            ..CompareView::default()
        };
        return Some(vec![Effect::LoadGroups, Effect::LoadEvals]);
    }
    if std::mem::take(&mut state.compare.confirm_cancel) {
        state.say("cancelling every run of the comparison …", false);
        return Some(vec![Effect::CancelRun]);
    }
    state.compare.confirm_cancel = true;
    let key = state.keys.key_for(Action::Cancel);
    state.say(
        format!("{key} again cancels every run of the comparison (each is recorded as cancelled)"),
        true,
    );
    Some(Vec::new())
}

/// Enter / `s` / `r` on a finished comparison: the chosen run's claims, its
/// sources, or the run in the Run panes; Enter on the stored list: the chosen
/// eval or comparison; in an eval, as `from_eval` says.
pub(super) fn open(state: &mut State, action: Action) -> Vec<Effect> {
    if state.compare.listing() {
        return match (state.compare.chosen_stored(), action) {
            (Some(Listed::Eval(id)), Action::OpenCompared) => vec![Effect::OpenEval(id)],
            (Some(Listed::Group(id)), Action::OpenCompared) => vec![Effect::OpenGroup(id)],
            _ => Vec::new(),
        };
    }
    if state.compare.eval_shown().is_some() {
        return from_eval(state, action);
    }
    let Some((id, _)) = state.compare.chosen() else {
        state.say(
            "nothing to open yet: the comparison's table comes when every run has ended",
            false,
        );
        return Vec::new();
    };
    open_run(state, id, action)
}

/// Run `id`'s claims (Enter) or its sources (`s`) on Sources, or the run in
/// the Run panes (`r`).
fn open_run(state: &mut State, id: RunId, action: Action) -> Vec<Effect> {
    match action {
        Action::SourcesOfCompared | Action::OpenCompared => {
            state.screen = Screen::Sources;
            state.sources.select_run = Some(id);
            state.sources.in_citations = false;
            state.sources.grouping = crate::console::state::Grouping::ByStep;
            // Enter: the run's claims, sentence by sentence; `s`: its citations.
            state.sources.claims_view = action == Action::OpenCompared;
            state.sources.cursor = 0;
            vec![Effect::LoadRuns]
        }
        _ => vec![Effect::OpenRun(id)],
    }
}

/// In an eval: Enter on a question's row opens that question's comparison with
/// that vendor's run chosen (Enter there opens its claims); Enter on a vendor's
/// row opens the claims of the vendor's first run in the eval
/// (`EvalView::run_of`). `s` and `r` on either row: that run's sources, or the
/// run in the Run panes.
fn from_eval(state: &mut State, action: Action) -> Vec<Effect> {
    let Some(view) = state.compare.eval_shown() else {
        return Vec::new();
    };
    let Some(pick) = view.chosen() else {
        return Vec::new();
    };
    let run = view.run_of(pick);
    let eval_id = view.report.eval_id;
    let (cell, why) = match pick {
        EvalPick::Cell(s) => (
            Some((s.group_id, s.run_id, s.id.clone())),
            format!(
                "question {} did not run on {}: {}",
                s.id,
                s.vendor,
                s.note.as_deref().unwrap_or("no run recorded")
            ),
        ),
        EvalPick::Vendor(v) => (
            None,
            format!("{} ran no question of eval {eval_id}", v.vendor),
        ),
    };
    match (cell, action) {
        (Some((Some(group), run_id, _)), Action::OpenCompared) => {
            state.compare.select_run = run_id;
            state.compare.selected = 0;
            vec![Effect::OpenGroup(group)]
        }
        (Some((None, _, id)), Action::OpenCompared) => {
            state.say(
                format!(
                    "question {id} has not run yet: `io-harness eval --resume {eval_id}` runs it"
                ),
                false,
            );
            Vec::new()
        }
        _ => match run {
            Some(id) => open_run(state, id, action),
            None => {
                state.say(why, false);
                Vec::new()
            }
        },
    }
}

/// An eval read back: shown (the cursor kept when it is the one already open),
/// or why it could not be read on the status line.
pub(super) fn opened_eval(state: &mut State, report: Result<EvalReport, String>) {
    match report {
        Ok(r) => {
            let c = &mut state.compare;
            let at = c
                .eval
                .as_ref()
                .filter(|e| e.report.eval_id == r.eval_id)
                .map_or(0, |e| e.at);
            let mut view = EvalView::new(r);
            view.at = at.min(view.rows().saturating_sub(1));
            c.eval = Some(view);
        }
        Err(e) => state.say(e, true),
    }
}

/// `e` in an eval: write its matrix and per-question table as Markdown beside
/// io.toml.
pub(super) fn export(state: &mut State) -> Vec<Effect> {
    match state.compare.eval_shown() {
        Some(e) => vec![Effect::ExportEval(e.report.eval_id)],
        None => {
            let (key, open) = (
                state.keys.key_for(Action::ExportEval),
                state.keys.key_for(Action::OpenCompared),
            );
            state.say(
                format!(
                    "{key} writes an eval's matrix: open an eval first ({open} on it in the list)"
                ),
                false,
            );
            Vec::new()
        }
    }
}
