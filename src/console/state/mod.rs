//! The console's state: the screen, the Declare form (`form`, its previews in
//! `preview`), the Run panes (`run`, folded from events by `fold` and `live`, or
//! rebuilt from the store by `past`), the Sources lists, the Compare columns
//! (`compare`) and its evals (`evals`), the theme; and the
//! messages `update` takes and the effects it returns. Nothing here performs I/O:
//! effects (start a run, load from the store, write io.toml, copy a URL) are
//! performed by `console::effects`, and their results come back as messages.

pub mod compare;
pub mod evals;
pub mod fold;
pub mod form;
mod key_text;
pub mod keys;
pub mod live;
pub mod past;
pub mod preview;
pub mod run;
pub mod theme;

use crossterm::event::KeyEvent;

use crate::approve::ApprovalRequest;
use crate::console::state::compare::CompareView;
use crate::console::state::form::{Form, VendorPreview};
use crate::console::state::keys::{Keymap, Scope};
use crate::console::state::past::PastRun;
use crate::console::state::run::RunView;
use crate::console::state::theme::Theme;
use crate::core::contract::TaskContract;
use crate::core::event::Event;
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::price::PriceTable;
use crate::core::vendor::Vendor;
use crate::core::web::WebAccess;
use crate::core::wire::Verdict;
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
    /// One goal on every vendor at once, side by side.
    Compare,
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
    /// Typing a search over every run (`/`).
    pub searching: bool,
    /// The search's text.
    pub query: String,
    /// Its hits, or why there are none, once it ran; shown instead of the
    /// citations until Esc.
    pub hits: Option<std::result::Result<Vec<crate::store::search::Hit>, String>>,
    /// What `check-sources` found for the selected run's citations, if it ran.
    pub checks: Vec<crate::store::verdicts::VerdictRow>,
    /// Selected citation.
    pub cursor: usize,
    /// Showing the detail of the selected citation.
    pub detail: bool,
    /// The store has answered at least once.
    pub loaded: bool,
    /// The request the selected run's next step would send, when asked (`n`):
    /// the run and the request's lines, or why there is none.
    pub next: Option<(RunId, std::result::Result<Vec<String>, String>)>,
    /// The run to select once the runs are loaded (opened from Compare).
    pub select_run: Option<RunId>,
    /// The selected run's search suggestions (Google's, with Gemini): listed
    /// after its citations, the cursor moving on to them.
    pub suggestions: Vec<crate::core::suggestions::Suggestion>,
    /// Showing the claims view: the selected run's final answer sentence by
    /// sentence with its sources, in place of the citations.
    pub claims_view: bool,
    /// The claims the store read for a run (`Store::run_claims`).
    pub claims: Option<crate::store::RunClaims>,
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
    /// Every vendor and wire side by side.
    pub side_by_side: bool,
    /// Preview scroll, in rows from where the view anchors it (the first line the
    /// declaration adds); reset on every edit.
    pub preview_scroll: i16,
    /// Local tool schemas folded to one line each in the preview.
    pub tools_folded: bool,
    /// Every wire's verdict on the declaration (the side-by-side view's table).
    pub wires: Vec<Verdict>,
    /// The Run panes.
    pub run: RunView,
    /// Log scroll offset from the end.
    pub run_scroll: u16,
    /// The step of the search hit whose run is being opened.
    pub pending_step: Option<u32>,
    /// Sources.
    pub sources: Sources,
    /// The Compare screen.
    pub compare: CompareView,
    /// Prices for past runs' costs.
    pub prices: PriceTable,
    /// What the console is connected to (e.g. the offline demo).
    pub mode: String,
    /// The last notice, and whether it is an error.
    pub notice: Option<(String, bool)>,
    /// What the notice is about, when the form can make it untrue: checked after
    /// every message, and the notice goes when its cause has.
    pub notice_cause: Option<NoticeCause>,
    /// Ctrl-C was pressed once while a run was in flight; a second one quits.
    pub confirm_quit: bool,
    /// Spinner frame.
    pub spinner: usize,
    /// Something changed since the last draw.
    pub dirty: bool,
}

/// A notice the form can make untrue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeCause {
    /// The chosen vendor refused the declaration with this text.
    Refused(String),
    /// The goal was empty.
    EmptyGoal,
}

