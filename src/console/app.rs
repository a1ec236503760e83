//! The console's state and its pure `update(&mut State, Msg) -> Vec<Effect>`.
//! Nothing here performs I/O: effects (start a run, load from the store, write
//! io.toml, copy a URL) are returned for the loop in `console::mod` to perform,
//! and their results come back as messages.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;

use super::form::{FIELDS, Field, Form, VendorPreview};
use super::keys::{Action, Keymap, Scope};
use super::runview::{PastRun, RunView};
use super::theme::{BUILT_IN, Theme};
use crate::approve::ApprovalRequest;
use crate::core::contract::TaskContract;
use crate::core::event::{Event, RunId};
use crate::core::price::PriceTable;
use crate::core::vendor::Vendor;
use crate::core::web::WebAccess;
use crate::store::{CitationRow, RunRow, ServerToolCallRow};

/// The screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// Declare and Preview.
    Declare,
    /// Run panes.
    Run,
    /// Sources.
    Sources,
}

/// How Sources groups citations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// The selected run's citations by step.
    ByStep,
    /// Citations across runs by domain.
    ByDomain,
}

/// The Sources screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Sources {
    /// Runs, newest first.
    pub runs: Vec<RunRow>,
    /// Selected run.
    pub selected: usize,
    /// Focus on the citation list rather than the runs.
    pub in_citations: bool,
    /// Grouping.
    pub grouping: Grouping,
    /// Filter text.
    pub filter: String,
    /// Typing into the filter.
    pub filtering: bool,
    /// Citations shown (the run's, or across runs).
    pub citations: Vec<CitationRow>,
    /// The selected run's server-tool calls.
    pub failures: Vec<ServerToolCallRow>,
    /// Selected citation.
    pub cursor: usize,
    /// Showing the detail of the selected citation.
    pub detail: bool,
    /// The store has answered at least once.
    pub loaded: bool,
}

/// Everything the console shows.
#[derive(Debug, Clone)]
pub struct State {
    /// Current screen.
    pub screen: Screen,
    /// Help overlay shown.
    pub help: bool,
    /// First help row shown.
    pub help_scroll: u16,
    /// Bindings.
    pub keys: Keymap,
    /// Theme name and colours.
    pub theme: (String, Theme),
    /// The form.
    pub form: Form,
    /// Previews, recomputed on every edit.
    pub previews: Vec<VendorPreview>,
    /// All three vendors side by side.
    pub side_by_side: bool,
    /// Preview scroll offset.
    pub preview_scroll: u16,
    /// The Run panes.
    pub run: RunView,
    /// Log scroll offset from the end.
    pub run_scroll: u16,
    /// Sources.
    pub sources: Sources,
    /// Prices for past runs' costs.
    pub prices: PriceTable,
    /// What the console is connected to (e.g. the offline demo).
    pub mode: String,
    /// The last notice, and whether it is an error.
    pub notice: Option<(String, bool)>,
    /// Spinner frame.
    pub spinner: usize,
    /// Something changed since the last draw.
    pub dirty: bool,
}

/// What happened.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key.
    Key(KeyEvent),
    /// Mouse wheel: true for up.
    Scroll(bool),
    /// The terminal was resized.
    Resize,
    /// Time passed: spins the spinner; carries the run's elapsed time while one runs.
    Tick(Option<u64>),
    /// A run event.
    Run(Box<Event>),
    /// The run asks for approval.
    Approval(ApprovalRequest),
    /// The run task ended with an error before or outside its outcome.
    RunFailed(String),
    /// Runs from the store.
    Runs(Vec<RunRow>),
    /// One run's citations and server-tool calls.
    RunSources(Vec<CitationRow>, Vec<ServerToolCallRow>),
    /// Citations across runs.
    Found(Vec<CitationRow>),
    /// A past run for the Run panes.
    Past(Box<PastRun>),
    /// A notice for the status line.
    Notice(String, bool),
}

/// What the loop must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Start a run.
    StartRun {
        /// The contract.
        contract: Box<TaskContract>,
        /// The vendor.
        vendor: Vendor,
        /// The model.
        model: String,
    },
    /// Cancel the run.
    CancelRun,
    /// Answer the pending approval.
    Answer(bool),
    /// Load runs.
    LoadRuns,
    /// Load one run's citations and server-tool calls.
    LoadRunSources(RunId),
    /// Search citations across runs.
    Search(String),
    /// Load a past run into the Run panes.
    OpenRun(RunId),
    /// Write `[web]` to io.toml.
    SaveWeb(WebAccess),
    /// Copy to the clipboard (OSC 52).
    Copy(String),
    /// Open in the browser.
    Open(String),
    /// Quit.
    Quit,
}

