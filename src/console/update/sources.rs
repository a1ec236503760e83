//! The Sources screen's half of key handling: typing a search or a filter, and
//! the actions on its panes, its lists and the selected run or citation. Pure,
//! like the rest of `update`.

use crossterm::event::{KeyCode, KeyEvent};

use crate::console::state::keys::Action;
use crate::console::state::{Effect, Grouping, State};

/// A key while a search or a filter is being typed on Sources: a character or a
/// backspace edits it, Enter runs the search (a filter applies as it is typed),
/// Esc leaves; `None` for a key typing does not take.
pub(super) fn typing(state: &mut State, key: KeyEvent) -> Option<Vec<Effect>> {
    let searching = state.sources.searching;
    let text = if searching {
        &mut state.sources.query
    } else {
        &mut state.sources.filter
    };
    let plain = key
        .modifiers
        .difference(crossterm::event::KeyModifiers::SHIFT)
        .is_empty();
    match key.code {
        KeyCode::Char(c) if plain => text.push(c),
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Enter if searching => {
            state.sources.searching = false;
            return Some(vec![Effect::SearchAll(state.sources.query.clone())]);
        }
        KeyCode::Enter | KeyCode::Esc => {
            state.sources.searching = false;
            state.sources.filtering = false;
            return Some(Vec::new());
        }
        _ => return None,
    }
    Some(if searching {
        Vec::new()
    } else {
        filter_changed(state)
    })
}

/// The selected run changed from `before`: the filter, typed for the citations
/// of the run it was typed on, goes with it (it does not carry over to another
/// run's list, where it would hide citations without saying so). Listing every
/// run by domain, the filter is over all runs and stays.
pub(super) fn run_changed(state: &mut State, before: Option<crate::core::id::RunId>) {
    if state.selected_run() != before && state.sources.grouping == Grouping::ByStep {
        state.sources.filter.clear();
        state.sources.filtering = false;
        state.sources.cursor = 0;
    }
}

fn filter_changed(state: &mut State) -> Vec<Effect> {
    state.sources.cursor = 0;
    if state.sources.grouping == Grouping::ByDomain {
        vec![Effect::Search(state.sources.filter.clone())]
    } else {
        Vec::new()
    }
}

/// The Sources screen's actions: its panes, its lists, and what it does with the
/// selected run or citation.
pub(super) fn on_sources(state: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::SwitchPane => state.sources.in_citations = !state.sources.in_citations,
        Action::GroupBy => {
            state.sources.grouping = if state.sources.grouping == Grouping::ByStep {
                Grouping::ByDomain
            } else {
                Grouping::ByStep
            };
            state.sources.in_citations = state.sources.grouping == Grouping::ByDomain;
            return vec![Effect::LoadRuns];
        }
        Action::Filter => state.sources.filtering = true,
        Action::SearchAll => {
            state.sources.searching = true;
            state.sources.query.clear();
        }
        Action::Refresh => return vec![Effect::LoadRuns],
        Action::Claims => {
            state.sources.claims_view = !state.sources.claims_view;
            state.sources.cursor = 0;
            state.sources.detail = false;
            if let Some(id) = state.selected_run().filter(|_| state.sources.claims_view) {
                return vec![Effect::LoadClaims(id)];
            }
        }
        Action::CheckSources => {
            if let Some(run_id) = state.selected_run() {
                state.say(
                    format!("checking the sources of run {run_id} from this machine …"),
                    false,
                );
                return vec![Effect::CheckSources(run_id)];
            }
        }
        Action::ExportSources => {
            if let Some(run_id) = state.selected_run() {
                return vec![Effect::ExportSources(run_id)];
            }
        }
        Action::NextRequest => {
            if let Some(run_id) = state.selected_run() {
                return vec![Effect::PreviewNext(run_id)];
            }
        }
        Action::Copy | Action::OpenUrl => {
            if let Some(url) = state.url_at_cursor() {
                if action == Action::Copy {
                    return vec![Effect::Copy(url)];
                }
                // The URL is the vendor's: only an http(s) link reaches the opener.
                match crate::core::link::openable(&url) {
                    Ok(url) => return vec![Effect::Open(url)],
                    Err(why) => state.say(
                        format!("not opened: only http(s) links are opened, {why}"),
                        true,
                    ),
                }
            }
        }
        Action::OpenRun => {
            if let Some(Ok(hits)) = &state.sources.hits {
                if let Some(hit) = hits.get(state.sources.cursor) {
                    state.pending_step = Some(hit.step);
                    return vec![Effect::OpenRun(hit.run_id)];
                }
            } else if state.sources.in_citations && state.sources.claims_view {
                // The claims view shows every source already.
            } else if state.sources.in_citations {
                state.sources.detail = !state.visible_citations().is_empty();
            } else if let Some(id) = state.selected_run() {
                return vec![Effect::OpenRun(id)];
            }
        }
        // The other actions are handled by `on_action`.
        _ => {}
    }
    Vec::new()
}
