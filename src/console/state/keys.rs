//! Key bindings as data: `{ action, key, desc, scope }`. The handlers look keys up
//! in this table and the help overlay is drawn from it, so the hints cannot lie.
//! `[console.keys]` in io.toml overrides a binding by action name.

use std::collections::BTreeMap;

use crossterm::event::KeyEvent;

use crate::core::error::{Error, Result};

pub use super::key_text::parse_key;
use super::key_text::same;

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Toggle the help overlay.
    Help,
    /// Show Declare and Preview.
    ShowDeclare,
    /// Show the Run panes.
    ShowRun,
    /// Show Sources.
    ShowSources,
    /// Show Compare.
    ShowCompare,
    /// Run the declaration on every vendor that carries it, side by side.
    StartCompare,
    /// Compare: open the chosen eval or comparison; in an eval, a question's
    /// comparison or a vendor's claims; in a comparison, the run's claims.
    OpenCompared,
    /// Compare: open the chosen run in the Run panes.
    RunOfCompared,
    /// Compare: open the chosen run in Sources.
    SourcesOfCompared,
    /// Compare: write the open eval's matrix as Markdown.
    ExportEval,
    /// Compare: scroll the comparison up a page.
    CompareUp,
    /// Compare: scroll the comparison down a page.
    CompareDown,
    /// Start a run of the declaration.
    StartRun,
    /// Quit.
    Quit,
    /// Write `[web]` back to io.toml.
    Save,
    /// One vendor, or every vendor and wire side by side.
    SideBySide,
    /// Fold or unfold the local tool schemas in the preview.
    FoldTools,
    /// Preview the next `[[agent]]`'s first request (then the run's again).
    AgentPreview,
    /// Next theme.
    CycleTheme,
    /// Cancel the run, close a dialog, undo the edit of a line.
    Cancel,
    /// Next form field.
    NextField,
    /// Previous form field.
    PrevField,
    /// Toggle or edit the focused field.
    Activate,
    /// Scroll or move up.
    Up,
    /// Scroll or move down.
    Down,
    /// Scroll the preview up a page.
    PageUp,
    /// Scroll the preview down a page.
    PageDown,
    /// Sources: by step / by domain.
    GroupBy,
    /// Sources: type to filter.
    Filter,
    /// Sources: type a full-text query over every run.
    SearchAll,
    /// Sources: copy the URL.
    Copy,
    /// Sources: open the URL in the browser.
    OpenUrl,
    /// Sources: open a past run in the Run panes.
    OpenRun,
    /// Sources: reload from the store.
    Refresh,
    /// Sources: the request the selected run's next step would send.
    NextRequest,
    /// Sources: write the selected run's sources to a Markdown file.
    ExportSources,
    /// Sources: fetch the selected run's sources and look for their quotes.
    CheckSources,
    /// Sources: the claims view (the final answer sentence by sentence).
    Claims,
    /// Approve the pending request.
    Approve,
    /// Deny the pending request.
    Deny,
    /// Approve it, and the same act on the same target for the rest of the run.
    ApproveForRun,
    /// Next citation / run panel.
    SwitchPane,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere.
    Global,
    /// The Declare form.
    Declare,
    /// The Run panes.
    Run,
    /// Sources.
    Sources,
    /// Compare.
    Compare,
    /// The approval dialog.
    Approval,
}

/// One binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// What it does.
    pub action: Action,
    /// Its name in `[console.keys]`.
    pub name: &'static str,
    /// The key, as written (`ctrl-r`).
    pub key: String,
    /// For the help overlay.
    pub desc: &'static str,
    /// Where it applies.
    pub scope: Scope,
}

