//! The holder's side of fleet jobs: the jobs for the devices this server holds are claimed
//! (`FOR UPDATE SKIP LOCKED`), done as if this server had been asked itself, and answered
//! ([`super::jobs`] is the asker's side).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use deft_protocol::ExecBatch;
use deft_store::{Channel, FleetJob, FleetJobState, TaskTrigger};
use deft_tools::Devices;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::jobs::{Answer, Ask, Refusal};
use crate::agent_runs::start::{AgentOrder, StartError};
use crate::app::{App, now_ms};
use crate::step_images::ImageOf;
use crate::task_runs::start::{DraftOrder, Refusal as TaskRefusal, Scope, TaskOrder};
use crate::texts;

/// Jobs a holder claims at once.
const CLAIM_BATCH: u32 = 32;

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
                    Ok((Channel::JobQueued, device)) if fleet.holds(&device) => return,
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
        Ask::DraftRun {
            definition,
            device,
            variables,
            until,
            only,
        } => {
            let order = DraftOrder {
                definition: serde_json::to_vec(&definition).unwrap_or_default(),
                device,
                variables,
                scope: Scope::of(until, only),
            };
            task_run_answer(app.start_draft_run(devices.as_ref(), order).await)
        }
        Ask::TryAction {
            action_id,
            device,
            variables,
        } => try_action(app, devices, &action_id, device, &variables).await,
        Ask::Exec {
            device,
            batches,
            deadline_ms,
        } => {
            let deadline = Duration::from_millis(deadline_ms);
            let cancel = CancellationToken::new();
            match app
                .exec_batches(devices.as_ref(), &device, batches, deadline, &cancel)
                .await
            {
                Ok(results) => Answer::Executed { results },
                Err(e) => refused(e),
            }
        }
        Ask::Relay {
            device,
            batch,
            deadline_ms,
            hold,
        } => relay(app, &devices, &device, batch, deadline_ms, hold).await,
        other => answer_about_runs(app, devices, other).await,
    }
}

/// The answer to a job that starts nothing: a step image, a screenshot, a stop, an approval.
async fn answer_about_runs(app: &App, devices: Arc<dyn Devices>, ask: Ask) -> Answer {
    match ask {
        Ask::StepImage {
            of,
            run_id,
            image_id,
        } => step_image(app, of, &run_id, &image_id).await,
        Ask::Capture { device } => capture(&devices, &device).await,
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
        // Asks that start something are answered by `answer`.
        _ => Answer::Refused {
            refusal: Refusal::Invalid,
            text: texts::HOLDER_ANSWERED_OTHERWISE.to_owned(),
        },
    }
}

/// Runs one relayed batch on `device` — through [`App::exec_batches`] (held, busy refused) when
/// `hold`, else on the device as it is (a listing of tools).
async fn relay(
    app: &App,
    devices: &Arc<dyn Devices>,
    device: &str,
    batch: ExecBatch,
    deadline_ms: u64,
    hold: bool,
) -> Answer {
    let deadline = Duration::from_millis(deadline_ms);
    let cancel = CancellationToken::new();
    if hold {
        return match app
            .exec_batches(devices.as_ref(), device, vec![batch], deadline, &cancel)
            .await
        {
            Ok(results) => Answer::Executed { results },
            Err(e) => refused(e),
        };
    }
    match devices.get(device) {
        Some(found) => Answer::Executed {
            results: found.run_batches(vec![batch], deadline, &cancel).await,
        },
        None => {
            let known: Vec<String> = devices.list().into_iter().map(|d| d.id).collect();
            Answer::Refused {
                refusal: Refusal::NotFound,
                text: texts::device_not_connected(device, &known),
            }
        }
    }
}

/// A screenshot of `device` as a JPEG, in Base64 (it does not hold the device: a run may be
/// acting on it, as with a live view here).
async fn capture(devices: &Arc<dyn Devices>, device: &str) -> Answer {
    use base64::Engine as _;
    let Some(found) = devices.get(device) else {
        let known: Vec<String> = devices.list().into_iter().map(|d| d.id).collect();
        return Answer::Refused {
            refusal: Refusal::NotFound,
            text: texts::device_not_connected(device, &known),
        };
    };
    match crate::screen::capture(&found).await {
        Ok(jpeg) => Answer::Image {
            mime: "image/jpeg".to_owned(),
            base64: base64::engine::general_purpose::STANDARD.encode(jpeg),
        },
        Err(text) => Answer::Refused {
            refusal: Refusal::Failed,
            text,
        },
    }
}

/// Step image `image_id` of `of` run `run_id` as this server keeps it, in Base64.
async fn step_image(app: &App, of: ImageOf, run_id: &str, image_id: &str) -> Answer {
    use base64::Engine as _;
    match app.local_step_image(of, run_id, image_id).await {
        Some(image) => Answer::Image {
            mime: image.mime.to_owned(),
            base64: base64::engine::general_purpose::STANDARD.encode(image.bytes),
        },
        None => Answer::Refused {
            refusal: Refusal::NotFound,
            text: texts::no_step_image(run_id, image_id),
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
    let order = TaskOrder::asked(task, trigger, Some(device), variables);
    task_run_answer(app.start_task_run(devices.as_ref(), order).await)
}

/// The answer for a task run (or a draft's try) started here, or refused.
fn task_run_answer(started: Result<deft_store::TaskRun, TaskRefusal>) -> Answer {
    match started {
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

/// Tries action `action_id` (of the shared store) here, as `POST /api/memory/actions/{id}/try`
/// would.
async fn try_action(
    app: &App,
    devices: Arc<dyn Devices>,
    action_id: &str,
    device: String,
    variables: &Map<String, Value>,
) -> Answer {
    let action = match app.store().action(action_id).await {
        Ok(action) => action,
        Err(e) => {
            return Answer::Refused {
                refusal: Refusal::NotFound,
                text: e.to_string(),
            };
        }
    };
    match app
        .try_action(devices.as_ref(), &action, Some(device), variables)
        .await
    {
        Ok(tried) => Answer::Tried { tried },
        Err(e) => refused(e),
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
