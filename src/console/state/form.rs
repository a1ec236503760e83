//! The Declare form: the goal, provider and model, the web declaration, workspace
//! and verification, and the preview of each vendor's request computed from it by
//! the same encoder the transport uses.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use ratatui_textarea::TextArea;

use crate::console::state::preview::{PreviewLine, request_lines};
use crate::core::contract::{Budget, TaskContract, Verification};
use crate::core::policy::Rule;
use crate::core::transcript::{CacheTtl, Conversation};
use crate::core::turn::Turn;
use crate::core::vendor::{Vendor, Wire};
use crate::core::web::WebAccess;
use crate::core::wire;
use crate::launch::Plan;

/// The form's fields, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The goal text area.
    Goal,
    /// anthropic / openai / openrouter.
    Provider,
    /// The model for the chosen provider.
    Model,
    /// Search on/off.
    Search,
    /// Fetch on/off.
    Fetch,
    /// The vendor cap.
    MaxUses,
    /// Allowed hosts, comma separated.
    Allowed,
    /// Blocked hosts, comma separated.
    Blocked,
    /// Flattened or transcript, and prompt caching (`[run]`).
    Conversation,
    /// Workspace directory.
    Workspace,
    /// Verification file.
    VerifyFile,
    /// Verification text.
    VerifyContains,
}

/// Every field, in order.
pub const FIELDS: [Field; 12] = [
    Field::Goal,
    Field::Provider,
    Field::Model,
    Field::Search,
    Field::Fetch,
    Field::MaxUses,
    Field::Allowed,
    Field::Blocked,
    Field::Conversation,
    Field::Workspace,
    Field::VerifyFile,
    Field::VerifyContains,
];

impl Field {
    /// Its label.
    pub fn label(self) -> &'static str {
        match self {
            Field::Goal => "goal",
            Field::Provider => "provider",
            Field::Model => "model",
            Field::Search => "search",
            Field::Fetch => "fetch",
            Field::MaxUses => "max uses",
            Field::Allowed => "allowed domains",
            Field::Blocked => "blocked domains",
            Field::Conversation => "conversation",
            Field::Workspace => "workspace",
            Field::VerifyFile => "verify file",
            Field::VerifyContains => "verify contains",
        }
    }
}

/// The form's values.
#[derive(Debug, Clone)]
pub struct Form {
    /// The goal editor.
    pub goal: TextArea<'static>,
    /// The chosen vendor.
    pub vendor: Vendor,
    /// io.toml resolved: every preview is the plan's (the request a run sends).
    pub plan: Arc<Plan>,
    /// The model per vendor (io.toml's until edited).
    pub models: BTreeMap<Vendor, String>,
    /// Search on.
    pub search: bool,
    /// Fetch on.
    pub fetch: bool,
    /// Cap.
    pub max_uses: Option<u32>,
    /// Allowed hosts.
    pub allowed: Vec<String>,
    /// Blocked hosts.
    pub blocked: Vec<String>,
    /// Where the user is (`[web] location`): carried as io.toml states it.
    pub location: Option<crate::core::web::Location>,
    /// X search with its handles and days (`[web] x_search`, xAI's): carried as
    /// io.toml states it, shown beside search.
    pub x: (
        bool,
        crate::core::web::XHandles,
        Option<crate::core::web::DateRange>,
    ),
    /// Workspace.
    pub workspace: String,
    /// Verification file (empty: none).
    pub verify_file: String,
    /// Verification text.
    pub verify_contains: String,
    /// Step, time and token limits from io.toml.
    pub budget: Budget,
    /// Flattened or transcript (`[run] conversation`).
    pub conversation: Conversation,
    /// Prompt caching (`[run] cache`, `cache_ttl`).
    pub cache: Option<CacheTtl>,
    /// Focused field.
    pub focus: Field,
    /// A line being edited: its text and the value before editing began.
    pub editing: Option<(String, String)>,
    /// Why the last edit was not taken.
    pub error: Option<String>,
    /// The `[[agent]]` roster: name, description and its own web table.
    pub agents: Vec<crate::run::AgentDef>,
    /// The agent whose first request the preview shows (an index into
    /// `agents`); `None`: the run's own first request.
    pub agent_preview: Option<usize>,
    /// The `[[mcp]]` servers: name and the hosts each states it may reach.
    pub mcp: Vec<(String, Vec<String>)>,
    /// The operator's `[policy]` rules, layer by layer (`user`, `project`).
    pub rules: Vec<Rule>,
    /// `[web] from_policy = true`: the domain lists are the policy's projection.
    pub from_policy: bool,
    /// Where each projected host came from, one line each.
    pub provenance: Vec<String>,
    /// Why the projection failed; nothing is sent while it stands.
    pub web_error: Option<String>,
}

