//! The key half of `update`: a key (or wheel step) becomes an action through the
//! keymap, text entry takes plain keys first, and each action changes the state and
//! returns the effects it needs. Pure, like the rest of `update`.

use crossterm::event::{KeyCode, KeyEvent};

use crate::approve::Answer;
use crate::console::state::form::{FIELDS, Field};
use crate::console::state::keys::{Action, Scope};
use crate::console::state::run::RunView;
use crate::console::state::theme::{BUILT_IN, Theme};
use crate::console::state::{Effect, Grouping, NoticeCause, Screen, State};
use crate::console::update::sources::{on_sources, typing};
use crate::core::transcript::{CacheTtl, Conversation};
use crate::core::vendor::Vendor;

pub(super) fn on_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
    if state.help {
        if state.keys.lookup(Scope::Global, &key) == Some(Action::Quit) {
            return quit(state);
        }
        match key.code {
            KeyCode::Up => state.help_scroll = state.help_scroll.saturating_sub(1),
            KeyCode::Down => state.help_scroll = state.help_scroll.saturating_add(1),
            KeyCode::PageUp => state.help_scroll = state.help_scroll.saturating_sub(10),
            KeyCode::PageDown => state.help_scroll = state.help_scroll.saturating_add(10),
            _ => state.help = false,
        }
        return Vec::new();
    }
    let action = state.keys.lookup(state.scope(), &key);
    // Ctrl-C quits unless it was bound to something else; while a run is in
    // flight it asks first (a second Ctrl-C confirms).
    let ctrl_c = action.is_none()
        && key.code == KeyCode::Char('c')
        && key
            .modifiers
            .contains(crossterm::event::KeyModifiers::CONTROL);
    let confirming = std::mem::take(&mut state.confirm_quit);
    if ctrl_c && (confirming || !state.busy()) {
        return quit(state);
    }
    if ctrl_c {
        state.confirm_quit = true;
        let text = format!(
            "a run is in progress: ctrl-c again cancels it and quits; {} cancels the run only",
            state.keys.key_for(Action::Cancel)
        );
        state.say(text, true);
        return Vec::new();
    }
    // Text entry swallows plain keys before bindings see them; a chord or a
    // function key commits the edit and does what it is bound to — unless the
    // edit cannot be committed, which then stays in its field, marked.
    let plain = !key
        .modifiers
        .intersects(crossterm::event::KeyModifiers::CONTROL | crossterm::event::KeyModifiers::ALT)
        && matches!(
            key.code,
            KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Enter | KeyCode::Esc
        );
    if state.screen == Screen::Declare && state.run.approval.is_none() {
        if let Some((buf, before)) = state.form.editing.take() {
            if plain {
                return edit_line(state, key, buf, before);
            }
            // Quitting goes ahead either way.
            if !commit(state, buf, before) && action != Some(Action::Quit) {
                return Vec::new();
            }
        }
    }
    if state.screen == Screen::Sources && (state.sources.searching || state.sources.filtering) {
        if let Some(effects) = typing(state, key) {
            return effects;
        }
    }
    let goal_focused = state.screen == Screen::Declare
        && state.form.focus == Field::Goal
        && state.run.approval.is_none();
    match action {
        Some(
            a @ (Action::NextField
            | Action::PrevField
            | Action::Help
            | Action::ShowDeclare
            | Action::ShowRun
            | Action::ShowSources
            | Action::ShowCompare
            | Action::StartRun
            | Action::StartCompare
            | Action::Quit
            | Action::Save
            | Action::CycleTheme
            | Action::Cancel
            | Action::SideBySide
            | Action::FoldTools
            | Action::AgentPreview
            | Action::PageUp
            | Action::PageDown),
        ) => on_action(state, a),
        _ if goal_focused => {
            if state.form.goal.input(key) {
                state.refresh_preview();
            }
            Vec::new()
        }
        Some(a) => on_action(state, a),
        None => Vec::new(),
    }
}

fn edit_line(state: &mut State, key: KeyEvent, mut buf: String, before: String) -> Vec<Effect> {
    let field = state.form.focus;
    match key.code {
        KeyCode::Enter => {
            commit(state, buf, before);
            return Vec::new();
        }
        KeyCode::Esc => {
            // Esc undoes the edit: the committed value stays, as the help says.
            state.form.error = None;
            state.refresh_preview();
            return Vec::new();
        }
        KeyCode::Backspace => {
            buf.pop();
        }
        KeyCode::Char(c) => buf.push(c),
        _ => {}
    }
    // Checked as typed, so the mark appears at once; committed only by Enter.
    state.form.error = state.form.clone().set(field, &buf).err();
    state.form.editing = Some((buf, before));
    state.refresh_preview();
    Vec::new()
}

