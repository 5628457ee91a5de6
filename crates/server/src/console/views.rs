//! The console API's response shapes (docs/console-api.md), as types: the handlers serialize
//! these, and the web console's `web/src/types.ts` is generated from them (the
//! `typescript_types_are_current` test fails when it is out of date).

use deft_protocol::memory::MemoryNote;
use deft_protocol::{DoneStatus, RunMode, RunStatus, StepSummary, TypedResult, Usage};
use deft_store::{Conversation, ConversationSummary, Message, RunRecord};
use serde::Serialize;

use super::rfc3339;
use deft_app::agent_runs::approvals::PendingConfirm;

/// A conversation as listed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Conversation"))]
#[schemars(rename = "Conversation")]
pub struct ConversationView {
    /// Conversation id.
    pub id: String,
    /// Title (the first prompt, cut).
    pub title: String,
    /// Created (ISO-8601 UTC).
    pub created_at: String,
    /// Last message (ISO-8601 UTC).
    pub updated_at: String,
    /// Messages kept.
    pub message_count: u64,
    /// Token usage of all its runs.
    pub usage: Usage,
}

impl From<&ConversationSummary> for ConversationView {
    fn from(s: &ConversationSummary) -> Self {
        ConversationView {
            id: s.id.clone(),
            title: s.title.clone(),
            created_at: rfc3339(s.created_at_ms),
            updated_at: rfc3339(s.updated_at_ms),
            message_count: s.message_count,
            usage: s.usage,
        }
    }
}

/// A conversation with its messages.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ConversationDetail"))]
#[schemars(rename = "ConversationDetail")]
pub struct ConversationDetailView {
    /// The summary.
    #[serde(flatten)]
    pub summary: ConversationView,
    /// Oldest first.
    pub messages: Vec<MessageView>,
}

impl ConversationDetailView {
    /// The conversation, each assistant message with its run's memory notes (`notes`: the
    /// store's `(run_id, note)` pairs of its runs) and typed result (`outputs`: by run id).
    pub fn new(
        c: &Conversation,
        notes: &[(String, MemoryNote)],
        outputs: &[(String, TypedResult)],
    ) -> Self {
        let messages = c
            .messages
            .iter()
            .map(|m| {
                let mut view = MessageView::from(m);
                if let (Some(run), Some(memory)) = (&m.run_id, view.memory.as_mut()) {
                    memory.extend(
                        notes
                            .iter()
                            .filter(|(r, _)| r == run)
                            .map(|(_, n)| n.clone()),
                    );
                }
                if let Some(run) = &m.run_id {
                    view.output = outputs
                        .iter()
                        .find(|(r, _)| r == run)
                        .map(|(_, o)| o.clone());
                }
                view
            })
            .collect();
        ConversationDetailView {
            summary: ConversationView::from(&c.summary),
            messages,
        }
    }
}

/// A stored message of a conversation.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Message"))]
#[schemars(rename = "Message")]
pub struct MessageView {
    /// `user` or `assistant`.
    #[cfg_attr(test, ts(type = r#""user" | "assistant""#))]
    pub role: String,
    /// The text (Markdown for answers).
    pub content: String,
    /// Written (ISO-8601 UTC).
    pub created_at: String,
    /// The run that produced (or answered) it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub run_id: Option<String>,
    /// How that run ended (assistant messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub status: Option<DoneStatus>,
    /// The run's token usage (assistant messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub usage: Option<Usage>,
    /// The model's reasoning, capped (assistant messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reasoning: Option<String>,
    /// The run's tool steps (assistant messages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub steps: Option<Vec<StepSummary>>,
    /// What the memory did for the run: recalled into its prompt, saved, merged or dropped
    /// after it (assistant messages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub memory: Option<Vec<MemoryNote>>,
    /// The run's typed result, when it was asked for one (assistant messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub output: Option<TypedResult>,
}

impl From<&Message> for MessageView {
    fn from(m: &Message) -> Self {
        MessageView {
            role: m.role.clone(),
            content: m.content.clone(),
            created_at: rfc3339(m.created_at_ms),
            run_id: m.run_id.clone(),
            status: m.status,
            usage: m.usage,
            reasoning: m.reasoning.clone(),
            steps: (m.role == "assistant").then(|| m.steps.clone()),
            memory: (m.role == "assistant").then(Vec::new),
            output: None,
        }
    }
}

