//! Work for devices another server holds, asked. The asking server queues a fleet job (a chat
//! or designer run, a task run, a draft's try, an action's try, exec batches, a stop, an
//! answer to a question) for the device; the holder ([`super::holder`]) — woken by `NOTIFY`,
//! or by its own one-second look — claims it (`FOR UPDATE SKIP LOCKED`), does it as if it had
//! been asked itself, and records the answer, which wakes the asker. So the one-run-per-device
//! rule and every refusal ("a task holds this device") are the holder's, the same from any
//! server.

use std::collections::BTreeMap;
use std::time::Duration;

use deft_protocol::{CommandResult, ExecBatch, RunMode};
use deft_store::{Channel, FleetJob, FleetJobState, NewFleetJob, StoreError, TaskTrigger};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::action_tries::ActionTry;
use crate::agent_runs::start::{AgentOrder, StartError};
use crate::app::{App, now_ms};
use crate::step_images::{ImageOf, StepImage, known_mime};
use crate::task_runs::start::{DraftOrder, Refusal as TaskRefusal, Scope, TaskOrder};
use crate::texts;

/// How long the asker waits for the holder to take a job before withdrawing it.
const TAKE_WITHIN: Duration = Duration::from_secs(10);

/// What a fleet job asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum Ask {
    /// Start a chat or designer run.
    AgentRun {
        prompt: String,
        conversation: Option<String>,
        device: String,
        mode: RunMode,
        output_schema: Option<serde_json::Value>,
    },
    /// Start a run of a stored task.
    TaskRun {
        task_id: String,
        trigger: TaskTrigger,
        device: String,
        variables: BTreeMap<String, String>,
    },
    /// Try a draft (designer mode's "Try it", run to here, run this step).
    DraftRun {
        definition: Value,
        device: String,
        variables: BTreeMap<String, String>,
        until: Option<String>,
        only: Option<String>,
    },
    /// Try an action of the library.
    TryAction {
        action_id: String,
        device: String,
        variables: Map<String, Value>,
    },
    /// Run exec batches.
    Exec {
        device: String,
        batches: Vec<ExecBatch>,
        deadline_ms: u64,
    },
    /// Run one batch for a device relayed on the asking server (its MCP endpoint), holding the
    /// device for it unless `hold` is false (a listing of tools).
    Relay {
        device: String,
        batch: ExecBatch,
        deadline_ms: u64,
        hold: bool,
    },
    /// Send a screenshot of a device (a live view's frame).
    Capture { device: String },
    /// Send a step image of a run.
    StepImage {
        of: ImageOf,
        run_id: String,
        image_id: String,
    },
    /// Stop a run.
    StopRun { run_id: String },
    /// Stop a task run.
    StopTaskRun { run_id: String },
    /// Answer a run's question.
    Approve {
        run_id: String,
        call_id: String,
        approve: bool,
    },
}

impl Ask {
    /// Whether the answer is bulky (an image): its job is deleted once the answer is read.
    fn bulky(&self) -> bool {
        matches!(self, Ask::StepImage { .. } | Ask::Capture { .. })
    }

    fn kind(&self) -> &'static str {
        match self {
            Ask::AgentRun { .. } => "agent_run",
            Ask::TaskRun { .. } => "task_run",
            Ask::DraftRun { .. } => "draft_run",
            Ask::TryAction { .. } => "try_action",
            Ask::Exec { .. } => "exec",
            Ask::StepImage { .. } => "step_image",
            Ask::Capture { .. } => "capture",
            Ask::Relay { .. } => "relay",
            Ask::StopRun { .. } => "stop_run",
            Ask::StopTaskRun { .. } => "stop_task_run",
            Ask::Approve { .. } => "approve",
        }
    }
}

