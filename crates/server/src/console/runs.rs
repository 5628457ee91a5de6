//! The run slot (one run at a time, platform-wide) and the life of a run. A run is a chat or
//! designer mode (`mode`); both take the same slot, and a designer run's valid draft is kept
//! ([`drafts`](super::drafts)) before its `done` is shown. A chat takes part in the memory
//! (its session recalls at the start and distils after `done`, [`memory::run`]); a designer run
//! does not.
//!
//! A run's events go to three places through one [`EventSink`]: its [`RunLog`] (what SSE watchers
//! read), the store (batched by a writer task, so a restart can replay it), and a summary (the
//! reasoning and steps kept with the assistant message). The `done` event is held back until the
//! store has the whole run and the slot is free again, so whoever sees `done` can start the next
//! run at once and finds the conversation complete.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{
    Agent, EventSink, HistoryMessage, RunIo, RunOutcome, RunProfile, RunRequest, RunTimings,
};
use deft_memory::MemorySession;
use deft_protocol::{
    AgentEvent, DeltaKind, DoneStatus, DraftOutcome, EventKind, RunMode, RunStatus, StepSummary,
    Usage,
};
use deft_store::MAX_REASONING_CHARS;
use deft_store::{Message, RunRecord};
use deft_tools::{Devices, devices::BusyGuard};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::approvals::Approvals;
use super::drafts;
use super::images::FileImages;
use super::views::{CurrentRun, RunStarted, RunView};
use super::{Console, ConsoleError, memory, now_ms, rfc3339, texts};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use deft_app::event_writer::{EventStore, store_until_done, write_batches};
use deft_app::run_log::{LoggedEvent, RunLog};
use deft_app::runtime::agent_runtime;
use deft_app::title::clean_title;

/// Finished runs whose logs stay in memory (older ones are read back from the store).
const RECENT_LOGS: usize = 16;

/// The run in the slot.
pub struct ActiveRun {
    /// Run id.
    pub run_id: String,
    /// Its conversation.
    pub conversation: String,
    /// The device it operates.
    pub device: String,
    /// What was asked.
    pub prompt: String,
    /// A chat, or designer mode.
    pub mode: RunMode,
    /// When it started.
    pub started_at_ms: i64,
    /// Its events.
    pub log: Arc<RunLog>,
    /// Its open questions.
    pub approvals: Approvals,
    cancel: CancellationToken,
    usage: Mutex<Usage>,
}

impl ActiveRun {
    /// Asks the run to stop (it ends within about 2 s, status `stopped`).
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// Token usage so far.
    pub fn usage(&self) -> Usage {
        *self.usage.lock()
    }
}

// Here rather than in `views`, so views need not know the run slot.
impl RunView {
    /// The run in the slot.
    pub fn active(run: &ActiveRun) -> Self {
        RunView {
            run_id: run.run_id.clone(),
            conversation: run.conversation.clone(),
            device: run.device.clone(),
            prompt: run.prompt.clone(),
            mode: run.mode,
            status: RunStatus::Running,
            answer: None,
            started_at: rfc3339(run.started_at_ms),
            finished_at: None,
            last_seq: run.log.last_seq(),
            usage: run.usage(),
            pending_confirm: run.approvals.pending().into_iter().next(),
            memory: Vec::new(),
            distilling: false,
        }
    }
}

/// The slot and the logs of recent runs.
#[derive(Default)]
pub struct Runs {
    slot: Mutex<Option<Arc<ActiveRun>>>,
    recent: Mutex<VecDeque<(String, Arc<RunLog>)>>,
}

impl Runs {
    /// The active run.
    pub fn active(&self) -> Option<Arc<ActiveRun>> {
        self.slot.lock().clone()
    }

    /// The in-memory log of a run (active or recent).
    pub fn log(&self, run_id: &str) -> Option<Arc<RunLog>> {
        if let Some(a) = self.active().filter(|a| a.run_id == run_id) {
            return Some(a.log.clone());
        }
        self.recent
            .lock()
            .iter()
            .find(|(id, _)| id == run_id)
            .map(|(_, log)| log.clone())
    }

    fn claim(&self, run: Arc<ActiveRun>) -> bool {
        let mut slot = self.slot.lock();
        if slot.is_some() {
            return false;
        }
        *slot = Some(run);
        true
    }

    /// Frees the slot held by `run_id` for a run that never started (its device was busy):
    /// nothing of it is kept.
    fn unclaim(&self, run_id: &str) {
        self.slot.lock().take_if(|r| r.run_id == run_id);
    }