const DEFAULTS: [(Action, &str, &str, &str, Scope); 42] = [
    (
        Action::Help,
        "help",
        "f1",
        "help: every binding",
        Scope::Global,
    ),
    (
        Action::ShowDeclare,
        "declare",
        "f2",
        "Declare and Preview",
        Scope::Global,
    ),
    (
        Action::ShowRun,
        "run_screen",
        "f3",
        "Run panes",
        Scope::Global,
    ),
    (
        Action::ShowSources,
        "sources",
        "f4",
        "Sources",
        Scope::Global,
    ),
    (
        Action::ShowCompare,
        "compare_screen",
        "f5",
        "Compare",
        Scope::Global,
    ),
    (
        Action::StartRun,
        "run",
        "ctrl-r",
        "run the declaration",
        Scope::Global,
    ),
    (
        Action::StartCompare,
        "compare",
        "ctrl-g",
        "run the declaration on every vendor that carries it, side by side",
        Scope::Global,
    ),
    (Action::Quit, "quit", "ctrl-q", "quit", Scope::Global),
    (
        Action::Save,
        "save",
        "ctrl-s",
        "write [web] to io.toml",
        Scope::Global,
    ),
    (
        Action::CycleTheme,
        "theme",
        "ctrl-t",
        "next theme",
        Scope::Global,
    ),
    (
        Action::Cancel,
        "cancel",
        "esc",
        "cancel run / close / undo the edit",
        Scope::Global,
    ),
    (
        Action::SideBySide,
        "side_by_side",
        "ctrl-v",
        "one vendor / every vendor and wire side by side",
        Scope::Declare,
    ),
    (
        Action::FoldTools,
        "fold_tools",
        "ctrl-o",
        "fold / unfold tool schemas in preview",
        Scope::Declare,
    ),
    (
        Action::AgentPreview,
        "agent_preview",
        "ctrl-n",
        "preview each agent's first request in turn, then the run's",
        Scope::Declare,
    ),
    (
        Action::NextField,
        "next_field",
        "tab",
        "next field",
        Scope::Declare,
    ),
    (
        Action::PrevField,
        "prev_field",
        "backtab",
        "previous field",
        Scope::Declare,
    ),
    (
        Action::Activate,
        "activate",
        "enter",
        "toggle or edit the field",
        Scope::Declare,
    ),
    (
        Action::PageUp,
        "page_up",
        "pageup",
        "scroll preview up",
        Scope::Declare,
    ),
    (
        Action::PageDown,
        "page_down",
        "pagedown",
        "scroll preview down",
        Scope::Declare,
    ),
    (Action::Up, "up", "up", "move / scroll up", Scope::Global),
    (
        Action::Down,
        "down",
        "down",
        "move / scroll down",
        Scope::Global,
    ),
    (
        Action::SwitchPane,
        "switch_pane",
        "tab",
        "next pane",
        Scope::Sources,
    ),
    (
        Action::GroupBy,
        "group_by",
        "g",
        "group by step / by domain",
        Scope::Sources,
    ),
    (
        Action::Claims,
        "claims",
        "a",
        "claims: the answer by sentence, with sources",
        Scope::Sources,
    ),
    (
        Action::Filter,
        "filter",
        "f",
        "filter this run's citations as you type",
        Scope::Sources,
    ),
    (
        Action::SearchAll,
        "search",
        "/",
        "search every run (goals, text, queries, citations); enter opens a hit",
        Scope::Sources,
    ),
    (
        Action::Copy,
        "copy",
        "c",
        "copy URL (OSC 52)",
        Scope::Sources,
    ),
    (
        Action::OpenUrl,
        "open_url",
        "o",
        "open URL in the browser",
        Scope::Sources,
    ),
    (
        Action::OpenRun,
        "open_run",
        "enter",
        "open run in the Run panes / citation detail",
        Scope::Sources,
    ),
    (
        Action::Refresh,
        "refresh",
        "r",
        "reload from the store",
        Scope::Sources,
    ),
    (
        Action::NextRequest,
        "next_request",
        "n",
        "the request the selected run's next step would send (run --resume)",
        Scope::Sources,
    ),
    (
        Action::ExportSources,
        "export_sources",
        "e",
        "write the selected run's sources to a Markdown file",
        Scope::Sources,
    ),
    (
        Action::CheckSources,
        "check_sources",
        "k",
        "check the selected run's sources: fetch each, look for its quote",
        Scope::Sources,
    ),
    (
        Action::OpenCompared,
        "open_compared",
        "enter",
        "open the chosen eval, comparison or run's claims",
        Scope::Compare,
    ),
    (
        Action::RunOfCompared,
        "run_of_compared",
        "r",
        "open the chosen run in the Run panes",
        Scope::Compare,
    ),
    (
        Action::SourcesOfCompared,
        "sources_of_compared",
        "s",
        "open the chosen run's sources",
        Scope::Compare,
    ),
    (
        Action::ExportEval,
        "export_eval",
        "e",
        "write the open eval's matrix as Markdown",
        Scope::Compare,
    ),
    (
        Action::CompareUp,
        "compare_page_up",
        "pageup",
        "scroll the comparison up",
        Scope::Compare,
    ),
    (
        Action::CompareDown,
        "compare_page_down",
        "pagedown",
        "scroll the comparison down",
        Scope::Compare,
    ),
    (Action::Approve, "approve", "y", "approve", Scope::Approval),
    (Action::Deny, "deny", "n", "deny", Scope::Approval),
    (
        Action::ApproveForRun,
        "approve_for_run",
        "a",
        "allow for this run",
        Scope::Approval,
    ),
];

/// The table in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    /// Every binding.
    pub bindings: Vec<Binding>,
}