/// Take a line edit into the form when it is valid; otherwise leave it in its
/// field with the reason. Returns whether it was committed.
fn commit(state: &mut State, buf: String, before: String) -> bool {
    let field = state.form.focus;
    match state.form.set(field, &buf) {
        Ok(()) => {
            state.form.error = None;
            state.refresh_preview();
            true
        }
        Err(e) => {
            state.form.error = Some(e);
            state.form.editing = Some((buf, before));
            false
        }
    }
}

fn quit(state: &mut State) -> Vec<Effect> {
    if state.busy() {
        vec![Effect::CancelRun, Effect::Quit]
    } else {
        vec![Effect::Quit]
    }
}

pub(super) fn on_action(state: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Quit => return quit(state),
        Action::Help => {
            state.help = true;
            state.help_scroll = 0;
        }
        Action::ShowDeclare => state.screen = Screen::Declare,
        Action::ShowRun => state.screen = Screen::Run,
        Action::ShowSources => {
            state.screen = Screen::Sources;
            return vec![Effect::LoadRuns];
        }
        Action::ShowCompare => {
            state.screen = Screen::Compare;
            return vec![Effect::LoadGroups, Effect::LoadEvals];
        }
        Action::StartRun => return start_run(state),
        Action::StartCompare => return super::compare::start(state),
        Action::OpenCompared | Action::SourcesOfCompared | Action::RunOfCompared => {
            return super::compare::open(state, action);
        }
        Action::ExportEval => return super::compare::export(state),
        Action::CompareUp => state.compare.scroll = state.compare.scroll.saturating_sub(10),
        Action::CompareDown => state.compare.scroll = state.compare.scroll.saturating_add(10),
        Action::Save => return vec![Effect::SaveWeb(Box::new(state.form.web()))],
        Action::CycleTheme => cycle_theme(state),
        Action::Cancel => return cancel(state),
        Action::Approve | Action::Deny | Action::ApproveForRun => {
            if state.run.approval.take().is_some() {
                return vec![Effect::Answer(match action {
                    Action::Approve => Answer::Yes,
                    Action::ApproveForRun => Answer::ForRun,
                    _ => Answer::No,
                })];
            }
        }
        Action::SideBySide => state.side_by_side = !state.side_by_side,
        Action::FoldTools => {
            state.tools_folded = !state.tools_folded;
            state.refresh_preview();
        }
        Action::AgentPreview => {
            let n = state.form.agents.len();
            state.form.agent_preview = match state.form.agent_preview {
                None if n > 0 => Some(0),
                Some(i) if i + 1 < n => Some(i + 1),
                _ => None,
            };
            state.refresh_preview();
        }
        Action::PageUp => state.preview_scroll = state.preview_scroll.saturating_sub(10),
        Action::PageDown => state.preview_scroll = state.preview_scroll.saturating_add(10),
        Action::NextField | Action::PrevField => next_field(state, action == Action::NextField),
        Action::Activate => activate(state),
        Action::Up | Action::Down => return move_cursor(state, action == Action::Up),
        Action::SwitchPane
        | Action::GroupBy
        | Action::Filter
        | Action::SearchAll
        | Action::Refresh
        | Action::CheckSources
        | Action::ExportSources
        | Action::NextRequest
        | Action::Copy
        | Action::OpenUrl
        | Action::Claims
        | Action::OpenRun => return on_sources(state, action),
    }
    Vec::new()
}

/// Esc: answers a pending approval no, else closes what is open on Sources
/// (the next request, the search hits, a citation's detail), else asks to cancel
/// a running comparison (a second Esc does), else cancels the run.
fn cancel(state: &mut State) -> Vec<Effect> {
    if state.run.approval.take().is_some() {
        return vec![Effect::Answer(Answer::No)];
    }
    if state.sources.next.take().is_some() {
    } else if state.sources.hits.take().is_some() {
        state.sources.in_citations = false;
    } else if state.sources.detail {
        state.sources.detail = false;
    } else if state.screen == Screen::Sources && state.sources.claims_view {
        state.sources.claims_view = false;
        state.sources.cursor = 0;
    } else if let Some(effects) = super::compare::cancel(state) {
        return effects;
    } else if state.run.running {
        return vec![Effect::CancelRun];
    }
    Vec::new()
}

/// Tab and shift-tab on the Declare form, wrapping round.
fn next_field(state: &mut State, forward: bool) {
    let i = FIELDS
        .iter()
        .position(|f| *f == state.form.focus)
        .unwrap_or(0);
    let n = FIELDS.len();
    state.form.focus = FIELDS[if forward {
        (i + 1) % n
    } else {
        (i + n - 1) % n
    }];
}