/// The state of one run.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "RunInfo"))]
#[schemars(rename = "RunInfo")]
pub struct RunView {
    /// Run id.
    pub run_id: String,
    /// Its conversation.
    pub conversation: String,
    /// The device it operates.
    pub device: String,
    /// What was asked.
    pub prompt: String,
    /// A chat, or designer mode (the chat page shows "designer exploring" while one runs).
    #[cfg_attr(test, ts(type = "RunMode"))]
    pub mode: RunMode,
    /// Running, or how it ended.
    #[cfg_attr(test, ts(type = "RunStatus"))]
    pub status: RunStatus,
    /// The final answer (finished runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub answer: Option<String>,
    /// Started (ISO-8601 UTC).
    pub started_at: String,
    /// Ended (ISO-8601 UTC), `null` while running.
    pub finished_at: Option<String>,
    /// The seq of its newest event (resume the stream after it).
    pub last_seq: u64,
    /// Token usage so far.
    pub usage: Usage,
    /// The question waiting for a person, if any.
    pub pending_confirm: Option<PendingConfirm>,
    /// What the memory did for the run so far (recalled, then after `done` saved, merged or
    /// dropped).
    pub memory: Vec<MemoryNote>,
    /// Distilling the run after its `done` is still going on (its notes are not all in
    /// `memory` yet).
    pub distilling: bool,
    /// A finished run with an output schema: its typed result, as its `done` carried it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "TypedResult"))]
    pub output: Option<TypedResult>,
}

impl RunView {
    /// A stored run whose newest event is `last_seq`.
    pub fn stored(r: &RunRecord, last_seq: u64) -> Self {
        RunView {
            run_id: r.id.clone(),
            conversation: r.conversation_id.clone(),
            device: r.device.clone(),
            prompt: r.prompt.clone(),
            mode: r.mode,
            status: r.status,
            answer: Some(r.answer.clone()),
            started_at: rfc3339(r.started_at_ms),
            finished_at: r.finished_at_ms.map(rfc3339),
            last_seq,
            usage: r.usage,
            pending_confirm: None,
            memory: Vec::new(),
            distilling: false,
            output: None,
        }
    }
}

/// `GET /api/agent/run`: the active run, if any.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CurrentRun {
    /// The run in the slot.
    pub run: Option<RunView>,
}

/// `POST /api/agent/run`'s answer: the run started.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RunStarted {
    /// Run id.
    pub run_id: String,
    /// Its conversation (new when none was given).
    pub conversation: String,
    /// The device it operates.
    pub device: String,
}

/// A page of a list: its items and how many match in all; `next_cursor` where the list pages
/// by cursor (the task-run history) and there is a next page.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[schemars(rename = "{T}Page")]
pub struct PageView<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// How many items match, on all pages.
    pub total: u64,
    /// The cursor of the next page (`cursor=`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

impl<T> PageView<T> {
    /// A page of a list that pages by offset.
    pub fn new(items: Vec<T>, total: u64) -> Self {
        PageView {
            items,
            total,
            next_cursor: None,
        }
    }
}

/// A list that is all there is (no paging).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[schemars(rename = "{T}List")]
pub struct Items<T> {
    /// Every item.
    pub items: Vec<T>,
}

/// The answer of a stop: the run is stopping (it ends shortly as `stopped`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Stopping {
    /// The run being stopped.
    pub run_id: String,
    /// Always true.
    pub stopping: bool,
}

impl Stopping {
    /// The answer for `run_id`.
    pub fn run(run_id: String) -> Self {
        Stopping {
            run_id,
            stopping: true,
        }
    }
}

/// `POST /api/agent/confirm`'s answer: the approval given.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Confirmed {
    /// The run.
    pub run_id: String,
    /// The tool call answered.
    pub call_id: String,
    /// Whether it was approved.
    pub approve: bool,
}

#[cfg(test)]
mod tests {
    use ts_rs::{Config, TS};

    use super::*;
    use crate::console::settings::SettingsView;
    use crate::registry::{DeviceDetails, DeviceKind};
    use deft_protocol::{AgentEvent, CommandResult, DeltaKind, EventKind, ResultStatus, ToolStep};