impl NoticeCause {
    /// Whether the form still says what the notice is about.
    pub fn holds(&self, state: &State) -> bool {
        match self {
            NoticeCause::Refused(text) => state
                .previews
                .iter()
                .find(|p| p.vendor == state.form.vendor)
                .is_some_and(|p| p.request.as_ref().err() == Some(text)),
            NoticeCause::EmptyGoal => state.form.goal_text().trim().is_empty(),
        }
    }
}

/// What happened.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key.
    Key(KeyEvent),
    /// The mouse wheel turned.
    Scroll(Wheel),
    /// The terminal was resized.
    Resize,
    /// Time passed: spins the spinner; carries the run's elapsed time while one runs.
    Tick(Option<u64>),
    /// A run event.
    Run(Box<Event>),
    /// An event of one vendor's run in a comparison.
    GroupRun {
        /// Whose run.
        vendor: Vendor,
        /// What happened.
        event: Box<Event>,
    },
    /// A comparison ended: what the store reads back, or why it could not run.
    Compared(std::result::Result<crate::core::compare::Comparison, String>),
    /// The run asks for approval.
    Approval(ApprovalRequest),
    /// The run task ended with an error before or outside its outcome.
    RunFailed(String),
    /// A run or comparison was refused before anything was sent or recorded:
    /// its workspace is not a folder on this machine. The form says it.
    WorkspaceRefused(String),
    /// Runs from the store.
    Runs(Vec<RunRow>),
    /// The comparisons the store holds, newest first.
    Groups(Vec<crate::store::GroupRow>),
    /// The evals the store holds, newest first, each with what it cost.
    Evals(Vec<crate::console::state::evals::EvalListed>),
    /// An eval read back and scored for Compare, or why it could not be.
    Eval(std::result::Result<Box<crate::core::eval::EvalReport>, String>),
    /// One run's sources: its citations (its children's included), its
    /// server-tool calls, and what checking them found.
    RunSources {
        /// The citations.
        citations: Vec<CitationRow>,
        /// The server-tool calls (failed ones among them).
        calls: Vec<ServerToolCallRow>,
        /// The verdicts recorded for them.
        checks: Vec<crate::store::verdicts::VerdictRow>,
        /// The search suggestions its steps were given to show (Google's).
        suggestions: Vec<crate::core::suggestions::Suggestion>,
    },
    /// A run's final answer sentence by sentence, with its sources and figures.
    Claims(Box<crate::store::RunClaims>),
    /// Citations across runs.
    Found(Vec<CitationRow>),
    /// A past run for the Run panes.
    Past(Box<PastRun>),
    /// A search's hits, or why it found none.
    Hits(std::result::Result<Vec<crate::store::search::Hit>, String>),
    /// The request a stored run's next step would send, or why there is none.
    Next {
        /// The run.
        run_id: RunId,
        /// The request as lines, or why there is none.
        lines: std::result::Result<Vec<String>, String>,
    },
    /// A notice for the status line.
    Notice {
        /// What it says.
        text: String,
        /// Said as an error.
        tone: Tone,
    },
}

/// Which way the mouse wheel turned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wheel {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
}

/// How a notice is said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// What was done.
    Info,
    /// What could not be done, and why.
    Error,
}

impl Msg {
    /// A notice of what was done.
    pub fn info(text: impl Into<String>) -> Msg {
        Msg::Notice {
            text: text.into(),
            tone: Tone::Info,
        }
    }

