//! Starting a chat or designer run: the request checked against the settings, the devices and
//! the conversations; the slot taken, then the device; the run and its prompt recorded; the
//! agent started on its own runtime with one sink for its events; and, when the agent returns,
//! its end stored ([`super::finish`]) before `done` is shown.

use std::sync::Arc;

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{
    Agent, EventSink, HistoryMessage, OutputSchema, RunIo, RunOutcome, RunProfile, RunRequest,
    RunTimings,
};
use deft_memory::MemorySession;
use deft_protocol::{AgentEvent, DoneStatus, DraftOutcome, EventKind, RunMode, RunStatus, Usage};
use deft_store::{Message, RunRecord, Store, StoreError};
use deft_tools::Devices;
use deft_tools::devices::BusyGuard;
use parking_lot::Mutex;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::approvals::Approvals;
use super::noticed::NoticedApprovals;
use super::summary::Summary;
use super::{ActiveRun, finish};
use crate::app::{App, now_ms};
use crate::event_writer::{store_until_done, write_batches};
use crate::run_images::FileImages;
use crate::run_log::{LoggedEvent, RunLog};
use crate::runtime::agent_runtime;
use crate::settings::SettingsError;
use crate::texts;
use crate::title::clean_title;

/// A request for a chat or designer run.
pub struct AgentOrder {
    /// What the person asks.
    pub prompt: String,
    /// The conversation to continue (a chat only); `None` starts one.
    pub conversation: Option<String>,
    /// The device; `None`: the settings' default device.
    pub device: Option<String>,
    /// A chat, or designer mode.
    pub mode: RunMode,
    /// A chat: the JSON Schema its final answer must be valid against (a typed result).
    pub output_schema: Option<serde_json::Value>,
}

/// Why a run did not start; each says what to do.
#[derive(Debug)]
pub enum StartError {
    /// The request cannot run as it is (empty prompt, no model, no device …).
    Invalid(String),
    /// It names a device or conversation that is not there.
    NotFound(String),
    /// Another run holds the slot, or the device is busy.
    Busy(String),
    /// The store failed.
    Store(StoreError),
    /// The settings could not be read.
    Settings(SettingsError),
}

impl From<SettingsError> for StartError {
    fn from(e: SettingsError) -> Self {
        StartError::Settings(e)
    }
}

impl From<StoreError> for StartError {
    fn from(e: StoreError) -> Self {
        StartError::Store(e)
    }
}

impl App {
    /// Starts a chat or designer run on one of `devices` with the settings in force: checks the
    /// request, takes the run slot and the device, records the run and its prompt, starts the agent and answers at
    /// once with the run in the slot. A refused run leaves nothing behind.
    pub async fn start_agent_run(
        &self,
        devices: Arc<dyn Devices>,
        order: AgentOrder,
    ) -> Result<Arc<ActiveRun>, StartError> {
        let plan = RunPlan::check(self, devices.as_ref(), order).await?;
        let claimed = plan.claim(self).await?;
        claimed.record(self.store(), self.server_id()).await?;
        let run = claimed.run.clone();
        claimed.spawn(self, devices);
        Ok(run)
    }
}

/// A checked run request: everything a run needs before anything is created.
struct RunPlan {
    prompt: String,
    mode: RunMode,
    device_id: String,
    device: deft_tools::Device,
    llm: LlmClient,
    max_steps: u32,
    /// The conversation to continue, if one was named.
    given: Option<String>,
    history: Vec<HistoryMessage>,
    /// The schema the final answer must be valid against, checked.
    output_schema: Option<OutputSchema>,
}

impl RunPlan {
    /// Validates the order against the settings, the devices and the conversations.
    async fn check(
        app: &App,
        devices: &dyn Devices,
        order: AgentOrder,
    ) -> Result<Self, StartError> {
        let prompt = order.prompt.trim().to_owned();
        if prompt.is_empty() {
            return Err(StartError::Invalid(texts::EMPTY_PROMPT.to_owned()));
        }
        let given = order.conversation.filter(|c| !c.trim().is_empty());
        if order.mode == RunMode::Designer && given.is_some() {
            return Err(StartError::Invalid(
                texts::DESIGNER_NO_CONVERSATION.to_owned(),
            ));
        }
        let output_schema = match order.output_schema {
            None => None,
            Some(_) if order.mode == RunMode::Designer => {
                return Err(StartError::Invalid(
                    texts::DESIGNER_NO_OUTPUT_SCHEMA.to_owned(),
                ));
            }
            Some(schema) => {
                Some(OutputSchema::new(schema).map_err(|e| StartError::Invalid(e.to_string()))?)
            }
        };
        let settings = app.run_settings().await?;
        if settings.model.trim().is_empty() {
            return Err(StartError::Invalid(texts::missing_setting("model")));
        }
        let device_id = order
            .device
            .filter(|d| !d.trim().is_empty())
            .or_else(|| Some(settings.default_device.clone()).filter(|d| !d.is_empty()))
            .ok_or_else(|| StartError::Invalid(texts::NO_DEVICE.to_owned()))?;
        let device = devices.get(&device_id).ok_or_else(|| {
            let known: Vec<String> = devices.list().into_iter().map(|d| d.id).collect();
            StartError::NotFound(texts::device_not_connected(&device_id, &known))
        })?;
        let llm = LlmClient::new(LlmConfig::new(
            &settings.api_base,
            &settings.model,
            settings.api_key.clone(),
        ))
        .map_err(|e| StartError::Invalid(texts::model_unusable(&e.to_string())))?;
        if app.current_run().is_some() {
            return Err(StartError::Busy(texts::RUN_ACTIVE.to_owned()));
        }
        let history = match &given {
            Some(id) => history_of(app.store(), id).await?,
            None => Vec::new(),
        };
        Ok(RunPlan {
            prompt,
            mode: order.mode,
            device_id,
            device,
            llm,
            max_steps: settings.max_steps,
            given,
            history,
            output_schema,
        })
    }