/// One vendor's preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VendorPreview {
    /// Which vendor.
    pub vendor: Vendor,
    /// The wire its endpoint is configured for.
    pub wire: Wire,
    /// The request as lines (method and URL, redacted headers, blank, pretty body),
    /// each marked when the declaration added it; or the refusal.
    pub request: Result<Vec<PreviewLine>, String>,
    /// Caution lines.
    pub cautions: Vec<String>,
    /// The agent whose first request it is; `None`: the run's.
    pub agent: Option<String>,
}

impl VendorPreview {
    /// The request's lines joined, or the refusal.
    pub fn text(&self) -> String {
        match &self.request {
            Ok(lines) => lines
                .iter()
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            Err(refusal) => refusal.clone(),
        }
    }
}

impl Form {
    /// A form seeded from a contract, previewing through `plan`.
    pub fn new(contract: &TaskContract, vendor: Vendor, plan: Arc<Plan>) -> Form {
        let models = plan
            .vendors
            .iter()
            .map(|(v, setup)| (*v, setup.model.clone()))
            .collect();
        let web = contract.web.clone().unwrap_or_default();
        let (verify_file, verify_contains) = match &contract.verification {
            Verification::WorkspaceFileContains { file, needle } => {
                (file.display().to_string(), needle.clone())
            }
            Verification::None => (String::new(), String::new()),
        };
        let mut goal = TextArea::from(
            contract
                .goal
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>(),
        );
        goal.set_placeholder_text("what should the run achieve?");
        goal.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
        Form {
            goal,
            vendor,
            plan,
            models,
            search: web.search,
            fetch: web.fetch,
            max_uses: web.max_uses,
            allowed: web.allowed_domains,
            blocked: web.blocked_domains,
            location: web.location,
            x: (web.x_search, web.x_handles, web.x_dates),
            workspace: contract.workspace.display().to_string(),
            verify_file,
            verify_contains,
            budget: contract.budget,
            conversation: contract.conversation,
            cache: contract.cache,
            focus: Field::Goal,
            editing: None,
            error: None,
            agents: Vec::new(),
            agent_preview: None,
            mcp: Vec::new(),
            rules: Vec::new(),
            from_policy: false,
            provenance: Vec::new(),
            web_error: None,
        }
    }

    /// The declaration as the form states it.
    pub fn web(&self) -> WebAccess {
        WebAccess {
            search: self.search,
            fetch: self.fetch,
            max_uses: self.max_uses,
            allowed_domains: self.allowed.clone(),
            blocked_domains: self.blocked.clone(),
            location: self.location.clone(),
            x_search: self.x.0,
            x_handles: self.x.1.clone(),
            x_dates: self.x.2.clone(),
        }
    }

    /// The goal text.
    pub fn goal_text(&self) -> String {
        self.goal.lines().join("\n")
    }

    /// The model of the chosen vendor.
    pub fn model(&self) -> String {
        self.models
            .get(&self.vendor)
            .cloned()
            .unwrap_or_else(|| self.vendor.default_model().to_string())
    }

    /// The contract a run of this form would carry.
    pub fn contract(&self) -> TaskContract {
        let verification = if self.verify_file.trim().is_empty() {
            Verification::None
        } else {
            Verification::WorkspaceFileContains {
                file: PathBuf::from(self.verify_file.trim()),
                needle: self.verify_contains.clone(),
            }
        };
        let workspace = if self.workspace.trim().is_empty() {
            "."
        } else {
            self.workspace.trim()
        };
        let mut contract = TaskContract::workspace(self.goal_text(), workspace, verification)
            .with_web(self.web())
            .with_budget(self.budget);
        contract.conversation = self.conversation;
        contract.cache = self.cache;
        contract
    }