    /// A notice of what could not be done.
    pub fn error(text: impl Into<String>) -> Msg {
        Msg::Notice {
            text: text.into(),
            tone: Tone::Error,
        }
    }
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
    /// Run the contract on each vendor at once, as a run group (a vendor that
    /// cannot carry it is recorded with its refusal).
    StartCompare {
        /// The contract.
        contract: Box<TaskContract>,
        /// Each vendor with the model the form names for it.
        vendors: Vec<(Vendor, String)>,
    },
    /// Cancel the run (or every run of a comparison).
    CancelRun,
    /// Answer the pending approval.
    Answer(crate::approve::Answer),
    /// Load runs.
    LoadRuns,
    /// Load the stored comparisons (run groups).
    LoadGroups,
    /// Read a stored comparison back for the Compare screen.
    OpenGroup(GroupId),
    /// Load the stored evals.
    LoadEvals,
    /// Read a stored eval back, scored, for the Compare screen.
    OpenEval(EvalId),
    /// Write an eval's matrix and per-question table as Markdown next to io.toml.
    ExportEval(EvalId),
    /// Load one run's citations and server-tool calls.
    LoadRunSources(RunId),
    /// Load one run's claims (its final answer sentence by sentence).
    LoadClaims(RunId),
    /// Search citations across runs.
    Search(String),
    /// Load a past run into the Run panes.
    OpenRun(RunId),
    /// Write a run's sources as Markdown next to io.toml.
    ExportSources(RunId),
    /// Search every run.
    SearchAll(String),
    /// Fetch a run's sources under the policy and record the verdicts.
    CheckSources(RunId),
    /// Build the request a stored run's next step would send (as `run --resume`
    /// sends it: on the run's own vendor, wire and model).
    PreviewNext(RunId),
    /// Write `[web]` to io.toml.
    SaveWeb(Box<WebAccess>),
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
        let previews = form.previews(true);
        let wires = crate::core::wire::portability(Some(&form.web()), |v| form.model_for(v));
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
            tools_folded: true,
            wires,
            run: RunView::default(),
            run_scroll: 0,
            pending_step: None,
            sources: Sources {
                runs: Vec::new(),
                selected: 0,
                in_citations: false,
                grouping: Grouping::ByStep,
                filter: String::new(),
                filtering: false,
                citations: Vec::new(),
                suggestions: Vec::new(),
                failures: Vec::new(),
                checks: Vec::new(),
                searching: false,
                query: String::new(),
                hits: None,
                cursor: 0,
                detail: false,
                loaded: false,
                next: None,
                select_run: None,
                claims_view: false,
                claims: None,
            },
            compare: CompareView::default(),
            prices,
            mode,
            notice: None,
            notice_cause: None,
            confirm_quit: false,
            spinner: 0,
            dirty: true,
        }
    }

    pub(super) fn scope(&self) -> Scope {
        if self.run.approval.is_some() {
            return Scope::Approval;
        }
        match self.screen {
            Screen::Declare => Scope::Declare,
            Screen::Run => Scope::Run,
            Screen::Sources => Scope::Sources,
            Screen::Compare => Scope::Compare,
        }
    }

    /// A run (or a comparison) is in progress.
    pub fn busy(&self) -> bool {
        self.run.running || self.compare.running
    }

    /// Put a notice on the status line (replacing any, and its cause).
    pub(super) fn say(&mut self, text: impl Into<String>, error: bool) {
        self.notice = Some((text.into(), error));
        self.notice_cause = None;
    }

    pub(super) fn refresh_preview(&mut self) {
        self.previews = self.form.previews(self.tools_folded);
        self.wires =
            crate::core::wire::portability(Some(&self.form.web()), |v| self.form.model_for(v));
        // Every edit brings what the declaration adds back into view.
        self.preview_scroll = 0;
    }

    /// The search suggestions listed after the citations: the selected run's,
    /// in the by-step list (the by-domain list spans runs), unfiltered.
    pub fn visible_suggestions(&self) -> &[crate::core::suggestions::Suggestion] {
        match self.sources.grouping {
            Grouping::ByStep if self.sources.filter.is_empty() => &self.sources.suggestions,
            _ => &[],
        }
    }

    /// The URL under the Sources cursor: a citation's, or past the citations, a
    /// search suggestion's.
    pub fn url_at_cursor(&self) -> Option<String> {
        let citations = self.visible_citations();
        match citations.get(self.sources.cursor) {
            Some(c) => Some(c.url.clone()),
            None => self
                .visible_suggestions()
                .get(self.sources.cursor - citations.len())
                .map(|s| s.url.clone()),
        }
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
            Grouping::ByDomain => shown.sort_by_key(|c| self.domain_of(c)),
            Grouping::ByStep => shown.sort_by_key(|c| (c.run_id, c.step)),
        }
        shown
    }

    /// The domain a citation is listed under: its page's, as `core::record`
    /// defines it — where `check-sources` followed the link (a Google redirect),
    /// the page it led to; `(no host)` when it has none.
    pub fn domain_of(&self, c: &CitationRow) -> String {
        let followed = self
            .sources
            .checks
            .iter()
            .find(|k| k.run_id == c.run_id && k.step == c.step && k.url == c.url)
            .and_then(|k| k.resolved_url.as_deref());
        crate::core::record::domain(followed.unwrap_or(&c.url))
            .unwrap_or_else(|| "(no host)".into())
    }

    pub(super) fn selected_run(&self) -> Option<RunId> {
        self.sources
            .runs
            .get(self.sources.selected)
            .map(|r| r.run_id)
    }
}
