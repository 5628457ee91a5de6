//! Notifications: the one place that decides what a run's end, a `notify` step, an approval
//! or a device going offline tells the console's readers — which kind, level, title and link,
//! and whether the task's settings want it — stores it, and tells the live feed's listeners.

use deft_protocol::task_run::TaskRunStatus;
use deft_store::{
    AuditRun, DRAFT_TASK_ID, NewNotification, Notification, NotificationKind, NotificationLevel,
    Store,
};
use tokio::sync::broadcast;

use crate::texts;
use crate::webhooks::{Webhooks, events};
use deft_protocol::webhook::WebhookEvent;

/// How many new notifications a slow live-feed listener may lag behind (it reloads the list
/// when it lagged more).
const FEED: usize = 64;

/// Stores notifications and tells whoever listens.
pub struct Notifier {
    store: Store,
    feed: broadcast::Sender<Notification>,
    webhooks: Webhooks,
}

/// A task run that ended: what the notifier needs of it.
#[derive(Debug, Clone)]
pub struct RunEnd<'a> {
    /// Run id.
    pub run_id: &'a str,
    /// Its task.
    pub task_id: &'a str,
    /// The task's name.
    pub task_name: &'a str,
    /// Its device.
    pub device: &'a str,
    /// How it ended.
    pub status: TaskRunStatus,
    /// Its closing message (the error of a failed run).
    pub message: &'a str,
}

/// A chat or designer run that waits for a person's approval of a tool call.
#[derive(Debug, Clone)]
pub struct Asking<'a> {
    /// Run id.
    pub run_id: &'a str,
    /// Its conversation.
    pub conversation: &'a str,
    /// Its device.
    pub device: &'a str,
    /// The tool that waits.
    pub tool: &'a str,
    /// Why it needs approval.
    pub reason: &'a str,
}

impl Notifier {
    /// A notifier storing into `store`, queueing the events webhooks receive in `webhooks`.
    pub fn new(store: &Store, webhooks: Webhooks) -> Notifier {
        Notifier {
            store: store.clone(),
            feed: broadcast::channel(FEED).0,
            webhooks,
        }
    }

    /// New notifications from now on, as they are stored.
    pub fn subscribe(&self) -> broadcast::Receiver<Notification> {
        self.feed.subscribe()
    }

    /// Stores `new` and tells the listeners; a store failure is logged (a notification never
    /// fails the run it is about).
    pub async fn publish(&self, new: NewNotification) -> Option<Notification> {
        match self.store.add_notification(&new).await {
            Ok(n) => {
                let _ = self.feed.send(n.clone());
                Some(n)
            }
            Err(e) => {
                tracing::error!(kind = %new.kind, error = %e, "cannot store a notification");
                None
            }
        }
    }

    /// A task run ended: a failure, time-out or interruption when its task reports failures, a
    /// success when it reports successes; nothing for a stopped or skipped run or a draft's.
    /// Webhooks receive `task_run.ended` for every run but a draft's, whatever the settings.
    pub async fn run_ended(&self, end: &RunEnd<'_>) -> Option<Notification> {
        if end.task_id != DRAFT_TASK_ID {
            let data = events::task_run_ended(
                end.run_id,
                end.task_id,
                end.task_name,
                end.device,
                end.status,
                end.message,
            );
            self.webhooks.emit(WebhookEvent::TaskRunEnded, data).await;
        }
        let (kind, level) = match end.status {
            TaskRunStatus::Failed => (NotificationKind::TaskRunFailed, NotificationLevel::Error),
            TaskRunStatus::TimedOut => {
                (NotificationKind::TaskRunTimedOut, NotificationLevel::Error)
            }
            TaskRunStatus::Interrupted => (
                NotificationKind::TaskRunInterrupted,
                NotificationLevel::Warning,
            ),
            TaskRunStatus::Ok => (NotificationKind::TaskRunSucceeded, NotificationLevel::Info),
            _ => return None,
        };
        let wanted = self.task_settings(end.task_id).await?;
        let on = match kind {
            NotificationKind::TaskRunSucceeded => wanted.on_success,
            _ => wanted.on_failure,
        };
        if !on {
            return None;
        }
        self.publish(NewNotification {
            kind,
            level,
            title: texts::notice_run_ended(end.task_name, end.status.as_str()),
            body: end.message.to_owned(),
            ..about_run(end)
        })
        .await
    }

    /// A `notify` step of a run said `said` (`level: text`, as the runner words it): a
    /// notification at its level when the task reports its notify steps.
    pub async fn notify_step(&self, end: &RunEnd<'_>, said: &str) -> Option<Notification> {
        if !self.task_settings(end.task_id).await?.on_notify_step {
            return None;
        }
        let (level, text) = notify_level(said);
        self.publish(NewNotification {
            kind: NotificationKind::NotifyStep,
            level,
            title: texts::notice_notify_step(end.task_name),
            body: text.to_owned(),
            ..about_run(end)
        })
        .await
    }

