//! Questions a run asks a person (`confirm` events) and their answers ([`crate::App::approve`],
//! the console's `POST /api/agent/confirm`).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use deft_agent::Approver;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

/// A question waiting for an answer.
#[derive(Debug, Clone, Serialize, PartialEq, schemars::JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PendingConfirm {
    /// The tool call's id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// Its arguments.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub args: Value,
    /// Why it needs approval.
    pub reason: String,
}

struct Waiting {
    question: PendingConfirm,
    answer: oneshot::Sender<bool>,
}

/// The open questions of one run.
#[derive(Clone, Default)]
pub struct Approvals {
    waiting: Arc<Mutex<HashMap<String, Waiting>>>,
}

impl Approvals {
    fn lock(&self) -> parking_lot::MutexGuard<'_, HashMap<String, Waiting>> {
        self.waiting.lock()
    }

    /// Answers the question about `call_id`; false when none waits.
    pub fn answer(&self, call_id: &str, approve: bool) -> bool {
        match self.lock().remove(call_id) {
            Some(w) => w.answer.send(approve).is_ok(),
            None => false,
        }
    }

    /// The questions waiting now (at most one in practice: the agent asks one at a time).
    pub fn pending(&self) -> Vec<PendingConfirm> {
        let mut v: Vec<_> = self.lock().values().map(|w| w.question.clone()).collect();
        v.sort_by(|a, b| a.call_id.cmp(&b.call_id));
        v
    }
}

/// Removes the question when the agent stops waiting (answer, timeout or stop).
struct Forget(Approvals, String);

impl Drop for Forget {
    fn drop(&mut self) {
        self.0.lock().remove(&self.1);
    }
}

impl Approver for Approvals {
    fn approve<'a>(
        &'a self,
        call_id: &'a str,
        tool: &'a str,
        args: &'a Value,
        reason: &'a str,
    ) -> BoxFuture<'a, bool> {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(
            call_id.to_owned(),
            Waiting {
                question: PendingConfirm {
                    call_id: call_id.to_owned(),
                    tool: tool.to_owned(),
                    args: args.clone(),
                    reason: reason.to_owned(),
                },
                answer: tx,
            },
        );
        let forget = Forget(self.clone(), call_id.to_owned());
        Box::pin(async move {
            let answer = rx.await.unwrap_or(false);
            drop(forget);
            answer
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_reaches_the_waiting_call_once() {
        let a = Approvals::default();
        let args = serde_json::json!({"command": "ls"});
        let waiting = a.approve("c1", "run_shell", &args, "needs approval");
        let answered = {
            let a = a.clone();
            async move {
                tokio::task::yield_now().await;
                assert_eq!(a.pending().len(), 1);
                assert_eq!(a.pending()[0].tool, "run_shell");
                assert!(!a.answer("other", true), "unknown call id");
                assert!(a.answer("c1", true));
                assert!(!a.answer("c1", false), "answered already");
            }
        };
        let (approved, ()) = tokio::join!(waiting, answered);
        assert!(approved);
        assert!(a.pending().is_empty());
    }

    #[tokio::test]
    async fn a_call_that_stops_waiting_leaves_no_question() {
        let a = Approvals::default();
        let args = serde_json::json!({});
        let r = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            a.approve("c2", "t", &args, "r"),
        )
        .await;
        assert!(r.is_err());
        assert!(a.pending().is_empty());
        assert!(!a.answer("c2", true));
    }
}
