//! The approver a chat or designer run's agent asks: each question waits in the run's
//! [`Approvals`] (where the console answers it) and is told to the notifications — exactly one
//! `approval_waiting` per wait, rewritten to say how the wait ended (approved, denied, or the
//! run stopped or ended first) the moment it ends.

use deft_agent::Approver;
use deft_store::Notification;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use super::approvals::Approvals;
use crate::app::App;
use crate::notices::Asking;

/// A run's approvals that notify.
pub struct NoticedApprovals {
    approvals: Approvals,
    app: App,
    run_id: String,
    conversation: String,
    device: String,
    /// The server's runtime: the notifications are stored there (the agent runs on its own).
    home: Handle,
}

impl NoticedApprovals {
    /// The approver of run `run_id` (of `conversation`, on `device`) whose questions wait in
    /// `approvals`; call it on the server's runtime.
    pub fn new(
        app: &App,
        approvals: &Approvals,
        run_id: &str,
        conversation: &str,
        device: &str,
    ) -> NoticedApprovals {
        NoticedApprovals {
            approvals: approvals.clone(),
            app: app.clone(),
            run_id: run_id.to_owned(),
            conversation: conversation.to_owned(),
            device: device.to_owned(),
            home: Handle::current(),
        }
    }
}

impl Approver for NoticedApprovals {
    fn approve<'a>(
        &'a self,
        call_id: &'a str,
        tool: &'a str,
        args: &'a Value,
        reason: &'a str,
    ) -> BoxFuture<'a, bool> {
        // The question waits first: an answer may come the moment the console shows it.
        let answer = self.approvals.approve(call_id, tool, args, reason);
        let app = self.app.clone();
        let (run_id, conversation, device) = (
            self.run_id.clone(),
            self.conversation.clone(),
            self.device.clone(),
        );
        let (asked, why) = (tool.to_owned(), reason.to_owned());
        let posted = self.home.spawn(async move {
            let ask = Asking {
                run_id: &run_id,
                conversation: &conversation,
                device: &device,
                tool: &asked,
                reason: &why,
            };
            app.notifier().approval_waiting(&ask).await
        });
        let mut ended = WaitEnded {
            home: self.home.clone(),
            app: self.app.clone(),
            posted: Some(posted),
            tool: tool.to_owned(),
            answer: None,
        };
        Box::pin(async move {
            let approved = answer.await;
            ended.answered(approved);
            approved
        })
    }
}

/// Marks the wait's notification answered when the wait ends — dropped after an answer, or
/// unanswered when the run stops or ends while it waits (the agent drops the wait).
struct WaitEnded {
    home: Handle,
    app: App,
    posted: Option<JoinHandle<Option<Notification>>>,
    tool: String,
    answer: Option<bool>,
}

impl WaitEnded {
    /// The person answered (`true`: approved).
    fn answered(&mut self, approved: bool) {
        self.answer = Some(approved);
    }
}

impl Drop for WaitEnded {
    fn drop(&mut self) {
        let Some(posted) = self.posted.take() else {
            return;
        };
        let (app, tool, answer) = (
            self.app.clone(),
            std::mem::take(&mut self.tool),
            self.answer,
        );
        self.home.spawn(async move {
            if let Ok(Some(waiting)) = posted.await {
                app.notifier()
                    .approval_answered(&waiting, &tool, answer)
                    .await;
            }
        });
    }
}
