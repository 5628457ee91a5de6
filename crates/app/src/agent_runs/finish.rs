//! The end of a chat or designer run: its `done` and end stored (and a designer run's draft
//! kept), the slot freed, then `done` shown; and the runs a previous server process left
//! running, ended as failed with what they got done kept.

use std::sync::Arc;

use deft_agent::RunOutcome;
use deft_protocol::{AgentEvent, DoneStatus, DraftOutcome, EventKind, RunMode};
use deft_store::{Message, StoreError};

use super::summary::Summary;
use super::{ActiveRun, drafts};
use crate::app::{App, now_ms};
use crate::event_writer::store_until_done;
use crate::run_log::LoggedEvent;
use crate::texts;
use crate::webhooks::events::{self, AgentRunEnd};
use deft_protocol::webhook::WebhookEvent;

/// Stores the end of a run (and a designer run's draft), frees the slot, then lets watchers
/// see `done`.
pub(super) async fn finish(
    app: &App,
    run: &Arc<ActiveRun>,
    summary: Summary,
    outcome: &RunOutcome,
) {
    let store = app.store();
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
        )
        .with_output(outcome.output.clone()),
    });
    let done = LoggedEvent::new(&done);
    if !store_until_done(store, &run.event_store(), std::slice::from_ref(&done)).await {
        // Its device moved to another server, which ended it: nothing more is written or
        // shown here (the store's log, which watchers follow, has the end).
        app.agent_runs().release(&run.run_id);
        return;
    }
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
    let finished = match &run.fence {
        Some(fence) => {
            store
                .fenced(fence.clone())
                .finish_run(&run.run_id, status, &answer, &usage, now_ms())
                .await
        }
        None => {
            store
                .finish_run(&run.run_id, status, &answer, &usage, now_ms())
                .await
        }
    };
    if let Err(e) = finished {
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
    app.agent_runs().release(&run.run_id);
    // Its device was freed when the agent returned: fires that found it busy try again.
    app.task_runs().device_freed(&run.device);
    run.log.push(done);
    // After `done`: a webhook is a store write here, sent by the webhooks' own worker.
    let end = AgentRunEnd {
        run_id: &run.run_id,
        conversation_id: &run.conversation,
        device: &run.device,
        mode: run.mode,
        prompt: &run.prompt,
        status,
        answer: &message.content,
        started_at_ms: run.started_at_ms,
    };
    let data = events::run_ended(&end);
    app.webhooks().emit(WebhookEvent::RunEnded, data).await;
}

/// The answer a run's record and message keep: the final answer, or for a designer run that
/// ended without a draft, why.
fn kept_answer(outcome: &RunOutcome) -> String {
    match &outcome.draft {
        Some(DraftOutcome::Failed(why)) => texts::no_task_draft(why),
        _ => outcome.answer.clone(),
    }
}

/// Ends runs a previous process of this server left running (and runs recorded without a
/// server): each gets `error` + `done {failed}`, its record is finished and its conversation
/// gets the failure as the answer. Another server's runs are left to it, or to
/// [`end_runs_of`] when it goes silent.
pub async fn recover_interrupted(app: &App) -> Result<(), StoreError> {
    let me = app.server_id();
    for run in app.store().unfinished_runs().await? {
        if run.owner.as_deref().is_none_or(|owner| owner == me) {
            end_abandoned(app, &run).await?;
        }
    }
    Ok(())
}

/// Ends the running runs of `servers` (silent or stopped servers of the fleet), each exactly
/// once however many servers sweep at once; how many this call ended.
pub async fn end_runs_of(
    app: &App,
    servers: &std::collections::BTreeSet<String>,
) -> Result<usize, StoreError> {
    let mut ended = 0;
    for run in app.store().unfinished_runs().await? {
        if run.owner.as_ref().is_some_and(|o| servers.contains(o))
            && end_abandoned(app, &run).await?
        {
            ended += 1;
        }
    }
    Ok(ended)
}

/// Takes `run` over from its owner and ends it as interrupted; `false` when another server
/// took it over first (that one ends it).
async fn end_abandoned(app: &App, run: &deft_store::RunRecord) -> Result<bool, StoreError> {
    let store = app.store();
    if !store
        .take_over_run(&run.id, run.owner.as_deref(), app.server_id())
        .await?
    {
        return Ok(false);
    }
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
    let end = AgentRunEnd {
        run_id: &run.id,
        conversation_id: &run.conversation_id,
        device: &run.device,
        mode: run.mode,
        prompt: &run.prompt,
        status: DoneStatus::Failed,
        answer: &answer,
        started_at_ms: run.started_at_ms,
    };
    let data = events::run_ended(&end);
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
    app.webhooks().emit(WebhookEvent::RunEnded, data).await;
    tracing::info!(run = %run.id, owner = ?run.owner, "ended a run its server left unfinished");
    Ok(true)
}