/// What the holder answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub(super) enum Answer {
    /// A run started.
    Started {
        run_id: String,
        conversation: String,
        device: String,
    },
    /// A task run (or a draft's try) started.
    TaskStarted { run_id: String },
    /// An action was tried.
    Tried { tried: ActionTry },
    /// Exec batches ran: their Results, a list per batch.
    Executed { results: Vec<Vec<CommandResult>> },
    /// A step image: its media type and its bytes in Base64.
    Image { mime: String, base64: String },
    /// Done (a stop or an approval).
    Done,
    /// Refused, with the status it maps to and the holder's text.
    Refused { refusal: Refusal, text: String },
}

/// The kinds of refusal, as the front ends map them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// The request cannot run as it is.
    Invalid,
    /// Something it names is not there.
    NotFound,
    /// The device or run slot is busy.
    Busy,
    /// The holder failed.
    Failed,
}

/// A run started on the server that holds its device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartedElsewhere {
    /// The run's id.
    pub run_id: String,
    /// Its conversation.
    pub conversation: String,
    /// Its device.
    pub device: String,
}

impl From<(Refusal, String)> for StartError {
    fn from((refusal, text): (Refusal, String)) -> StartError {
        match refusal {
            Refusal::Invalid => StartError::Invalid(text),
            Refusal::NotFound => StartError::NotFound(text),
            Refusal::Busy => StartError::Busy(text),
            Refusal::Failed => StartError::Store(StoreError::Invalid(text)),
        }
    }
}

impl App {
    /// The server (its id) that holds `device` now, when it is another server of the fleet.
    pub async fn holder_elsewhere(&self, device: &str) -> Result<Option<String>, StoreError> {
        if self.fleet().is_none() {
            return Ok(None);
        }
        Ok(self
            .store()
            .device_lease(device)
            .await?
            .filter(|l| l.expires_at_ms > now_ms() && l.server_id != self.server_id())
            .map(|l| l.server_id))
    }

    /// Starts a chat or designer run on the server that holds `device`, and answers as that
    /// server did: the run started, or its refusal (the same 400 / 404 / 409 texts).
    pub async fn start_agent_run_elsewhere(
        &self,
        device: &str,
        order: AgentOrder,
    ) -> Result<StartedElsewhere, StartError> {
        let ask = Ask::AgentRun {
            prompt: order.prompt,
            conversation: order.conversation,
            device: device.to_owned(),
            mode: order.mode,
            output_schema: order.output_schema,
        };
        match self.ask(device, &ask).await? {
            Answer::Started {
                run_id,
                conversation,
                device,
            } => Ok(StartedElsewhere {
                run_id,
                conversation,
                device,
            }),
            Answer::Refused { refusal, text } => Err((refusal, text).into()),
            _ => Err(no_answer()),
        }
    }

    /// Starts a run of a stored task on the server that holds `device`, and answers as that
    /// server did: the run (as stored), or its refusal.
    pub async fn start_task_run_elsewhere(
        &self,
        device: &str,
        order: TaskOrder,
    ) -> Result<deft_store::TaskRun, TaskRefusal> {
        let ask = Ask::TaskRun {
            task_id: order.task.id,
            trigger: order.new.trigger,
            device: device.to_owned(),
            variables: order.variables,
        };
        let answer = self.ask(device, &ask).await.map_err(task_refusal)?;
        self.task_run_started(answer).await
    }

    /// Tries a draft on the server that holds its device, and answers as that server did:
    /// the task run (as stored), or its refusal.
    pub(crate) async fn start_draft_run_elsewhere(
        &self,
        order: DraftOrder,
    ) -> Result<deft_store::TaskRun, TaskRefusal> {
        let definition = serde_json::from_slice(&order.definition)
            .map_err(|e| TaskRefusal::Refused(e.to_string()))?;
        let (until, only) = match order.scope {
            Scope::Whole => (None, None),
            Scope::Until(path) => (Some(path), None),
            Scope::Only(path) => (None, Some(path)),
        };
        let ask = Ask::DraftRun {
            definition,
            device: order.device.clone(),
            variables: order.variables,
            until,
            only,
        };
        let answer = self.ask(&order.device, &ask).await.map_err(task_refusal)?;
        self.task_run_started(answer).await
    }