    /// Takes the run slot, then the device; creates the conversation when none was named. The
    /// slot comes first, so a burst of requests from idle hears "another run is active", not
    /// that the winner's device is busy. A refused run leaves nothing behind.
    async fn claim(self, app: &App) -> Result<ClaimedRun, StartError> {
        let store = app.store();
        let created = self.given.is_none();
        let conversation = match self.given {
            Some(id) => id,
            None => {
                let title = match self.mode {
                    RunMode::Chat => clean_title(&self.prompt),
                    RunMode::Designer => {
                        clean_title(&format!("{}{}", texts::DESIGNER_TITLE, self.prompt))
                    }
                };
                store.create_conversation(&title).await?.id
            }
        };
        let fence = app
            .fleet()
            .map(|f| f.fence(app.server_id(), &self.device_id));
        let run = Arc::new(ActiveRun {
            run_id: uuid::Uuid::new_v4().to_string(),
            conversation: conversation.clone(),
            device: self.device_id,
            prompt: self.prompt.clone(),
            mode: self.mode,
            started_at_ms: now_ms(),
            log: RunLog::new(),
            approvals: Approvals::default(),
            fence,
            cancel: CancellationToken::new(),
            usage: Mutex::new(Usage::default()),
        });
        // A refused run takes the conversation it created with it.
        let refused = async |text: String| {
            if created {
                let _ = store.delete_conversation(&run.conversation).await;
            }
            StartError::Busy(text)
        };
        if !app.agent_runs().claim(run.clone()) {
            return Err(refused(texts::RUN_ACTIVE.to_owned()).await);
        }
        let Some(busy) = self.device.try_reserve() else {
            app.agent_runs().unclaim(&run.run_id);
            return Err(refused(app.device_busy_text(&run.device)).await);
        };
        let guard = SlotGuard {
            app: app.clone(),
            run: run.clone(),
        };
        // A designer run explores on its own: no recall, no distilling (see deft-designer).
        let session = match self.mode {
            RunMode::Chat => app.memory().session(&run.run_id),
            RunMode::Designer => None,
        };
        let profile = match &session {
            _ if self.mode == RunMode::Designer => deft_designer::profile(&self.device),
            Some(session) => RunProfile::chat().with_extension(session.clone()),
            None => RunProfile::chat(),
        };
        Ok(ClaimedRun {
            guard,
            run,
            busy,
            device: self.device,
            llm: self.llm,
            max_steps: self.max_steps,
            request: RunRequest {
                goal: self.prompt,
                history: self.history,
                extra_context: Vec::new(),
                profile,
                output_schema: self.output_schema,
            },
            session,
        })
    }
}

/// The history a run continues: the conversation's user and assistant messages with text.
async fn history_of(store: &Store, id: &str) -> Result<Vec<HistoryMessage>, StartError> {
    let conversation = store
        .conversation(id)
        .await?
        .ok_or_else(|| StartError::NotFound(texts::unknown_conversation(id)))?;
    Ok(conversation
        .messages
        .iter()
        .filter(|m| !m.content.is_empty() && (m.role == "user" || m.role == "assistant"))
        .map(|m| HistoryMessage {
            role: m.role.clone(),
            content: m.content.clone(),
        })
        .collect())
}

/// Frees the slot and closes the log even if the run's task panics.
pub(super) struct SlotGuard {
    app: App,
    run: Arc<ActiveRun>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.app.agent_runs().release(&self.run.run_id);
        self.run.log.close();
    }
}

/// A run that holds the slot and its device.
struct ClaimedRun {
    run: Arc<ActiveRun>,
    /// Frees the slot when the run ends, however it ends.
    guard: SlotGuard,
    busy: BusyGuard,
    device: deft_tools::Device,
    llm: LlmClient,
    max_steps: u32,
    request: RunRequest,
    /// The run's session with the memory (a chat's, when runs use the memory); it takes part
    /// in the run through the request's profile and distils after `done`.
    session: Option<Arc<MemorySession>>,
}

