//! `update(&mut State, Msg) -> Vec<Effect>`: the pure half of the console. A key
//! or wheel step goes to `input` (through the bindings the state's `keys` holds; the Sources
//! screen's typing and actions are in `sources`); a run's event to the Run panes'
//! fold; what the store answered to the screen it was asked for.
//! Effects are returned, never performed here.

mod compare;
pub mod input;
mod sources;

use crate::console::state::keys::Action;

use crate::console::state::{Effect, Grouping, Msg, Screen, State, Tone, Wheel};

/// Apply one message.
pub fn update(state: &mut State, msg: Msg) -> Vec<Effect> {
    let effects = apply(state, msg);
    // A notice about the form leaves once the form no longer says what it said.
    if let Some(cause) = &state.notice_cause {
        if !cause.holds(state) {
            state.notice = None;
            state.notice_cause = None;
            state.dirty = true;
        }
    }
    effects
}

fn apply(state: &mut State, msg: Msg) -> Vec<Effect> {
    state.dirty = true;
    match msg {
        Msg::Key(key) => input::on_key(state, key),
        Msg::Scroll(wheel) if state.help => {
            state.help_scroll = if wheel == Wheel::Up {
                state.help_scroll.saturating_sub(1)
            } else {
                state.help_scroll.saturating_add(1)
            };
            Vec::new()
        }
        Msg::Scroll(Wheel::Up) => input::on_action(state, Action::Up),
        Msg::Scroll(Wheel::Down) => input::on_action(state, Action::Down),
        Msg::Resize => Vec::new(),
        Msg::Tick(elapsed) => {
            tick(state, elapsed);
            Vec::new()
        }
        Msg::Run(event) => {
            let finished = matches!(event.kind, crate::core::event::EventKind::Finished { .. });
            state.run.apply(&event);
            if finished {
                vec![Effect::LoadRuns]
            } else {
                Vec::new()
            }
        }
        Msg::GroupRun { vendor, event } => {
            state.compare.apply(vendor, &event);
            Vec::new()
        }
        Msg::Compared(result) => {
            if let Err(e) = &result {
                state.say(e.clone(), true);
            }
            state.compare.ended(result);
            vec![Effect::LoadRuns, Effect::LoadGroups]
        }
        Msg::Approval(request) => {
            state.run.approval = Some(request);
            Vec::new()
        }
        Msg::RunFailed(message) => {
            state.run.failed(&message);
            Vec::new()
        }
        Msg::WorkspaceRefused(message) => {
            workspace_refused(state, message);
            Vec::new()
        }
        msg @ (Msg::Runs(_)
        | Msg::Groups(_)
        | Msg::Evals(_)
        | Msg::Eval(_)
        | Msg::RunSources { .. }
        | Msg::Claims(_)
        | Msg::Found(_)
        | Msg::Past(_)
        | Msg::Hits(_)
        | Msg::Next { .. }) => read(state, msg),
        Msg::Notice { text, tone } => {
            state.say(text, tone == Tone::Error);
            Vec::new()
        }
    }
}

/// What an effect read from the store, put where its screen shows it.
fn read(state: &mut State, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Runs(runs) => on_runs(state, runs),
        Msg::Groups(groups) => {
            let c = &mut state.compare;
            c.stored = groups;
            c.stored_at = c.stored_at.min(c.listed().saturating_sub(1));
            Vec::new()
        }
        Msg::Evals(evals) => {
            let c = &mut state.compare;
            c.evals = evals;
            c.stored_at = c.stored_at.min(c.listed().saturating_sub(1));
            Vec::new()
        }
        Msg::Eval(report) => {
            compare::opened_eval(state, report.map(|r| *r));
            Vec::new()
        }
        Msg::RunSources {
            citations,
            calls,
            checks,
            suggestions,
        } => {
            state.sources.suggestions = suggestions;
            state.sources.checks = checks;
            state.sources.citations = citations;
            state.sources.failures = calls;
            state.sources.cursor = 0;
            Vec::new()
        }
        Msg::Claims(claims) => {
            state.sources.claims = Some(*claims);
            Vec::new()
        }
        Msg::Found(citations) => {
            state.sources.citations = citations;
            state.sources.cursor = 0;
            Vec::new()
        }
        Msg::Past(past) => {
            state.run = past.view();
            state.run.focus_step = state.pending_step.take();
            state.run_scroll = 0;
            state.screen = Screen::Run;
            Vec::new()
        }
        Msg::Hits(hits) => {
            state.sources.in_citations = true;
            state.sources.cursor = 0;
            state.sources.hits = Some(hits);
            Vec::new()
        }
        Msg::Next { run_id, lines } => {
            state.sources.next = Some((run_id, lines));
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Nothing started: back to the form, the workspace field focused, the
/// refusal on the status line.
fn workspace_refused(state: &mut State, message: String) {
    if state.run.running {
        state.run = crate::console::state::run::RunView::default();
    }
    if state.compare.running {
        state.compare = crate::console::state::compare::CompareView::default();
    }
    state.screen = Screen::Declare;
    state.form.focus = crate::console::state::form::Field::Workspace;
    state.say(message, true);
}

/// Time passed: the spinner turns and the run's clock moves while something
/// runs; otherwise nothing moves on screen, so nothing is redrawn.
fn tick(state: &mut State, elapsed: Option<u64>) {
    match elapsed {
        // A comparison's columns move with their own events; the spinner turns.
        Some(_) if state.compare.running => {
            state.spinner = state.spinner.wrapping_add(1);
        }
        Some(ms) if state.run.running => {
            state.run.elapsed_ms = state.run.elapsed_ms.max(ms);
            state.spinner = state.spinner.wrapping_add(1);
        }
        _ => state.dirty = false,
    }
}

/// The store's runs arrived: keep the selected run — not its row: a new run
/// arriving above it moves it down — or take the run Compare asked for, and
/// load what the Sources screen shows for it.
fn on_runs(state: &mut State, runs: Vec<crate::store::RunRow>) -> Vec<Effect> {
    let before = state.selected_run();
    state.sources.runs = runs;
    state.sources.loaded = true;
    // Opened from Compare: that run, where the list has it; else the one selected.
    let wanted = state.sources.select_run.take().or(before);
    if let Some(id) = wanted {
        if let Some(i) = state.sources.runs.iter().position(|r| r.run_id == id) {
            state.sources.selected = i;
        }
    }
    state.sources.selected = state
        .sources
        .selected
        .min(state.sources.runs.len().saturating_sub(1));
    sources::run_changed(state, before);
    match (state.sources.grouping, state.selected_run()) {
        (Grouping::ByStep, Some(id)) if state.sources.claims_view => {
            vec![Effect::LoadRunSources(id), Effect::LoadClaims(id)]
        }
        (Grouping::ByStep, Some(id)) => vec![Effect::LoadRunSources(id)],
        (Grouping::ByDomain, _) => vec![Effect::Search(state.sources.filter.clone())],
        _ => Vec::new(),
    }
}
