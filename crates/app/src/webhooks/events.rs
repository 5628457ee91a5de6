//! What a delivery's body says: `{"id", "type", "created_at", "data": {…}}`, the event's own
//! id (the same on a redelivery, for a receiver to drop repeats), its kind and when it
//! happened, and per kind the fields a receiver acts on — ids, status, names, the message, and
//! `link`, the event's page in the console (a path on the server's address).

use deft_protocol::webhook::WebhookEvent;
use deft_protocol::{DoneStatus, RunMode};
use deft_store::{AuditRun, Webhook};
use serde_json::{Value, json};

use crate::scheduler::{Clock, SystemClock};
use crate::texts;
use deft_protocol::task_run::TaskRunStatus;

/// The most characters of a run's prompt or answer a payload carries.
pub const MAX_TEXT_CHARS: usize = 4_000;

/// One event, as each delivery of it POSTs it.
#[derive(Debug, Clone)]
pub struct Event {
    /// Its id (`evt_` and a v4 UUID).
    pub id: String,
    /// Its kind.
    pub kind: WebhookEvent,
    /// When it happened, ms since the epoch.
    pub created_at_ms: i64,
    /// The kind's fields.
    pub data: Value,
}

impl Event {
    /// An event of `kind` happening now.
    pub fn new(kind: WebhookEvent, data: Value) -> Event {
        Event {
            id: format!("evt_{}", uuid::Uuid::new_v4().simple()),
            kind,
            created_at_ms: SystemClock.now_ms(),
            data,
        }
    }

    /// The JSON body POSTed.
    pub fn body(&self) -> String {
        json!({
            "id": self.id,
            "type": self.kind.as_str(),
            "created_at": deft_protocol::time::iso8601_ms(self.created_at_ms),
            "data": self.data,
        })
        .to_string()
    }
}

/// A chat, designer or API run that ended: what `run.ended` tells of it.
#[derive(Debug, Clone)]
pub struct AgentRunEnd<'a> {
    /// Run id.
    pub run_id: &'a str,
    /// Its conversation.
    pub conversation_id: &'a str,
    /// Its device.
    pub device: &'a str,
    /// A chat or designer mode.
    pub mode: RunMode,
    /// What was asked.
    pub prompt: &'a str,
    /// How it ended.
    pub status: DoneStatus,
    /// Its answer (or why it failed).
    pub answer: &'a str,
    /// When it started, ms since the epoch.
    pub started_at_ms: i64,
}

/// `run.ended`'s data.
pub fn run_ended(end: &AgentRunEnd<'_>) -> Value {
    json!({
        "run_id": end.run_id,
        "conversation_id": end.conversation_id,
        "mode": end.mode.as_str(),
        "device": end.device,
        "status": end.status.as_str(),
        "prompt": capped(end.prompt),
        "answer": capped(end.answer),
        "started_at": deft_protocol::time::iso8601_ms(end.started_at_ms),
        "link": format!("/c/{}", end.conversation_id),
    })
}

/// `task_run.ended`'s data: the run, its task (id and name), device, status and closing
/// message (a failed run's error).
pub fn task_run_ended(
    run_id: &str,
    task_id: &str,
    task_name: &str,
    device: &str,
    status: TaskRunStatus,
    message: &str,
) -> Value {
    json!({
        "run_id": run_id,
        "task_id": task_id,
        "task_name": task_name,
        "device": device,
        "status": status.as_str(),
        "message": capped(message),
        "link": format!("/task-runs/{run_id}"),
    })
}

/// `audit.suggestion`'s data.
pub fn audit_suggestion(pass: &AuditRun) -> Value {
    json!({
        "audit_id": pass.id,
        "reviewed": pass.reviewed,
        "suggested": pass.suggested,
        "message": texts::notice_audit_suggestions(pass.suggested),
        "link": "/memory",
    })
}

/// `device.offline`'s data.
pub fn device_offline(device: &str, why: &str) -> Value {
    json!({
        "device": device,
        "message": why,
        "link": "/",
    })
}

/// `ping`'s data.
pub fn ping(hook: &Webhook) -> Value {
    json!({
        "webhook_id": hook.id,
        "webhook_name": hook.name,
        "message": texts::WEBHOOK_PING,
    })
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters.
fn capped(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_has_the_id_type_time_and_data() {
        let event = Event::new(
            WebhookEvent::DeviceOffline,
            device_offline("phone-1", "gone"),
        );
        let body: Value = serde_json::from_str(&event.body()).unwrap();
        assert_eq!(body["id"], event.id);
        assert!(event.id.starts_with("evt_"));
        assert_eq!(body["type"], "device.offline");
        assert!(body["created_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(body["data"]["device"], "phone-1");
        assert_eq!(body["data"]["message"], "gone");
    }

    #[test]
    fn long_texts_are_capped_on_a_character() {
        let long = "é".repeat(MAX_TEXT_CHARS + 5);
        let cut = capped(&long);
        assert_eq!(cut.chars().count(), MAX_TEXT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(capped("short"), "short");
    }
}