impl Keymap {
    /// The defaults with `[console.keys]` applied; an unknown action or key is an
    /// error naming it.
    pub fn new(overrides: &BTreeMap<String, String>) -> Result<Keymap> {
        let mut bindings: Vec<Binding> = DEFAULTS
            .iter()
            .map(|(action, name, key, desc, scope)| Binding {
                action: *action,
                name,
                key: key.to_string(),
                desc,
                scope: *scope,
            })
            .collect();
        for (name, key) in overrides {
            parse_key(key).ok_or_else(|| Error::config(format!("[console.keys] {name} = \"{key}\": cannot read the key; write e.g. \"ctrl-r\", \"f5\", \"alt-p\", \"enter\" or a single character")))?;
            let b = bindings
                .iter_mut()
                .find(|b| b.name == name)
                .ok_or_else(|| {
                    Error::config(format!(
                        "[console.keys] has unknown action `{name}`; the actions are: {}",
                        DEFAULTS.iter().map(|d| d.1).collect::<Vec<_>>().join(", ")
                    ))
                })?;
            b.key = key.to_ascii_lowercase();
        }
        shadowed(&bindings)?;
        Ok(Keymap { bindings })
    }

    /// The action a key means in a scope (its own bindings first, then global).
    pub fn lookup(&self, scope: Scope, key: &KeyEvent) -> Option<Action> {
        let hit = |s: Scope| {
            self.bindings
                .iter()
                .find(|b| b.scope == s && parse_key(&b.key).is_some_and(|k| same(&k, key)))
                .map(|b| b.action)
        };
        hit(scope).or_else(|| hit(Scope::Global))
    }

    /// The key written for an action, for hints.
    pub fn key_for(&self, action: Action) -> String {
        self.bindings
            .iter()
            .find(|b| b.action == action)
            .map(|b| b.key.clone())
            .unwrap_or_default()
    }
}

/// Two bindings one key could reach in the same place: the same scope, or a
/// screen's own binding over a global one (the screen's wins there, so the global
/// one could not be pressed on that screen). An error naming both.
fn shadowed(bindings: &[Binding]) -> Result<()> {
    let scope = |s: Scope| match s {
        Scope::Global => "everywhere",
        Scope::Declare => "in Declare",
        Scope::Run => "in Run",
        Scope::Sources => "in Sources",
        Scope::Compare => "in Compare",
        Scope::Approval => "in the approval dialog",
    };
    for (i, a) in bindings.iter().enumerate() {
        let Some(ka) = parse_key(&a.key) else {
            continue;
        };
        for b in &bindings[i + 1..] {
            if !parse_key(&b.key).is_some_and(|kb| same(&ka, &kb)) {
                continue;
            }
            let (first, second) = if a.scope == b.scope {
                (a.name.to_string(), b.name.to_string())
            } else if a.scope == Scope::Global || b.scope == Scope::Global {
                (
                    format!("{} ({})", a.name, scope(a.scope)),
                    format!("{} ({})", b.name, scope(b.scope)),
                )
            } else {
                continue;
            };
            let place = if a.scope == b.scope {
                format!(" {}", scope(a.scope))
            } else {
                String::new()
            };
            return Err(Error::config(format!(
                "[console.keys]: {first} and {second} are both bound to \"{}\"{place}, so one of them could never be pressed; give one of them another key",
                b.key
            )));
        }
    }
    Ok(())
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap::new(&BTreeMap::new()).unwrap_or(Keymap {
            bindings: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn defaults_overrides_and_errors() {
        let km = Keymap::default();
        assert_eq!(
            km.lookup(
                Scope::Declare,
                &KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)
            ),
            Some(Action::StartRun)
        );
        assert_eq!(
            km.lookup(
                Scope::Sources,
                &KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE)
            ),
            Some(Action::SwitchPane)
        );
        let km = Keymap::new(&BTreeMap::from([("run".to_string(), "f6".to_string())])).unwrap();
        assert_eq!(
            km.lookup(
                Scope::Run,
                &KeyEvent::new(KeyCode::F(6), KeyModifiers::NONE)
            ),
            Some(Action::StartRun)
        );
        // F5 is the Compare screen's: binding `run` to it names both.
        let e = Keymap::new(&BTreeMap::from([("run".to_string(), "f5".to_string())]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("compare_screen") && e.contains("run"), "{e}");
        let e = Keymap::new(&BTreeMap::from([("rnu".to_string(), "f5".to_string())]))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "[console.keys] has unknown action `rnu`; the actions are: help, declare"
            ),
            "{e}"
        );
        let e = Keymap::new(&BTreeMap::from([(
            "run".to_string(),
            "hyper-x".to_string(),
        )]))
        .unwrap_err()
        .to_string();
        assert!(e.contains("cannot read the key"), "{e}");
    }
}
