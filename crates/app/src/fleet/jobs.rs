//! Runs for devices another server holds. The asking server queues a fleet job (`agent_run`,
//! `stop_run`, `approve`) for the device; the holder — woken by `NOTIFY`, or by its own
//! one-second look — claims it (`FOR UPDATE SKIP LOCKED`), does it as if it had been asked
//! itself, and records the answer, which wakes the asker. So the one-run-per-device rule and
//! every refusal ("a task holds this device") are the holder's, the same from any server.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use deft_protocol::RunMode;
use deft_store::{
    Channel, FleetJob, FleetJobState, NewFleetJob, NewTaskRun, StoreError, TaskTrigger,
};
use deft_tools::Devices;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::agent_runs::start::{AgentOrder, StartError};
use crate::app::{App, now_ms};
use crate::task_runs::start::{Refusal as TaskRefusal, TaskOrder, json_variables};
use crate::texts;

/// How long the asker waits for the holder to take a job before withdrawing it.
const TAKE_WITHIN: Duration = Duration::from_secs(10);
/// Jobs a holder claims at once.
const CLAIM_BATCH: u32 = 32;

/// What a fleet job asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Ask {
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
    fn kind(&self) -> &'static str {
        match self {
            Ask::AgentRun { .. } => "agent_run",
            Ask::TaskRun { .. } => "task_run",
            Ask::StopRun { .. } => "stop_run",
            Ask::StopTaskRun { .. } => "stop_task_run",
            Ask::Approve { .. } => "approve",
        }
    }
}

/// What the holder answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
enum Answer {
    /// A run started.
    Started {
        run_id: String,
        conversation: String,
        device: String,
    },
    /// A task run started.
    TaskStarted { run_id: String },
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
            _ => Err(StartError::Store(StoreError::Invalid(
                texts::HOLDER_ANSWERED_NO_RUN.to_owned(),
            ))),
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
        let answer = self.ask(device, &ask).await.map_err(|e| match e {
            StartError::Store(e) => TaskRefusal::Store(e),
            StartError::Busy(t) => TaskRefusal::Busy(t),
            StartError::Invalid(t) | StartError::NotFound(t) => TaskRefusal::Refused(t),
            StartError::Settings(e) => TaskRefusal::Refused(e.to_string()),
        })?;
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
                texts::HOLDER_ANSWERED_NO_RUN.to_owned(),
            ))),
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
                _ => return Ok(answer_of(&job)),
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