    /// Frees the slot held by `run_id`, keeping its log among the recent ones.
    fn release(&self, run_id: &str) {
        let mut slot = self.slot.lock();
        if let Some(run) = slot.take_if(|r| r.run_id == run_id) {
            let mut recent = self.recent.lock();
            recent.push_back((run.run_id.clone(), run.log.clone()));
            while recent.len() > RECENT_LOGS {
                recent.pop_front();
            }
        }
    }
}

/// What a run's message keeps besides the answer: built from the events as they come, and
/// again from the stored events when a restart cut the run off.
#[derive(Default)]
struct Summary {
    reasoning: String,
    reasoning_chars: usize,
    /// A model call ended since the last reasoning: the next call's reasoning starts a paragraph
    /// of its own (not glued to the last sentence: "…first.Now I know").
    call_ended: bool,
    steps: Vec<StepSummary>,
    /// The answer text streamed since the last step (what a person saw of the last turn).
    partial: String,
    usage: Usage,
    done: Option<AgentEvent>,
}

impl Summary {
    /// Takes in one event (reasoning capped at the store's limit).
    fn absorb(&mut self, kind: &EventKind) {
        match kind {
            EventKind::Delta {
                text,
                kind: DeltaKind::Reasoning,
            } if self.reasoning_chars < MAX_REASONING_CHARS => {
                let call_break = if std::mem::take(&mut self.call_ended) {
                    paragraph_break(&self.reasoning)
                } else {
                    ""
                };
                let room = MAX_REASONING_CHARS - self.reasoning_chars;
                let part: String = call_break.chars().chain(text.chars()).take(room).collect();
                self.reasoning_chars += part.chars().count();
                self.reasoning.push_str(&part);
            }
            EventKind::Delta {
                text,
                kind: DeltaKind::Content,
            } => self.partial.push_str(text),
            EventKind::Step(step) => {
                self.partial.clear();
                self.steps.push(step.summary());
            }
            EventKind::Usage(u) => {
                self.usage = *u;
                self.call_ended = true;
            }
            _ => {}
        }
    }

    /// The summary of a run's stored events (`(seq, JSON)`; unreadable ones are passed over).
    fn of_stored(events: &[(u64, String)]) -> Self {
        let mut summary = Summary::default();
        for (_, json) in events {
            if let Ok(event) = serde_json::from_str::<AgentEvent>(json) {
                summary.absorb(&event.kind);
            }
        }
        summary
    }
}

/// What `text` (the reasoning so far) lacks of ending in a blank line, so the next model call's
/// reasoning starts a paragraph of its own; nothing before the first.
fn paragraph_break(text: &str) -> &'static str {
    if text.is_empty() || text.ends_with("\n\n") {
        ""
    } else if text.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    }
}

/// The run's one event sink: log, store writer, summary.
struct ConsoleSink {
    run: Arc<ActiveRun>,
    persist: mpsc::UnboundedSender<LoggedEvent>,
    summary: Mutex<Summary>,
}

impl EventSink for ConsoleSink {
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
        // Stored first, then shown (write_events): a seq a watcher saw is in the store.
        let _ = self.persist.send(LoggedEvent::new(event));
    }
}

/// Frees the slot and closes the log even if the run's task panics.
struct SlotGuard {
    console: Console,
    run: Arc<ActiveRun>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.console.runs().release(&self.run.run_id);
        self.run.log.close();
    }
}

/// `POST /api/agent/run` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartBody {
    #[serde(default)]
    conversation: Option<String>,
    prompt: String,
    #[serde(default)]
    device: Option<String>,
    /// `chat` (the default) or `designer`.
    #[serde(default)]
    mode: RunMode,
}

fn bad(text: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, text.into())
}

/// `POST /api/agent/run`: checks the request, takes the run slot and the device, records the
/// run and its prompt, then starts the agent and answers 202 at once.
pub async fn start(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<StartBody>,
) -> Result<Response, ApiError> {
    let console = app.console()?.clone();
    let plan = RunPlan::check(&app, &console, body).await?;
    let claimed = plan.claim(&console).await?;
    let answer = RunStarted {
        run_id: claimed.run.run_id.clone(),
        conversation: claimed.run.conversation.clone(),
        device: claimed.run.device.clone(),
    };
    claimed.record(console.store()).await?;
    claimed.spawn(&app, &console);
    Ok((StatusCode::ACCEPTED, Json(answer)).into_response())
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
}