/// Start the declared run: refused while one runs, when the chosen vendor refuses
/// the declaration, or with no goal — each said in the status line.
fn start_run(state: &mut State) -> Vec<Effect> {
    if state.busy() {
        state.say("a run is already in progress; Esc cancels it", true);
        return Vec::new();
    }
    if let Some(refusal) = state
        .previews
        .iter()
        .find(|p| p.vendor == state.form.vendor)
        .and_then(|p| p.request.as_ref().err())
    {
        let refusal = refusal.clone();
        state.say(refusal.clone(), true);
        state.notice_cause = Some(NoticeCause::Refused(refusal));
        return Vec::new();
    }
    if state.form.goal_text().trim().is_empty() {
        state.say(
            "the goal is empty: type what the run should achieve first",
            true,
        );
        state.notice_cause = Some(NoticeCause::EmptyGoal);
        return Vec::new();
    }
    state.run = RunView {
        running: true,
        goal: state.form.goal_text(),
        vendor: Some(state.form.vendor),
        model: state.form.model(),
        ..RunView::default()
    };
    state.screen = Screen::Run;
    state.notice = None;
    state.notice_cause = None;
    vec![Effect::StartRun {
        contract: Box::new(state.form.contract()),
        vendor: state.form.vendor,
        model: state.form.model(),
    }]
}

/// The next built-in theme, named in the status line.
fn cycle_theme(state: &mut State) {
    let i = BUILT_IN
        .iter()
        .position(|(n, _)| *n == state.theme.0)
        .map_or(0, |i| (i + 1) % BUILT_IN.len());
    let (name, text) = BUILT_IN[i];
    if let Ok(t) = Theme::parse(text, name) {
        state.theme = (name.to_string(), t);
        state.say(format!("theme: {name}"), false);
    }
}

fn activate(state: &mut State) {
    let f = &mut state.form;
    match f.focus {
        Field::Goal => {}
        Field::Provider => {
            let i = Vendor::ALL.iter().position(|v| *v == f.vendor).unwrap_or(0);
            f.vendor = Vendor::ALL[(i + 1) % Vendor::ALL.len()];
        }
        Field::Search => f.search = !f.search,
        Field::Fetch => f.fetch = !f.fetch,
        // flattened → transcript → transcript · cache 5m → transcript · cache 1h → …
        Field::Conversation => {
            (f.conversation, f.cache) = match (f.conversation, f.cache) {
                (Conversation::Flattened, _) => (Conversation::Transcript, None),
                (Conversation::Transcript, None) => {
                    (Conversation::Transcript, Some(CacheTtl::FiveMinutes))
                }
                (Conversation::Transcript, Some(CacheTtl::FiveMinutes)) => {
                    (Conversation::Transcript, Some(CacheTtl::OneHour))
                }
                (Conversation::Transcript, Some(CacheTtl::OneHour)) => {
                    (Conversation::Flattened, None)
                }
            }
        }
        other => {
            let v = f.value(other);
            f.editing = Some((v.clone(), v));
        }
    }
    state.refresh_preview();
}

fn move_cursor(state: &mut State, up: bool) -> Vec<Effect> {
    let step = |v: usize, len: usize| {
        if up {
            v.saturating_sub(1)
        } else {
            (v + 1).min(len.saturating_sub(1))
        }
    };
    match state.screen {
        Screen::Declare => {
            state.preview_scroll = if up {
                state.preview_scroll.saturating_sub(1)
            } else {
                state.preview_scroll.saturating_add(1)
            };
        }
        Screen::Compare => state.compare.choose(up),
        Screen::Run => {
            state.run.focus_step = None;
            state.run_scroll = if up {
                state.run_scroll.saturating_add(1)
            } else {
                state.run_scroll.saturating_sub(1)
            };
        }
        Screen::Sources => {
            if let Some(Ok(hits)) = &state.sources.hits {
                state.sources.cursor = step(state.sources.cursor, hits.len());
            } else if state.sources.in_citations && state.sources.claims_view {
                let n = state.sources.claims.as_ref().map_or(0, |c| c.claims.len());
                state.sources.cursor = step(state.sources.cursor, n);
            } else if state.sources.in_citations {
                let rows = state.visible_citations().len() + state.visible_suggestions().len();
                state.sources.cursor = step(state.sources.cursor, rows);
            } else {
                let before = state.sources.selected;
                let run = state.selected_run();
                state.sources.selected = step(before, state.sources.runs.len());
                super::sources::run_changed(state, run);
                if state.sources.selected != before && state.sources.grouping == Grouping::ByStep {
                    if let Some(id) = state.selected_run() {
                        let mut load = vec![Effect::LoadRunSources(id)];
                        if state.sources.claims_view {
                            load.push(Effect::LoadClaims(id));
                        }
                        return load;
                    }
                }
            }
        }
    }
    Vec::new()
}