impl State {
    /// A state around a form.
    pub fn new(
        form: Form,
        keys: Keymap,
        theme: (String, Theme),
        prices: PriceTable,
        mode: String,
    ) -> State {
        let previews = form.previews();
        State {
            screen: Screen::Declare,
            help: false,
            help_scroll: 0,
            keys,
            theme,
            form,
            previews,
            side_by_side: false,
            preview_scroll: 0,
            run: RunView::default(),
            run_scroll: 0,
            sources: Sources {
                runs: Vec::new(),
                selected: 0,
                in_citations: false,
                grouping: Grouping::ByStep,
                filter: String::new(),
                filtering: false,
                citations: Vec::new(),
                failures: Vec::new(),
                cursor: 0,
                detail: false,
                loaded: false,
            },
            prices,
            mode,
            notice: None,
            spinner: 0,
            dirty: true,
        }
    }

    fn scope(&self) -> Scope {
        if self.run.approval.is_some() {
            return Scope::Approval;
        }
        match self.screen {
            Screen::Declare => Scope::Declare,
            Screen::Run => Scope::Run,
            Screen::Sources => Scope::Sources,
        }
    }

    fn refresh_preview(&mut self) {
        self.previews = self.form.previews();
    }

    /// Citations after the filter (by-step mode filters here; by-domain asked the store).
    pub fn visible_citations(&self) -> Vec<&CitationRow> {
        let f = self.sources.filter.to_lowercase();
        let mut shown: Vec<&CitationRow> = self
            .sources
            .citations
            .iter()
            .filter(|c| {
                self.sources.grouping == Grouping::ByDomain
                    || f.is_empty()
                    || [Some(&c.url), c.title.as_ref(), c.cited_text.as_ref()]
                        .iter()
                        .flatten()
                        .any(|t| t.to_lowercase().contains(&f))
            })
            .collect();
        // In display order, so the cursor moves down the screen, not around it.
        match self.sources.grouping {
            Grouping::ByDomain => shown.sort_by_key(|c| host_of(&c.url)),
            Grouping::ByStep => shown.sort_by_key(|c| (c.run_id, c.step)),
        }
        shown
    }

    fn selected_run(&self) -> Option<RunId> {
        self.sources
            .runs
            .get(self.sources.selected)
            .map(|r| r.run_id)
    }
}

/// The host of a URL, for grouping; `(no host)` when it has none.
pub fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| "(no host)".into())
}

/// Apply one message.
pub fn update(state: &mut State, msg: Msg) -> Vec<Effect> {
    state.dirty = true;
    match msg {
        Msg::Key(key) => on_key(state, key),
        Msg::Scroll(up) => on_action(state, if up { Action::Up } else { Action::Down }),
        Msg::Resize => Vec::new(),
        Msg::Tick(elapsed) => {
            match elapsed {
                Some(ms) if state.run.running => {
                    state.run.elapsed_ms = state.run.elapsed_ms.max(ms);
                    state.spinner = state.spinner.wrapping_add(1);
                }
                // Nothing moves on screen: no redraw.
                _ => state.dirty = false,
            }
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
        Msg::Approval(request) => {
            state.run.approval = Some(request);
            Vec::new()
        }
        Msg::RunFailed(message) => {
            state.run.running = false;
            state.run.in_flight = false;
            state.notice = Some((message, true));
            Vec::new()
        }
        Msg::Runs(runs) => {
            state.sources.runs = runs;
            state.sources.loaded = true;
            state.sources.selected = state
                .sources
                .selected
                .min(state.sources.runs.len().saturating_sub(1));
            match (state.sources.grouping, state.selected_run()) {
                (Grouping::ByStep, Some(id)) => vec![Effect::LoadRunSources(id)],
                (Grouping::ByDomain, _) => vec![Effect::Search(state.sources.filter.clone())],
                _ => Vec::new(),
            }
        }
        Msg::RunSources(citations, failures) => {
            state.sources.citations = citations;
            state.sources.failures = failures;
            state.sources.cursor = 0;
            Vec::new()
        }
        Msg::Found(citations) => {
            state.sources.citations = citations;
            state.sources.cursor = 0;
            Vec::new()
        }
        Msg::Past(past) => {
            state.run = past.view(&state.prices);
            state.screen = Screen::Run;
            Vec::new()
        }
        Msg::Notice(text, error) => {
            state.notice = Some((text, error));
            Vec::new()
        }
    }
}

fn on_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
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
    // Text entry swallows plain keys before bindings see them; a chord or a
    // function key ends the edit (keeping it) and does what it is bound to.
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
        }
    }
    if state.screen == Screen::Sources && state.sources.filtering {
        match key.code {
            KeyCode::Char(c)
                if key
                    .modifiers
                    .difference(crossterm::event::KeyModifiers::SHIFT)
                    .is_empty() =>
            {
                state.sources.filter.push(c);
                return filter_changed(state);
            }
            KeyCode::Backspace => {
                state.sources.filter.pop();
                return filter_changed(state);
            }
            KeyCode::Enter | KeyCode::Esc => {
                state.sources.filtering = false;
                return Vec::new();
            }
            _ => {}
        }
    }
    let action = state.keys.lookup(state.scope(), &key);
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
            | Action::StartRun
            | Action::Quit
            | Action::Save
            | Action::CycleTheme
            | Action::Cancel
            | Action::SideBySide
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