    /// Every type of the console API, in the order `types.ts` declares them.
    fn declarations() -> String {
        let cfg = Config::new().with_large_int("number");
        let decls = [
            Usage::decl(&cfg),
            DoneStatus::decl(&cfg),
            deft_protocol::RunMode::decl(&cfg),
            deft_protocol::DraftIssue::decl(&cfg),
            deft_protocol::OutputError::decl(&cfg),
            deft_protocol::TypedResult::decl(&cfg),
            format!(
                "/** A run's state: running, or how it ended. */\ntype RunStatus = \"{}\" | DoneStatus;",
                RunStatus::RUNNING
            ),
            ResultStatus::decl(&cfg),
            StepSummary::decl(&cfg),
            MessageView::decl(&cfg),
            ConversationView::decl(&cfg),
            ConversationDetailView::decl(&cfg),
            PendingConfirm::decl(&cfg),
            RunView::decl(&cfg),
            CurrentRun::decl(&cfg),
            RunStarted::decl(&cfg),
            deft_app::agent_runs::drafts::KeptDraft::decl(&cfg),
            DeviceKind::decl(&cfg),
            DeviceDetails::decl(&cfg),
            SettingsView::decl(&cfg),
            crate::console::vault::SecretView::decl(&cfg),
            crate::console::vault::SecretList::decl(&cfg),
            crate::console::api_tokens::TokenView::decl(&cfg),
            crate::console::api_tokens::CallView::decl(&cfg),
            crate::console::webhooks::WebhookView::decl(&cfg),
            crate::console::webhooks::DeliveryView::decl(&cfg),
            crate::console::notifications::NotificationView::decl(&cfg),
            crate::console::notifications::NotificationList::decl(&cfg),
            deft_app::fleet::MemberState::decl(&cfg),
            deft_app::fleet::FleetDevice::decl(&cfg),
            deft_app::fleet::FleetMember::decl(&cfg),
            deft_app::fleet::FleetView::decl(&cfg),
            CommandResult::decl(&cfg),
            DeltaKind::decl(&cfg),
            ToolStep::decl(&cfg),
            deft_protocol::task_run::StepStatus::decl(&cfg),
            deft_protocol::task_run::MatchedControl::decl(&cfg),
            deft_protocol::task_run::TaskStepStart::decl(&cfg),
            deft_protocol::task_run::TaskStepResult::decl(&cfg),
            deft_protocol::task_run::TaskStepRetry::decl(&cfg),
            deft_protocol::task_run::TaskRound::decl(&cfg),
            deft_protocol::memory::MemoryKind::decl(&cfg),
            deft_protocol::memory::MemoryOutcome::decl(&cfg),
            deft_protocol::memory::MemoryItem::decl(&cfg),
            MemoryNote::decl(&cfg),
            EventKind::decl(&cfg),
            AgentEvent::decl(&cfg),
        ]
        .into_iter()
        .chain(crate::console::tasks::views::ts_decls::declarations(&cfg))
        .chain(crate::console::memory::views::ts_decls::declarations(&cfg));
        let mut out = String::from(
            "// Generated from the Rust types by `crates/server/src/console/views.rs` (the\n\
             // typescript_types_are_current test): do not edit. DEFT_UPDATE_TS=1 cargo test -p\n\
             // deft-server typescript_types rewrites it.\n",
        );
        for decl in decls {
            out.push('\n');
            if let Some(docs) = docs_of(&decl) {
                out.push_str(&docs);
            }
            out.push_str("export ");
            out.push_str(strip_docs(&decl).trim());
            out.push('\n');
        }
        out.push_str(
            "\n/** The event type names of the stream. */\nexport const EVENT_TYPES = [\n",
        );
        for name in EventKind::NAMES {
            out.push_str(&format!("  \"{name}\",\n"));
        }
        out.push_str("] as const;\n");
        out
    }

    /// The leading doc comment ts-rs put on a declaration.
    fn docs_of(decl: &str) -> Option<String> {
        let start = decl.find("/**")?;
        let end = decl.find("*/")? + 2;
        (start == 0).then(|| format!("{}\n", &decl[..end]))
    }

    fn strip_docs(decl: &str) -> &str {
        match (decl.starts_with("/**"), decl.find("*/")) {
            (true, Some(end)) => &decl[end + 2..],
            _ => decl,
        }
    }

    #[test]
    fn typescript_types_are_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/src/types.ts");
        let fresh = declarations();
        if std::env::var_os("DEFT_UPDATE_TS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "web/src/types.ts is out of date with the Rust types: run \
             `DEFT_UPDATE_TS=1 cargo test -p deft-server typescript_types` and commit it"
        );
    }

    #[test]
    fn views_serialize_as_the_generated_types_say() {
        let step = ToolStep {
            call_id: "c1".into(),
            tool: "click_input".into(),
            args: serde_json::json!({"id": "7"}),
            result: serde_json::json!({"status": "success"}),
            image_ids: vec![],
            duration_ms: 3,
            effect: None,
        };
        let message = MessageView::from(&Message {
            role: "assistant".into(),
            content: "done".into(),
            created_at_ms: 0,
            run_id: Some("r1".into()),
            status: Some(DoneStatus::MaxSteps),
            usage: None,
            reasoning: None,
            steps: vec![step.summary()],
        });
        let v = serde_json::to_value(&message).unwrap();
        assert_eq!(v["status"], "max_steps");
        assert_eq!(v["steps"][0]["status"], "success");
        assert!(v.get("usage").is_none(), "{v}");
        let user = MessageView::from(&Message {
            role: "user".into(),
            content: "hi".into(),
            created_at_ms: 0,
            run_id: None,
            status: None,
            usage: None,
            reasoning: None,
            steps: vec![],
        });
        assert!(serde_json::to_value(&user).unwrap().get("steps").is_none());
        let ev = AgentEvent {
            seq: 2,
            kind: EventKind::Delta {
                text: "x".into(),
                kind: DeltaKind::Content,
            },
        };
        assert_eq!(serde_json::to_value(&ev).unwrap()["type"], "delta");
    }
}