    /// The task run an answer says started, as stored, or the refusal it carries.
    async fn task_run_started(&self, answer: Answer) -> Result<deft_store::TaskRun, TaskRefusal> {
        match answer {
            Answer::TaskStarted { run_id } => self
                .store()
                .task_run(&run_id)
                .await
                .map_err(TaskRefusal::Store),
            Answer::Refused { refusal, text } => Err(match refusal {
                Refusal::Busy => TaskRefusal::Busy(text),
                Refusal::NotFound => TaskRefusal::NoDevice(text),
                Refusal::Invalid => TaskRefusal::Refused(text),
                Refusal::Failed => TaskRefusal::Store(StoreError::Invalid(text)),
            }),
            _ => Err(TaskRefusal::Store(StoreError::Invalid(
                texts::HOLDER_ANSWERED_OTHERWISE.to_owned(),
            ))),
        }
    }

    /// Tries action `action_id` on the server that holds `device`, and answers as that server
    /// did: how it went (its step images stay on that server), or its refusal.
    pub(crate) async fn try_action_elsewhere(
        &self,
        device: &str,
        action_id: &str,
        variables: &Map<String, Value>,
    ) -> Result<ActionTry, StartError> {
        let ask = Ask::TryAction {
            action_id: action_id.to_owned(),
            device: device.to_owned(),
            variables: variables.clone(),
        };
        match self.ask(device, &ask).await? {
            Answer::Tried { tried } => Ok(tried),
            Answer::Refused { refusal, text } => Err((refusal, text).into()),
            _ => Err(no_answer()),
        }
    }

    /// Runs exec batches on the server that holds `device`, and answers as that server did:
    /// their Results, or its refusal. A caller that goes away does not stop them there.
    pub(crate) async fn exec_elsewhere(
        &self,
        device: &str,
        batches: Vec<ExecBatch>,
        deadline: Duration,
    ) -> Result<Vec<Vec<CommandResult>>, StartError> {
        let ask = Ask::Exec {
            device: device.to_owned(),
            batches,
            deadline_ms: millis(deadline),
        };
        match self.ask(device, &ask).await? {
            Answer::Executed { results } => Ok(results),
            Answer::Refused { refusal, text } => Err((refusal, text).into()),
            _ => Err(no_answer()),
        }
    }

    /// Runs `batch` on `device` on the server that holds it (holding the device there for it
    /// when `hold`): the batch's Results, or the holder's refusal as the text.
    pub(crate) async fn relay_elsewhere(
        &self,
        device: &str,
        batch: ExecBatch,
        deadline: Duration,
        hold: bool,
    ) -> Result<Vec<CommandResult>, String> {
        let ask = Ask::Relay {
            device: device.to_owned(),
            batch,
            deadline_ms: millis(deadline),
            hold,
        };
        match self.ask(device, &ask).await {
            Ok(Answer::Executed { mut results }) => Ok(results.pop().unwrap_or_default()),
            Ok(Answer::Refused { text, .. }) => Err(text),
            Ok(_) => Err(texts::HOLDER_ANSWERED_OTHERWISE.to_owned()),
            Err(e) => Err(start_error_text(e)),
        }
    }

    /// A screenshot of `device` (JPEG) from the server that holds it; its refusal's text
    /// otherwise.
    pub(crate) async fn capture_elsewhere(&self, device: &str) -> Result<Vec<u8>, String> {
        let ask = Ask::Capture {
            device: device.to_owned(),
        };
        match self.ask(device, &ask).await {
            Ok(Answer::Image { base64, .. }) => decode(&base64),
            Ok(Answer::Refused { text, .. }) => Err(text),
            Ok(_) => Err(texts::HOLDER_ANSWERED_OTHERWISE.to_owned()),
            Err(e) => Err(start_error_text(e)),
        }
    }