impl RunPlan {
    /// Validates the body against the settings, the devices and the conversations.
    async fn check(app: &AppState, console: &Console, body: StartBody) -> Result<Self, ApiError> {
        let prompt = body.prompt.trim().to_owned();
        if prompt.is_empty() {
            return Err(bad(texts::EMPTY_PROMPT));
        }
        let given = body.conversation.filter(|c| !c.trim().is_empty());
        if body.mode == RunMode::Designer && given.is_some() {
            return Err(bad(texts::DESIGNER_NO_CONVERSATION));
        }
        let settings = console.settings().await?;
        if settings.model.trim().is_empty() {
            return Err(bad(texts::missing_setting("model")));
        }
        let device_id = body
            .device
            .filter(|d| !d.trim().is_empty())
            .or_else(|| Some(settings.default_device.clone()).filter(|d| !d.is_empty()))
            .ok_or_else(|| bad(texts::NO_DEVICE))?;
        let device = app.registry.get(&device_id).ok_or_else(|| {
            let known: Vec<String> = app.registry.list().into_iter().map(|d| d.id).collect();
            ApiError(
                StatusCode::NOT_FOUND,
                texts::device_not_connected(&device_id, &known),
            )
        })?;
        let llm = LlmClient::new(LlmConfig::new(
            &settings.api_base,
            &settings.model,
            settings.api_key.clone(),
        ))
        .map_err(|e| bad(texts::model_unusable(&e.to_string())))?;
        if console.runs().active().is_some() {
            return Err(ApiError(StatusCode::CONFLICT, texts::RUN_ACTIVE.to_owned()));
        }
        let history = match &given {
            Some(id) => history_of(console.store(), id).await?,
            None => Vec::new(),
        };
        Ok(RunPlan {
            prompt,
            mode: body.mode,
            device_id,
            device,
            llm,
            max_steps: settings.max_steps,
            given,
            history,
        })
    }

    /// Takes the run slot, then the device; creates the conversation when none was named. The
    /// slot comes first, so a burst of requests from idle hears "another run is active", not
    /// that the winner's device is busy. A refused run leaves nothing behind.
    async fn claim(self, console: &Console) -> Result<ClaimedRun, ApiError> {
        let store = console.store();
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
        let run = Arc::new(ActiveRun {
            run_id: uuid::Uuid::new_v4().to_string(),
            conversation: conversation.clone(),
            device: self.device_id,
            prompt: self.prompt.clone(),
            mode: self.mode,
            started_at_ms: now_ms(),
            log: RunLog::new(),
            approvals: Approvals::default(),
            cancel: CancellationToken::new(),
            usage: Mutex::new(Usage::default()),
        });
        // A refused run takes the conversation it created with it.
        let refused = async |text: String| {
            if created {
                let _ = store.delete_conversation(&run.conversation).await;
            }
            ApiError(StatusCode::CONFLICT, text)
        };
        if !console.runs().claim(run.clone()) {
            return Err(refused(texts::RUN_ACTIVE.to_owned()).await);
        }
        let Some(busy) = self.device.try_reserve() else {
            console.runs().unclaim(&run.run_id);
            return Err(refused(console.device_busy_text(&run.device)).await);
        };
        let guard = SlotGuard {
            console: console.clone(),
            run: run.clone(),
        };
        // A designer run explores on its own: no recall, no distilling (see deft-designer).
        let session = match self.mode {
            RunMode::Chat => console.memory().session(&run.run_id),
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
            },
            session,
        })
    }
}

