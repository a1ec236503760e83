//! The `Approver`: who answers an `Ask` effect. `ApproveAll` and `DenyAll` for
//! scripts and tests; `ChannelApprover` forwards each question to whoever holds the
//! receiving end (the console's approval modal) and waits for the answer.
//!
//! A question nobody can answer (the receiver is gone) is a "no": an approval gate
//! that fails open is not a gate.

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

/// A question in flight, with the way to answer it.
#[derive(Debug)]
pub struct PendingApproval {
    /// The question.
    pub request: ApprovalRequest,
    /// Send the answer here.
    pub answer: oneshot::Sender<bool>,
}

/// Forwards questions over a channel and waits for the answer.
#[derive(Debug, Clone)]
pub struct ChannelApprover {
    tx: mpsc::Sender<PendingApproval>,
}

impl ChannelApprover {
    /// An approver and the receiver its questions arrive on.
    pub fn new() -> (Self, mpsc::Receiver<PendingApproval>) {
        let (tx, rx) = mpsc::channel(4);
        (ChannelApprover { tx }, rx)
    }
}

#[async_trait]
impl Approver for ChannelApprover {
    async fn approve(&self, request: &ApprovalRequest) -> bool {
        let (answer, reply) = oneshot::channel();
        let pending = PendingApproval {
            request: request.clone(),
            answer,
        };
        if self.tx.send(pending).await.is_err() {
            return false;
        }
        reply.await.unwrap_or(false)
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
            p.answer.send(true).unwrap();
        });
        assert!(approver.approve(&question()).await);
        answering.await.unwrap();
    }

    #[tokio::test]
    async fn nobody_listening_is_a_no() {
        let (approver, rx) = ChannelApprover::new();
        drop(rx);
        assert!(!approver.approve(&question()).await);
    }
}