fn filter_changed(state: &mut State) -> Vec<Effect> {
    state.sources.cursor = 0;
    if state.sources.grouping == Grouping::ByDomain {
        vec![Effect::Search(state.sources.filter.clone())]
    } else {
        Vec::new()
    }
}

fn edit_line(state: &mut State, key: KeyEvent, mut buf: String, before: String) -> Vec<Effect> {
    let field = state.form.focus;
    match key.code {
        KeyCode::Enter => {
            state.form.editing = None;
            return Vec::new();
        }
        KeyCode::Esc => {
            let _ = state.form.set(field, &before);
            state.form.editing = None;
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
    state.form.error = state.form.set(field, &buf).err();
    state.form.editing = Some((buf, before));
    state.refresh_preview();
    Vec::new()
}

fn quit(state: &mut State) -> Vec<Effect> {
    if state.run.running {
        vec![Effect::CancelRun, Effect::Quit]
    } else {
        vec![Effect::Quit]
    }
}

fn on_action(state: &mut State, action: Action) -> Vec<Effect> {
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
        Action::StartRun => {
            if state.run.running {
                state.notice = Some(("a run is already in progress; Esc cancels it".into(), true));
                return Vec::new();
            }
            if let Some(refusal) = state
                .previews
                .iter()
                .find(|p| p.vendor == state.form.vendor)
                .and_then(|p| p.request.as_ref().err())
            {
                state.notice = Some((refusal.clone(), true));
                return Vec::new();
            }
            if state.form.goal_text().trim().is_empty() {
                state.notice = Some((
                    "the goal is empty: type what the run should achieve first".into(),
                    true,
                ));
                return Vec::new();
            }
            state.run = RunView {
                running: true,
                goal: state.form.goal_text(),
                provider: format!("{} · {}", state.form.vendor, state.form.model()),
                ..RunView::default()
            };
            state.screen = Screen::Run;
            state.notice = None;
            return vec![Effect::StartRun {
                contract: Box::new(state.form.contract()),
                vendor: state.form.vendor,
                model: state.form.model(),
            }];
        }
        Action::Save => return vec![Effect::SaveWeb(state.form.web())],
        Action::CycleTheme => {
            let i = BUILT_IN
                .iter()
                .position(|(n, _)| *n == state.theme.0)
                .map_or(0, |i| (i + 1) % BUILT_IN.len());
            let (name, text) = BUILT_IN[i];
            if let Ok(t) = Theme::parse(text, name) {
                state.theme = (name.to_string(), t);
            }
        }
        Action::Cancel => {
            if state.run.approval.take().is_some() {
                return vec![Effect::Answer(false)];
            } else if state.sources.detail {
                state.sources.detail = false;
            } else if state.run.running {
                return vec![Effect::CancelRun];
            }
        }
        Action::Approve | Action::Deny => {
            if state.run.approval.take().is_some() {
                return vec![Effect::Answer(action == Action::Approve)];
            }
        }
        Action::SideBySide => state.side_by_side = !state.side_by_side,
        Action::PageUp => state.preview_scroll = state.preview_scroll.saturating_sub(10),
        Action::PageDown => state.preview_scroll = state.preview_scroll.saturating_add(10),
        Action::NextField | Action::PrevField => {
            let i = FIELDS
                .iter()
                .position(|f| *f == state.form.focus)
                .unwrap_or(0);
            let n = FIELDS.len();
            state.form.focus = FIELDS[if action == Action::NextField {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            }];
        }
        Action::Activate => activate(state),
        Action::Up | Action::Down => return move_cursor(state, action == Action::Up),
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
        Action::Refresh => return vec![Effect::LoadRuns],
        Action::Copy | Action::OpenUrl => {
            if let Some(c) = state.visible_citations().get(state.sources.cursor) {
                let url = c.url.clone();
                return vec![if action == Action::Copy {
                    Effect::Copy(url)
                } else {
                    Effect::Open(url)
                }];
            }
        }
        Action::OpenRun => {
            if state.sources.in_citations {
                state.sources.detail = !state.visible_citations().is_empty();
            } else if let Some(id) = state.selected_run() {
                return vec![Effect::OpenRun(id)];
            }
        }
    }
    Vec::new()
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
        Screen::Run => {
            state.run_scroll = if up {
                state.run_scroll.saturating_add(1)
            } else {
                state.run_scroll.saturating_sub(1)
            };
        }
        Screen::Sources => {
            if state.sources.in_citations {
                state.sources.cursor = step(state.sources.cursor, state.visible_citations().len());
            } else {
                let before = state.sources.selected;
                state.sources.selected = step(before, state.sources.runs.len());
                if state.sources.selected != before && state.sources.grouping == Grouping::ByStep {
                    if let Some(id) = state.selected_run() {
                        return vec![Effect::LoadRunSources(id)];
                    }
                }
            }
        }
    }
    Vec::new()
}

/// An empty text area, for tests and a blank form.
pub fn blank_goal() -> TextArea<'static> {
    TextArea::default()
}