/// The history a run continues: the conversation's user and assistant messages with text.
async fn history_of(store: &deft_store::Store, id: &str) -> Result<Vec<HistoryMessage>, ApiError> {
    let conversation = store
        .conversation(id)
        .await?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, texts::unknown_conversation(id)))?;
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
    async fn record(&self, store: &deft_store::Store) -> Result<(), ApiError> {
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
            .await?;
        Ok(())
    }

    /// Starts the agent on its own runtime and a task that stores the outcome when it ends.
    fn spawn(self, app: &AppState, console: &Console) {
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
        let config = console.inner.agent.clone().with_max_steps(max_steps);
        let devices: Arc<dyn Devices> = Arc::new(app.registry.clone());
        let llm = Arc::new(llm);
        let agent = Agent::new(llm.clone(), config, devices);
        let (persist_tx, persist_rx) = mpsc::unbounded_channel();
        let writer = {
            let store = console.store().clone();
            let kept = EventStore::Agent(run.run_id.clone());
            let shown = run.clone();
            // Stored first, then shown: a seq a watcher saw is in the store.
            tokio::spawn(write_batches(
                persist_rx,
                async move |batch: &[LoggedEvent]| store_until_done(&store, &kept, batch).await,
                move |event| shown.log.push(event),
            ))
        };
        let sink = Arc::new(ConsoleSink {
            run: run.clone(),
            persist: persist_tx,
            summary: Mutex::new(Summary::default()),
        });
        let io = RunIo {
            events: vec![sink.clone()],
            images: Arc::new(FileImages::new(console.runs_dir().join(&run.run_id))),
            approver: Arc::new(run.approvals.clone()),
        };
        let cancel = run.cancel.clone();
        let running = agent_runtime().spawn(async move {
            let _busy = busy;
            agent.run(&device, request, io, cancel).await
        });
        let console = console.clone();
        tokio::spawn(async move {
            let outcome = running.await.unwrap_or_else(|e| {
                tracing::error!(run = %run.run_id, error = %e, "the agent task failed");
                let crashed = texts::RUN_CRASHED.to_owned();
                RunOutcome {
                    status: DoneStatus::Failed,
                    usage: Usage::default(),
                    steps: 0,
                    tool_calls: 0,
                    timings: RunTimings::default(),
                    mode: run.mode,
                    draft: (run.mode == RunMode::Designer)
                        .then(|| DraftOutcome::Failed(crashed.clone())),
                    answer: crashed,
                }
            });
            let summary = match Arc::try_unwrap(sink) {
                Ok(sink) => sink.summary.into_inner(),
                Err(shared) => std::mem::take(&mut *shared.summary.lock()),
            };
            // Every sender is gone now: the writer drains what is left and ends.
            let _ = writer.await;
            memory::run::mark_before_done(&console, &run.run_id, session.as_deref(), &outcome);
            finish(&console, &run, summary, &outcome).await;
            drop(guard);
            memory::run::after_done(&console, &run.run_id, session, llm, outcome);
        });
    }
}

/// Stores the end of a run (and a designer run's draft), frees the slot, then lets watchers
/// see `done`.
async fn finish(console: &Console, run: &Arc<ActiveRun>, summary: Summary, outcome: &RunOutcome) {
    let store = console.store();
    let (status, usage) = (outcome.status, outcome.usage);
    let answer = kept_answer(outcome);
    let done = summary.done.unwrap_or_else(|| AgentEvent {
        seq: run.log.last_seq() + 1,
        kind: EventKind::agent_done(
            outcome.answer.clone(),
            usage,
            status,
            run.mode,
            outcome.draft.as_ref(),
        ),
    });
    let done = LoggedEvent::new(&done);
    let kept_events = EventStore::Agent(run.run_id.clone());
    store_until_done(store, &kept_events, std::slice::from_ref(&done)).await;
    if let Some(DraftOutcome::Draft { task, warnings }) = &outcome.draft {
        let kept = drafts::drafted(
            task.clone(),
            warnings.clone(),
            &run.prompt,
            &run.run_id,
            &run.device,
        );
        if let Err(e) = drafts::keep(store, &kept).await {
            tracing::error!(run = %run.run_id, error = %e, "cannot keep the task draft");
        }
    }
    if let Err(e) = store
        .finish_run(&run.run_id, status, &answer, &usage, now_ms())
        .await
    {
        tracing::error!(run = %run.run_id, error = %e, "cannot store the end of the run");
    }
    let message = Message {
        role: "assistant".to_owned(),
        content: answer,
        created_at_ms: now_ms(),
        run_id: Some(run.run_id.clone()),
        status: Some(status),
        usage: Some(usage),
        reasoning: Some(summary.reasoning).filter(|r| !r.is_empty()),
        steps: summary.steps,
    };
    if let Err(e) = store.append_message(&run.conversation, &message).await {
        tracing::warn!(run = %run.run_id, error = %e, "cannot store the answer (conversation deleted?)");
    }
    console.runs().release(&run.run_id);
    // Its device was freed when the agent returned: fires that found it busy try again.
    console.tasks().device_freed(&run.device);
    run.log.push(done);
}

/// The answer a run's record and message keep: the final answer, or for a designer run that
/// ended without a draft, why.
fn kept_answer(outcome: &RunOutcome) -> String {
    match &outcome.draft {
        Some(DraftOutcome::Failed(why)) => texts::no_task_draft(why),
        _ => outcome.answer.clone(),
    }
}

/// `GET /api/agent/run`: the active run, if any.
pub async fn current(State(app): State<AppState>) -> Result<Response, ApiError> {
    let run = app.console()?.runs().active();
    Ok(Json(CurrentRun {
        run: run.as_deref().map(RunView::active),
    })
    .into_response())
}

