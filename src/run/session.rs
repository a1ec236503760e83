//! `Session`: a conversation of turns over one provider, store, policy and
//! approver, recorded as one `sessions` row with its runs in order. `turn(text)`
//! builds its own contract — with no web access, whatever io.toml declares;
//! `turn_bounded(text, contract)` carries that contract's declaration and budget.

use std::path::PathBuf;

use crate::approve::Approver;
use crate::core::contract::{TaskContract, Verification};
use crate::core::error::Result;
use crate::core::id::SessionId;
use crate::core::policy::Policy;
use crate::provider::Provider;
use crate::run::engine::run_with_options;
use crate::run::options::{RunOptions, RunResult};
use crate::store::{RunRow, Store};

/// One session.
pub struct Session<'a, P: ?Sized, A: ?Sized> {
    provider: &'a P,
    store: &'a Store,
    policy: &'a Policy,
    approver: &'a A,
    workspace: PathBuf,
    options: RunOptions,
    id: SessionId,
}

impl<'a, P: Provider + ?Sized, A: Approver + ?Sized> Session<'a, P, A> {
    /// Start a session (one `sessions` row); turns run in `workspace`.
    pub fn new(
        provider: &'a P,
        store: &'a Store,
        policy: &'a Policy,
        approver: &'a A,
        workspace: impl Into<PathBuf>,
        label: &str,
    ) -> Result<Self> {
        Ok(Session {
            provider,
            store,
            policy,
            approver,
            workspace: workspace.into(),
            options: RunOptions::default(),
            id: store.begin_session(label)?,
        })
    }

    /// Observer, prices, roster and the rest for every turn.
    pub fn with_options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// The session's id in the store.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// A plain turn: its own contract, no web access.
    pub async fn turn(&self, text: &str) -> Result<RunResult> {
        let contract = TaskContract::workspace(text, self.workspace.clone(), Verification::None);
        self.run(&contract).await
    }

    /// A turn under `contract` (its declaration, budget and verification); `text`
    /// is the goal.
    pub async fn turn_bounded(&self, text: &str, contract: &TaskContract) -> Result<RunResult> {
        let mut contract = contract.clone();
        contract.goal = text.to_string();
        self.run(&contract).await
    }

    /// The session's runs, in the order they were turns.
    pub fn runs(&self) -> Result<Vec<RunRow>> {
        self.store.session_runs(self.id)
    }

    async fn run(&self, contract: &TaskContract) -> Result<RunResult> {
        let options = RunOptions {
            session_id: Some(self.id),
            resume: None,
            ..self.options.clone()
        };
        run_with_options(
            contract,
            self.provider,
            self.store,
            self.policy,
            self.approver,
            options,
        )
        .await
    }
}
