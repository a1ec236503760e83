//! The Compare screen's half of `update`: starting a comparison from the form
//! (every vendor asked, the ones that refuse the declaration shown with their
//! refusal), folding each vendor's events into its column, Esc twice cancelling
//! every run, and opening the chosen run in the Run panes or in Sources.

use crate::console::state::compare::{CompareColumn, CompareView};
use crate::console::state::run::RunView;
use crate::console::state::{Effect, NoticeCause, Screen, State};
use crate::console::update::keys::Action;
use crate::core::wire::Vendor;

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
/// cancels every run. On Compare, with one finished: back to the stored list.
/// `None` when neither.
pub(super) fn cancel(state: &mut State) -> Option<Vec<Effect>> {
    if !state.compare.running {
        if state.screen != Screen::Compare || state.compare.listing() || state.run.running {
            return None;
        }
        let c = &mut state.compare;
        *c = CompareView {
            stored: std::mem::take(&mut c.stored),
            stored_at: c.stored_at,
            ..CompareView::default()
        };
        return Some(vec![Effect::LoadGroups]);
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
/// comparison.
pub(super) fn open(state: &mut State, action: Action) -> Vec<Effect> {
    if state.compare.listing() {
        return match state.compare.chosen_stored() {
            Some(id) if action == Action::OpenCompared => vec![Effect::OpenGroup(id)],
            _ => Vec::new(),
        };
    }
    let Some((id, _)) = state.compare.chosen() else {
        state.say(
            "nothing to open yet: the comparison's table comes when every run has ended",
            false,
        );
        return Vec::new();
    };
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