    /// The text shown for a field.
    pub fn value(&self, field: Field) -> String {
        match field {
            Field::Goal => self.goal_text(),
            Field::Provider => self.vendor.as_str().to_string(),
            Field::Model => self.model(),
            // X search is io.toml's ([web] x_search): said beside search.
            Field::Search if self.x.0 => format!("{} · {}", on_off(self.search), self.x_words()),
            Field::Search => on_off(self.search),
            Field::Fetch => on_off(self.fetch),
            Field::MaxUses => self.max_uses.map_or_else(String::new, |n| n.to_string()),
            Field::Allowed | Field::Blocked if self.from_policy => {
                let list = if field == Field::Allowed {
                    &self.allowed
                } else {
                    &self.blocked
                };
                let hosts = if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                };
                format!("{hosts} (from [policy])")
            }
            Field::Allowed => self.allowed.join(", "),
            Field::Blocked => self.blocked.join(", "),
            Field::Conversation => match self.cache {
                Some(ttl) => format!("{} · cache {}", self.conversation.as_str(), ttl.as_str()),
                None => self.conversation.as_str().to_string(),
            },
            Field::Workspace => self.workspace.clone(),
            Field::VerifyFile => self.verify_file.clone(),
            Field::VerifyContains => self.verify_contains.clone(),
        }
    }

    /// Take a line of text into a field; an error says what is wrong with it.
    pub fn set(&mut self, field: Field, text: &str) -> Result<(), String> {
        let list = |t: &str| {
            t.split([',', ' '])
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        match field {
            Field::Model if text.trim().is_empty() => {
                return Err(format!(
                    "the model cannot be empty: type the model {} should use, or Esc to keep {}",
                    self.vendor,
                    self.model()
                ));
            }
            Field::Model => {
                self.models.insert(self.vendor, text.trim().to_string());
            }
            Field::MaxUses => {
                self.max_uses = match text.trim() {
                    "" => None,
                    n => Some(
                        n.parse()
                            .map_err(|_| format!("max uses must be a whole number, not {n:?}"))?,
                    ),
                }
            }
            Field::Allowed | Field::Blocked if self.from_policy => {
                return Err(
                    "from_policy = true: the domain lists are the [policy] net rules' projection; \
                     change the rules in io.toml (io-harness config shows where they are)"
                        .to_string(),
                );
            }
            Field::Allowed => self.allowed = list(text),
            Field::Blocked => self.blocked = list(text),
            Field::Workspace => self.workspace = text.to_string(),
            Field::VerifyFile => self.verify_file = text.to_string(),
            Field::VerifyContains => self.verify_contains = text.to_string(),
            Field::Goal | Field::Provider | Field::Search | Field::Fetch | Field::Conversation => {}
        }
        Ok(())
    }

    /// The model a request to `vendor` names: the form's, else the vendor's default.
    pub fn model_for(&self, vendor: Vendor) -> String {
        self.models
            .get(&vendor)
            .cloned()
            .unwrap_or_else(|| vendor.default_model().to_string())
    }

    /// Each vendor's exact request for this form (no observations yet, the local
    /// tools offered), or its refusal: what `io-harness preview` prints. Lines the
    /// declaration adds are marked (the same turn declaring nothing is encoded too);
    /// with `folded`, local tool schemas are one line each. A line being edited
    /// shows in it while it is valid, though only Enter commits it.
    pub fn previews(&self, folded: bool) -> Vec<VendorPreview> {
        if let Some((buf, _)) = &self.editing {
            let mut draft = self.clone();
            draft.editing = None;
            if draft.set(self.focus, buf).is_ok() {
                return draft.previews(folded);
            }
        }
        let web = self.web();
        Vendor::ALL
            .iter()
            .map(|&v| {
                let mut contract = self.contract();
                contract.web = Some(web.clone());
                let model = self.model_for(v);
                let agent = self.agent_preview.and_then(|i| self.agents.get(i));
                let preview = match agent {
                    None => self.plan.preview(&contract, v, Some(&model)),
                    Some(a) => {
                        let task = contract.goal.clone();
                        match self
                            .plan
                            .preview_agent(&contract, v, Some(&model), &a.name, &task)
                        {
                            Ok(p) => p,
                            Err(e) => {
                                return VendorPreview {
                                    vendor: v,
                                    wire: self.plan.setup(v).endpoint.wire,
                                    request: Err(e.to_string()),
                                    cautions: Vec::new(),
                                    agent: Some(a.name.clone()),
                                };
                            }
                        }
                    }
                };
                let undeclared = Turn {
                    web: None,
                    ..preview.turn.clone()
                };
                let baseline = wire::encode(&preview.endpoint, &undeclared).ok();
                let request = preview
                    .request
                    .map(|r| request_lines(&r, baseline.as_ref(), folded, self.plan.demo))
                    .map_err(|e| e.to_string());
                VendorPreview {
                    vendor: v,
                    wire: preview.endpoint.wire,
                    request,
                    cautions: preview.cautions,
                    agent: agent.map(|a| a.name.clone()),
                }
            })
            .collect()
    }
}

impl Form {
    /// `[web] x_search` in words, with the accounts and days it is narrowed to.
    fn x_words(&self) -> String {
        let (_, handles, dates) = &self.x;
        let at = |l: &[String]| {
            l.iter()
                .map(|h| format!("@{}", h.trim_start_matches('@')))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut words = "X search".to_string();
        if !handles.allow.is_empty() {
            words.push_str(&format!(" only {}", at(&handles.allow)));
        }
        if !handles.exclude.is_empty() {
            words.push_str(&format!(" not {}", at(&handles.exclude)));
        }
        if let Some(d) = dates {
            let day = |d: &Option<String>| d.clone().unwrap_or_else(|| "…".to_string());
            words.push_str(&format!(" {}..{}", day(&d.from), day(&d.to)));
        }
        words
    }
}

fn on_off(b: bool) -> String {
    (if b { "on" } else { "off" }).to_string()
}