    /// Step image `image_id` of `of` run `run_id` from the server that holds `device` (the
    /// run's); `None` when that server has none, or does not answer.
    pub(crate) async fn step_image_elsewhere(
        &self,
        device: &str,
        of: ImageOf,
        run_id: &str,
        image_id: &str,
    ) -> Result<Option<StepImage>, StoreError> {
        let ask = Ask::StepImage {
            of,
            run_id: run_id.to_owned(),
            image_id: image_id.to_owned(),
        };
        match self.ask(device, &ask).await {
            Ok(Answer::Image { mime, base64 }) => Ok(known_mime(&mime).and_then(|mime| {
                let bytes = decode(&base64).ok()?;
                Some(StepImage { mime, bytes })
            })),
            Ok(_) => Ok(None),
            Err(StartError::Store(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }

    /// Stops run `run_id` on the server that holds its device; `Ok(false)` when the run is not
    /// running on another server of the fleet.
    pub async fn stop_run_elsewhere(&self, run_id: &str) -> Result<bool, StartError> {
        let Some(device) = self.device_elsewhere(run_id).await? else {
            return Ok(false);
        };
        let ask = Ask::StopRun {
            run_id: run_id.to_owned(),
        };
        match self.ask(&device, &ask).await? {
            Answer::Refused { refusal, text } => Err((refusal, text).into()),
            _ => Ok(true),
        }
    }

    /// Stops task run `run_id` on the server that holds its device; `Ok(false)` when it is
    /// not running on another server of the fleet.
    pub async fn stop_task_run_elsewhere(&self, run_id: &str) -> Result<bool, StartError> {
        if self.fleet().is_none() {
            return Ok(false);
        }
        let run = match self.store().task_run(run_id).await {
            Ok(run) => run,
            Err(StoreError::NotFound(_)) => return Ok(false),
            Err(e) => return Err(e.into()),
        };
        let elsewhere = run.status == deft_store::TaskRunStatus::Running
            && run.owner.as_deref().is_some_and(|o| o != self.server_id());
        if !elsewhere {
            return Ok(false);
        }
        let ask = Ask::StopTaskRun {
            run_id: run_id.to_owned(),
        };
        match self.ask(&run.device, &ask).await? {
            Answer::Refused { refusal, text } => Err((refusal, text).into()),
            _ => Ok(true),
        }
    }

    /// Answers run `run_id`'s question about `call_id` on the server that holds its device;
    /// `Ok(false)` when the run is not running on another server of the fleet.
    pub async fn approve_elsewhere(
        &self,
        run_id: &str,
        call_id: &str,
        approve: bool,
    ) -> Result<bool, StartError> {
        let Some(device) = self.device_elsewhere(run_id).await? else {
            return Ok(false);
        };
        let ask = Ask::Approve {
            run_id: run_id.to_owned(),
            call_id: call_id.to_owned(),
            approve,
        };
        match self.ask(&device, &ask).await? {
            Answer::Refused { refusal, text } => Err((refusal, text).into()),
            _ => Ok(true),
        }
    }

    /// The device of running run `run_id` when another server of the fleet runs it.
    async fn device_elsewhere(&self, run_id: &str) -> Result<Option<String>, StoreError> {
        if self.fleet().is_none() {
            return Ok(None);
        }
        let Some(run) = self.store().run(run_id).await? else {
            return Ok(None);
        };
        let elsewhere = run.finished_at_ms.is_none()
            && run.owner.as_deref().is_some_and(|o| o != self.server_id());
        Ok(elsewhere.then_some(run.device))
    }

    /// Queues `ask` for `device`'s holder and waits for its answer. Not taken within
    /// [`TAKE_WITHIN`]: withdrawn, and a busy refusal says so.
    async fn ask(&self, device: &str, ask: &Ask) -> Result<Answer, StartError> {
        let fleet = self
            .fleet()
            .ok_or_else(|| StartError::Invalid("this server is not in a fleet".to_owned()))?;
        let mut ended = fleet.signals();
        let id = uuid::Uuid::new_v4().to_string();
        let payload = serde_json::to_string(ask).map_err(|e| StoreError::Invalid(e.to_string()))?;
        self.store()
            .enqueue_fleet_job(&NewFleetJob {
                id: id.clone(),
                device_id: device.to_owned(),
                kind: ask.kind().to_owned(),
                payload,
                origin_server: self.server_id().to_owned(),
                created_at_ms: now_ms(),
            })
            .await?;
        let mut deadline = tokio::time::Instant::now() + TAKE_WITHIN;
        loop {
            let job = self.store().fleet_job(&id).await?;
            match job.state {
                FleetJobState::Queued if tokio::time::Instant::now() >= deadline => {
                    let why = texts::holder_silent(device, TAKE_WITHIN.as_secs());
                    if self.store().cancel_fleet_job(&id, &why, now_ms()).await? {
                        return Ok(Answer::Refused {
                            refusal: Refusal::Busy,
                            text: why,
                        });
                    }
                    // Claimed meanwhile: its answer comes in a moment.
                    deadline = tokio::time::Instant::now() + TAKE_WITHIN;
                }
                FleetJobState::Queued | FleetJobState::Claimed => {}
                _ => {
                    if ask.bulky() {
                        // Read once: a frame or an image need not wait for the pruning.
                        self.store().forget_fleet_job(&id).await?;
                    }
                    return Ok(answer_of(&job));
                }
            }
            // Woken by the job's end, or a look every 250 ms (a dropped listener loses nothing).
            let woken = async {
                loop {
                    match ended.recv().await {
                        Ok((Channel::JobEnded, job)) if job == id => return,
                        Ok(_) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                            std::future::pending::<()>().await
                        }
                    }
                }
            };
            let _ = tokio::time::timeout(Duration::from_millis(250), woken).await;
        }
    }
}

/// A task run's refusal for an asking that failed.
fn task_refusal(e: StartError) -> TaskRefusal {
    match e {
        StartError::Store(e) => TaskRefusal::Store(e),
        StartError::Busy(t) => TaskRefusal::Busy(t),
        StartError::Invalid(t) | StartError::NotFound(t) => TaskRefusal::Refused(t),
        StartError::Settings(e) => TaskRefusal::Refused(e.to_string()),
    }
}

/// The holder answered something else than what was asked.
fn no_answer() -> StartError {
    StartError::Store(StoreError::Invalid(
        texts::HOLDER_ANSWERED_OTHERWISE.to_owned(),
    ))
}

/// `d` in whole milliseconds, as a job carries a deadline.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What an asking that failed says.
fn start_error_text(e: StartError) -> String {
    match e {
        StartError::Invalid(t) | StartError::NotFound(t) | StartError::Busy(t) => t,
        StartError::Store(e) => e.to_string(),
        StartError::Settings(e) => e.to_string(),
    }
}

/// Bytes a holder sent in Base64.
fn decode(base64: &str) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(base64)
        .map_err(|e| texts::unreadable_image(&e.to_string()))
}

/// The answer an ended job records.
fn answer_of(job: &FleetJob) -> Answer {
    let outcome = job.outcome.as_deref().unwrap_or_default();
    match serde_json::from_str::<Answer>(outcome) {
        Ok(answer) => answer,
        // Withdrawn or interrupted: the outcome is the text.
        Err(_) => Answer::Refused {
            refusal: if job.state == FleetJobState::Interrupted {
                Refusal::Failed
            } else {
                Refusal::Busy
            },
            text: outcome.to_owned(),
        },
    }
}