/// Until `stop`: claims the jobs for the devices this server holds and does them on
/// `devices`, woken by each job queued for one of them, and looking every second besides.
pub async fn serve_jobs(app: App, devices: Arc<dyn Devices>, stop: CancellationToken) {
    let Some(fleet) = app.fleet() else { return };
    let mut queued = fleet.signals();
    loop {
        match app
            .store()
            .claim_fleet_jobs(app.server_id(), now_ms(), CLAIM_BATCH)
            .await
        {
            Ok(jobs) => {
                let full = jobs.len() == CLAIM_BATCH as usize;
                for job in jobs {
                    tokio::spawn(do_job(app.clone(), devices.clone(), job));
                }
                if full {
                    continue;
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot claim fleet jobs"),
        }
        let woken = async {
            loop {
                match queued.recv().await {
                    Ok((Channel::JobQueued, device)) if fleet.fence(&device).is_some() => return,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                        std::future::pending::<()>().await
                    }
                }
            }
        };
        tokio::select! {
            () = stop.cancelled() => return,
            () = woken => {}
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

/// Does one claimed job and records its answer.
async fn do_job(app: App, devices: Arc<dyn Devices>, job: FleetJob) {
    let answer = match serde_json::from_str::<Ask>(&job.payload) {
        Err(e) => Answer::Refused {
            refusal: Refusal::Invalid,
            text: texts::unreadable_fleet_job(&job.kind, &e.to_string()),
        },
        Ok(ask) => answer(&app, devices, ask).await,
    };
    let state = match answer {
        Answer::Refused { .. } => FleetJobState::Failed,
        _ => FleetJobState::Done,
    };
    let outcome = serde_json::to_string(&answer).unwrap_or_default();
    if let Err(e) = app
        .store()
        .finish_fleet_job(&job.id, app.server_id(), state, &outcome, now_ms())
        .await
    {
        tracing::warn!(job = %job.id, error = %e, "cannot record a fleet job's answer");
    }
}

async fn answer(app: &App, devices: Arc<dyn Devices>, ask: Ask) -> Answer {
    match ask {
        Ask::AgentRun {
            prompt,
            conversation,
            device,
            mode,
            output_schema,
        } => {
            let order = AgentOrder {
                prompt,
                conversation,
                device: Some(device),
                mode,
                output_schema,
            };
            match app.start_agent_run(devices, order).await {
                Ok(run) => Answer::Started {
                    run_id: run.run_id.clone(),
                    conversation: run.conversation.clone(),
                    device: run.device.clone(),
                },
                Err(e) => refused(e),
            }
        }
        Ask::TaskRun {
            task_id,
            trigger,
            device,
            variables,
        } => task_run(app, devices, task_id, trigger, device, variables).await,
        Ask::StopRun { run_id } => match app.stop_run(Some(&run_id)) {
            Some(_) => Answer::Done,
            None => Answer::Refused {
                refusal: Refusal::NotFound,
                text: texts::NO_RUN_HERE.to_owned(),
            },
        },
        Ask::StopTaskRun { run_id } => match app.task_runs().active(&run_id) {
            Some(run) => {
                run.stop();
                Answer::Done
            }
            None => Answer::Refused {
                refusal: Refusal::NotFound,
                text: texts::NO_RUN_HERE.to_owned(),
            },
        },
        Ask::Approve {
            run_id,
            call_id,
            approve,
        } => match app.approve(&run_id, &call_id, approve) {
            Ok(()) => Answer::Done,
            Err(e) => Answer::Refused {
                refusal: Refusal::NotFound,
                text: e.text(),
            },
        },
    }
}

/// Starts a run of task `task_id` here, as `POST /api/tasks/{id}/run` would.
async fn task_run(
    app: &App,
    devices: Arc<dyn Devices>,
    task_id: String,
    trigger: TaskTrigger,
    device: String,
    variables: BTreeMap<String, String>,
) -> Answer {
    let task = match app.store().task(&task_id).await {
        Ok(task) => task,
        Err(e) => {
            return Answer::Refused {
                refusal: Refusal::NotFound,
                text: e.to_string(),
            };
        }
    };
    let new = NewTaskRun {
        task_id,
        trigger,
        schedule_id: None,
        fire_at_ms: None,
        device: Some(device),
        variables: json_variables(&variables),
        started_at_ms: now_ms(),
        owner: None,
        task_version: None,
    };
    let order = TaskOrder {
        task,
        new,
        variables,
    };
    match app.start_task_run(devices.as_ref(), order).await {
        Ok(run) => Answer::TaskStarted { run_id: run.id },
        Err(refusal) => {
            let kind = match &refusal {
                TaskRefusal::Busy(_) => Refusal::Busy,
                TaskRefusal::NoDevice(_) => Refusal::NotFound,
                TaskRefusal::Store(_) => Refusal::Failed,
                _ => Refusal::Invalid,
            };
            Answer::Refused {
                refusal: kind,
                text: refusal.text(),
            }
        }
    }
}

fn refused(e: StartError) -> Answer {
    let (refusal, text) = match e {
        StartError::Invalid(t) => (Refusal::Invalid, t),
        StartError::NotFound(t) => (Refusal::NotFound, t),
        StartError::Busy(t) => (Refusal::Busy, t),
        StartError::Store(e) => (Refusal::Failed, e.to_string()),
        StartError::Settings(e) => (Refusal::Invalid, e.to_string()),
    };
    Answer::Refused { refusal, text }
}