impl ClaimedRun {
    /// Stores the run (status running) and the person's prompt as the conversation's next
    /// message.
    async fn record(&self, store: &Store, owner: &str) -> Result<(), StoreError> {
        let run = &self.run;
        store
            .create_run(&RunRecord {
                id: run.run_id.clone(),
                conversation_id: run.conversation.clone(),
                device: run.device.clone(),
                prompt: run.prompt.clone(),
                mode: run.mode,
                status: RunStatus::Running,
                answer: String::new(),
                usage: Usage::default(),
                started_at_ms: run.started_at_ms,
                finished_at_ms: None,
                owner: Some(owner.to_owned()),
            })
            .await?;
        store
            .append_message(
                &run.conversation,
                &Message {
                    role: "user".to_owned(),
                    content: run.prompt.clone(),
                    created_at_ms: run.started_at_ms,
                    run_id: Some(run.run_id.clone()),
                    status: None,
                    usage: None,
                    reasoning: None,
                    steps: Vec::new(),
                },
            )
            .await
    }

    /// Starts the agent on its own runtime and a task that stores the outcome when it ends.
    fn spawn(self, app: &App, devices: Arc<dyn Devices>) {
        let ClaimedRun {
            run,
            guard,
            busy,
            device,
            llm,
            max_steps,
            request,
            session,
        } = self;
        let config = app.agent_config().clone().with_max_steps(max_steps);
        let llm = Arc::new(llm);
        let agent = Agent::new(llm.clone(), config, devices);
        let (persist_tx, persist_rx) = mpsc::unbounded_channel();
        let writer = {
            let store = app.store().clone();
            let kept = run.event_store();
            let shown = run.clone();
            let fenced_off = run.cancel.clone();
            // Stored first, then shown: a seq a watcher saw is in the store. Refused for good
            // (its device moved to another server): the run stops, it writes nothing more.
            tokio::spawn(write_batches(
                persist_rx,
                async move |batch: &[LoggedEvent]| {
                    if !store_until_done(&store, &kept, batch).await {
                        fenced_off.cancel();
                    }
                },
                move |event| shown.log.push(event),
            ))
        };
        let sink = Arc::new(RunSink {
            run: run.clone(),
            persist: persist_tx,
            summary: Mutex::new(Summary::default()),
        });
        let io = RunIo {
            events: vec![sink.clone()],
            images: Arc::new(FileImages::new(app.run_images_dir(&run.run_id))),
            approver: Arc::new(NoticedApprovals::new(
                app,
                &run.approvals,
                &run.run_id,
                &run.conversation,
                &run.device,
            )),
        };
        let cancel = run.cancel.clone();
        let running = agent_runtime().spawn(async move {
            let _busy = busy;
            agent.run(&device, request, io, cancel).await
        });
        let app = app.clone();
        tokio::spawn(async move {
            let outcome = running.await.unwrap_or_else(|e| {
                tracing::error!(run = %run.run_id, error = %e, "the agent task failed");
                crashed(run.mode)
            });
            let summary = match Arc::try_unwrap(sink) {
                Ok(sink) => sink.summary.into_inner(),
                Err(shared) => std::mem::take(&mut *shared.summary.lock()),
            };
            // Every sender is gone now: the writer drains what is left and ends.
            let _ = writer.await;
            app.memory()
                .mark_before_done(&run.run_id, session.as_deref(), &outcome);
            finish::finish(&app, &run, summary, &outcome).await;
            drop(guard);
            app.memory().after_done(&run.run_id, session, llm, outcome);
        });
    }
}

/// The outcome of a run whose agent task panicked.
fn crashed(mode: RunMode) -> RunOutcome {
    let text = texts::RUN_CRASHED.to_owned();
    RunOutcome {
        status: DoneStatus::Failed,
        usage: Usage::default(),
        steps: 0,
        tool_calls: 0,
        timings: RunTimings::default(),
        mode,
        draft: (mode == RunMode::Designer).then(|| DraftOutcome::Failed(text.clone())),
        output: None,
        answer: text,
    }
}

/// The run's one event sink: log, store writer, summary.
struct RunSink {
    run: Arc<ActiveRun>,
    persist: mpsc::UnboundedSender<LoggedEvent>,
    summary: Mutex<Summary>,
}

impl EventSink for RunSink {
    fn send(&self, event: &AgentEvent) {
        {
            let mut s = self.summary.lock();
            if matches!(event.kind, EventKind::Done { .. }) {
                // Held back until the run is stored and the slot is free (see finish).
                s.done = Some(event.clone());
                return;
            }
            s.absorb(&event.kind);
            if let EventKind::Usage(u) = &event.kind {
                *self.run.usage.lock() = *u;
            }
        }
        // Stored first, then shown (write_batches): a seq a watcher saw is in the store.
        let _ = self.persist.send(LoggedEvent::new(event));
    }
}
