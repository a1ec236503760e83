//! The `Approver`: who answers an `Ask` effect. `ApproveAll` and `DenyAll` for
//! scripts and tests; `ChannelApprover` forwards each question to whoever holds the
//! receiving end (the console's approval modal) and waits for the answer — yes,
//! no, or yes for the rest of the run (that act on that target is not asked
//! again until `forget`, which the console calls when a run starts).
//!
//! A question nobody can answer (the receiver is gone) is a "no": an approval gate
//! that fails open is not a gate.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use crate::core::policy::Act;

/// One question for the approver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// What the tool is about to do.
    pub act: Act,
    /// What it applies to: a workspace path, a `host:port`, a name.
    pub target: String,
    /// The tool asking.
    pub tool: String,
    /// Why approval is needed (the rule that said ask, or that none matched).
    pub why: String,
}

/// Answers `Ask` effects.
#[async_trait]
pub trait Approver: Send + Sync {
    /// True to let the act go ahead.
    async fn approve(&self, request: &ApprovalRequest) -> bool;

    /// The refusal a "no" becomes, for the model and the operator; `how_to_allow`
    /// says what to change in io.toml so the act runs without asking.
    fn declined(&self, request: &ApprovalRequest, how_to_allow: &str) -> String {
        let _ = how_to_allow;
        format!(
            "refused: the approver said no to {} {}",
            request.act.as_str(),
            request.target
        )
    }
}

#[async_trait]
impl<A: Approver + ?Sized> Approver for &A {
    async fn approve(&self, request: &ApprovalRequest) -> bool {
        (**self).approve(request).await
    }
    fn declined(&self, request: &ApprovalRequest, how_to_allow: &str) -> String {
        (**self).declined(request, how_to_allow)
    }
}

/// Says yes to everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

#[async_trait]
impl Approver for ApproveAll {
    async fn approve(&self, _: &ApprovalRequest) -> bool {
        true
    }
}

/// Says no to everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

#[async_trait]
impl Approver for DenyAll {
    async fn approve(&self, _: &ApprovalRequest) -> bool {
        false
    }
}

/// The command line without `--approve-all`: an `Ask` is refused, since there is
/// nobody to ask, with a refusal naming the rule that asked and how to allow it.
#[derive(Debug, Clone, Copy, Default)]
pub struct NobodyToAsk;

#[async_trait]
impl Approver for NobodyToAsk {
    async fn approve(&self, _: &ApprovalRequest) -> bool {
        false
    }
    fn declined(&self, request: &ApprovalRequest, how_to_allow: &str) -> String {
        format!(
            "refused: {} {} is asked by {} and there is nobody to ask on the command line; \
             {how_to_allow}, or pass --approve-all",
            request.act.as_str(),
            request.target,
            request.why
        )
    }
}

/// An operator's answer to one question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Refuse it.
    No,
    /// Let it go ahead, this once.
    Yes,
    /// Let it go ahead, and this act on this target for the rest of the run.
    ForRun,
}

/// A question in flight, with the way to answer it.
#[derive(Debug)]
pub struct PendingApproval {
    /// The question.
    pub request: ApprovalRequest,
    /// Send the answer here.
    pub answer: oneshot::Sender<Answer>,
}

/// Forwards questions over a channel and waits for the answer.
#[derive(Debug, Clone)]
pub struct ChannelApprover {
    tx: mpsc::Sender<PendingApproval>,
    granted: Arc<Mutex<HashSet<(Act, String)>>>,
}

impl ChannelApprover {
    /// An approver and the receiver its questions arrive on.
    pub fn new() -> (Self, mpsc::Receiver<PendingApproval>) {
        let (tx, rx) = mpsc::channel(4);
        let granted = Arc::default();
        (ChannelApprover { tx, granted }, rx)
    }

    /// Drop every "allow for this run": a new run asks afresh.
    pub fn forget(&self) {
        if let Ok(mut g) = self.granted.lock() {
            g.clear();
        }
    }
}

#[async_trait]
impl Approver for ChannelApprover {
    async fn approve(&self, request: &ApprovalRequest) -> bool {
        let key = (request.act, request.target.clone());
        if self.granted.lock().is_ok_and(|g| g.contains(&key)) {
            return true;
        }
        let (answer, reply) = oneshot::channel();
        let pending = PendingApproval {
            request: request.clone(),
            answer,
        };
        if self.tx.send(pending).await.is_err() {
            return false;
        }
        match reply.await.unwrap_or(Answer::No) {
            Answer::No => false,
            Answer::Yes => true,
            Answer::ForRun => {
                if let Ok(mut g) = self.granted.lock() {
                    g.insert(key);
                }
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question() -> ApprovalRequest {
        ApprovalRequest {
            act: Act::Write,
            target: "a.txt".into(),
            tool: "write_file".into(),
            why: "w".into(),
        }
    }

    #[tokio::test]
    async fn channel_approver_relays_the_answer() {
        let (approver, mut rx) = ChannelApprover::new();
        let answering = tokio::spawn(async move {
            let p = rx.recv().await.unwrap();
            assert_eq!(p.request.target, "a.txt");
            p.answer.send(Answer::Yes).unwrap();
        });
        assert!(approver.approve(&question()).await);
        answering.await.unwrap();
    }

    #[tokio::test]
    async fn allow_for_this_run_is_not_asked_again_until_forgotten() {
        let (approver, mut rx) = ChannelApprover::new();
        let answering = tokio::spawn(async move {
            let mut asked = 0;
            while let Some(p) = rx.recv().await {
                asked += 1;
                p.answer.send(Answer::ForRun).unwrap();
            }
            asked
        });
        assert!(approver.approve(&question()).await);
        assert!(approver.approve(&question()).await);
        let mut other = question();
        other.target = "b.txt".into();
        assert!(approver.approve(&other).await);
        approver.forget();
        assert!(approver.approve(&question()).await);
        drop(approver);
        // a.txt once, b.txt once, a.txt again after forget.
        assert_eq!(answering.await.unwrap(), 3);
    }

    #[tokio::test]
    async fn nobody_listening_is_a_no() {
        let (approver, rx) = ChannelApprover::new();
        drop(rx);
        assert!(!approver.approve(&question()).await);
    }
}