    /// A remote device's link ended (it disconnected or fell silent) or a phone is no longer
    /// ready, while the server runs on: a warning saying why. Not sent when the server itself is
    /// stopping, nor while an earlier one about the device is still unread by everyone (a
    /// device that comes and goes does not repeat the news). Webhooks receive
    /// `device.offline` each time.
    pub async fn device_offline(&self, device: &str, why: &str) -> Option<Notification> {
        let data = events::device_offline(device, why);
        self.webhooks.emit(WebhookEvent::DeviceOffline, data).await;
        let kind = NotificationKind::DeviceOffline;
        match self.store.unread_notification_about(kind, device).await {
            Ok(true) => return None,
            Ok(false) => {}
            Err(e) => tracing::warn!(%device, error = %e, "cannot look for an unread notice"),
        }
        self.publish(NewNotification {
            kind: NotificationKind::DeviceOffline,
            level: NotificationLevel::Warning,
            title: texts::notice_device_offline(device),
            body: why.to_owned(),
            link: "/".to_owned(),
            task_id: None,
            run_id: None,
            conversation_id: None,
            device: Some(device.to_owned()),
        })
        .await
    }

    /// A run waits for a person's approval of a tool call: a warning linking to its
    /// conversation. Answer it with [`Notifier::approval_answered`] once the wait ends.
    pub async fn approval_waiting(&self, ask: &Asking<'_>) -> Option<Notification> {
        self.publish(NewNotification {
            kind: NotificationKind::ApprovalWaiting,
            level: NotificationLevel::Warning,
            title: texts::notice_approval_waiting(ask.tool),
            body: ask.reason.to_owned(),
            link: format!("/c/{}", ask.conversation),
            task_id: None,
            run_id: Some(ask.run_id.to_owned()),
            conversation_id: Some(ask.conversation.to_owned()),
            device: Some(ask.device.to_owned()),
        })
        .await
    }

    /// The wait that `waiting` told of (about `tool`) ended — approved (`Some(true)`), denied
    /// (`Some(false)`), or the run stopped or ended first (`None`): the same notification (its place in the list and
    /// each reader's read state kept) now says how, at level info — the bell shows no question
    /// that nobody can answer any more. A store failure is logged.
    pub async fn approval_answered(
        &self,
        waiting: &Notification,
        tool: &str,
        answer: Option<bool>,
    ) {
        let title = texts::notice_approval_answered(tool, answer);
        let body = waiting.body.as_str();
        if let Err(e) = self
            .store
            .update_notification(&waiting.id, NotificationLevel::Info, &title, body)
            .await
        {
            tracing::warn!(id = %waiting.id, error = %e, "cannot mark an approval notification answered");
        }
    }

    /// An experience audit pass ended: when it suggested deletions (each waits for a person's
    /// decision), one notification for the pass — however many it suggested — linking to the
    /// memory page where they are decided (and `audit.suggestion` to webhooks). Nothing for a
    /// pass that suggested none.
    pub async fn audit_ended(&self, pass: &AuditRun) -> Option<Notification> {
        if pass.suggested == 0 {
            return None;
        }
        let data = events::audit_suggestion(pass);
        self.webhooks
            .emit(WebhookEvent::AuditSuggestion, data)
            .await;
        self.publish(NewNotification {
            kind: NotificationKind::AuditSuggestion,
            level: NotificationLevel::Info,
            title: texts::notice_audit_suggestions(pass.suggested),
            body: texts::notice_audit_reviewed(pass.reviewed, pass.suggested),
            link: "/memory".to_owned(),
            task_id: None,
            run_id: None,
            conversation_id: None,
            device: None,
        })
        .await
    }

    /// A phone behind adb that was ready is not: `state` its adb state now (`None`: no longer
    /// listed), `note` what the listing says. A [`Notifier::device_offline`].
    pub async fn phone_offline(
        &self,
        serial: &str,
        state: Option<&str>,
        note: Option<&str>,
    ) -> Option<Notification> {
        let why = match state {
            Some(state) => texts::notice_phone_state(state, note),
            None => texts::NOTICE_PHONE_UNLISTED.to_owned(),
        };
        self.device_offline(serial, &why).await
    }

    /// The task's notification settings; `None` for a draft's run or a task gone meanwhile.
    async fn task_settings(&self, task_id: &str) -> Option<deft_store::TaskNotify> {
        if task_id == DRAFT_TASK_ID {
            return None;
        }
        match self.store.task(task_id).await {
            Ok(t) => Some(t.notify),
            Err(e) => {
                tracing::warn!(task = %task_id, error = %e, "no notification: the task is not readable");
                None
            }
        }
    }
}

/// The subject fields of a notification about a task run.
fn about_run(end: &RunEnd<'_>) -> NewNotification {
    NewNotification {
        kind: NotificationKind::TaskRunFailed,
        level: NotificationLevel::Error,
        title: String::new(),
        body: String::new(),
        link: format!("/task-runs/{}", end.run_id),
        task_id: Some(end.task_id.to_owned()),
        run_id: Some(end.run_id.to_owned()),
        conversation_id: None,
        device: Some(end.device.to_owned()),
    }
}

/// A `notify` step's level and text from what the runner reported (`warning: disk full`); a
/// message without a known level is `info` as a whole.
pub fn notify_level(said: &str) -> (NotificationLevel, &str) {
    said.split_once(": ")
        .and_then(|(level, text)| NotificationLevel::from_name(level).map(|l| (l, text)))
        .unwrap_or((NotificationLevel::Info, said))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notify_steps_level_maps_through() {
        assert_eq!(
            notify_level("warning: disk: 91% full"),
            (NotificationLevel::Warning, "disk: 91% full")
        );
        assert_eq!(
            notify_level("error: no backup"),
            (NotificationLevel::Error, "no backup")
        );
        assert_eq!(
            notify_level("loud: not a level"),
            (NotificationLevel::Info, "loud: not a level")
        );
    }
}