/// `GET /api/agent/runs/{id}`.
pub async fn get_run(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    if let Some(run) = console.runs().active().filter(|r| r.run_id == id) {
        return Ok(Json(RunView::active(&run)).into_response());
    }
    let store = console.store();
    let record = store
        .run(&id)
        .await?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, texts::unknown_run(&id)))?;
    let last = match console.runs().log(&id) {
        Some(log) => log.last_seq(),
        None => store.events(&id, 0).await?.last().map_or(0, |e| e.0),
    };
    let mut view = RunView::stored(&record, last);
    view.memory = store
        .run_notes(std::slice::from_ref(&id))
        .await?
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    view.distilling = console.memory().is_distilling(&id);
    Ok(Json(view).into_response())
}

/// `POST /api/agent/stop` body.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StopBody {
    #[serde(default)]
    run_id: Option<String>,
}

/// `POST /api/agent/stop`.
pub async fn stop(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<StopBody>,
) -> Result<Response, ApiError> {
    let run = app
        .console()?
        .runs()
        .active()
        .filter(|r| body.run_id.as_ref().is_none_or(|id| *id == r.run_id))
        .ok_or_else(|| ApiError(StatusCode::CONFLICT, texts::NO_RUN.to_owned()))?;
    run.stop();
    Ok(Json(json!({"run_id": run.run_id, "stopping": true})).into_response())
}

/// `POST /api/agent/confirm` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfirmBody {
    run_id: String,
    call_id: String,
    approve: bool,
}

/// `POST /api/agent/confirm`.
pub async fn confirm(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<ConfirmBody>,
) -> Result<Response, ApiError> {
    let run = app
        .console()?
        .runs()
        .active()
        .filter(|r| r.run_id == body.run_id)
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, texts::unknown_run(&body.run_id)))?;
    if run.approvals.answer(&body.call_id, body.approve) {
        Ok(
            Json(json!({"run_id": run.run_id, "call_id": body.call_id, "approve": body.approve}))
                .into_response(),
        )
    } else {
        Err(ApiError(
            StatusCode::NOT_FOUND,
            texts::no_question(&body.call_id),
        ))
    }
}

/// Ends runs a previous server process left running: each gets `error` + `done {failed}`, its
/// record is finished and its conversation gets the failure as the answer.
pub async fn recover_interrupted(console: &Console) -> Result<(), ConsoleError> {
    let store = console.store();
    for run in store.unfinished_runs().await? {
        let events = store.events(&run.id, 0).await?;
        let last = events.last().map_or(0, |e| e.0);
        // What the run got done before the restart stays with its conversation: the reasoning,
        // the steps (their images are still on disk) and the answer text streamed so far.
        let summary = Summary::of_stored(&events);
        let usage = summary.usage;
        let answer = match summary.partial.trim() {
            "" => texts::RUN_INTERRUPTED.to_owned(),
            partial => format!("{partial}\n\n*{}*", texts::RUN_INTERRUPTED),
        };
        let draft = (run.mode == RunMode::Designer)
            .then(|| DraftOutcome::Failed(texts::RUN_INTERRUPTED.to_owned()));
        let tail = [
            AgentEvent {
                seq: last + 1,
                kind: EventKind::Error {
                    message: texts::RUN_INTERRUPTED.to_owned(),
                },
            },
            AgentEvent {
                seq: last + 2,
                kind: EventKind::agent_done(
                    answer.clone(),
                    usage,
                    DoneStatus::Failed,
                    run.mode,
                    draft.as_ref(),
                ),
            },
        ];
        let rows: Vec<(u64, String)> = tail
            .iter()
            .map(|e| (e.seq, LoggedEvent::new(e).json.to_string()))
            .collect();
        store.append_events(&run.id, &rows).await?;
        store
            .finish_run(&run.id, DoneStatus::Failed, &answer, &usage, now_ms())
            .await?;
        let message = Message {
            role: "assistant".to_owned(),
            content: answer,
            created_at_ms: now_ms(),
            run_id: Some(run.id.clone()),
            status: Some(DoneStatus::Failed),
            usage: Some(usage),
            reasoning: Some(summary.reasoning).filter(|r| !r.is_empty()),
            steps: summary.steps,
        };
        if let Err(e) = store.append_message(&run.conversation_id, &message).await {
            tracing::warn!(run = %run.id, error = %e, "interrupted run's conversation is gone");
        }
        tracing::info!(run = %run.id, "ended a run the previous server process left unfinished");
    }
    Ok(())
}
