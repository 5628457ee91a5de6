//! Distilling a run's successful steps into named actions (seed 001 §5.2): at most 10 steps
//! in (an unusable answer asked again once, saying why; an empty list is the model finding
//! nothing reusable), at most 3 actions of at most 4 steps out, each tidied and checked in
//! library mode ([`super::check::check_candidate`]); merged into the action of the same name
//! (or alias), or saved as new.

use deft_agent::llm::LlmClient;
use deft_protocol::memory::{MemoryKind, MemoryNote, MemoryOutcome};
use deft_store::{NewAction, StoreError};
use tokio_util::sync::CancellationToken;

use super::check::{MAX_ALIASES, check_candidate};
use crate::distilled::{Outcomes, RunFacts, found_nothing, nothing};
use crate::model::{Answer, CallFailed, Question};
use crate::texts::UNNAMED_ACTIONS as UNNAMED;
use crate::trajectory::Trajectory;
use crate::{Memory, texts};
use deft_agent::answer::{Salvaged, salvage};

/// Steps of the run shown to the model.
pub const MAX_STEPS_IN: usize = 10;
/// Actions kept from one run.
pub const MAX_ACTIONS_OUT: usize = 3;

/// Distils the run's successful steps into actions; their cards.
pub(crate) async fn distil(
    memory: &Memory,
    llm: &LlmClient,
    facts: &RunFacts<'_>,
    trajectory: &Trajectory,
    cancel: &CancellationToken,
) -> Vec<MemoryNote> {
    let kind = MemoryKind::Action;
    let (steps, more) = trajectory.actions(MAX_STEPS_IN);
    if steps.is_empty() {
        return Vec::new();
    }
    let app = steps
        .iter()
        .find_map(|c| c.app.clone().or_else(|| c.selected.clone()));
    let lines: Vec<String> = steps.iter().map(|c| c.line()).collect();
    let config = memory.config();
    let request = texts::action_request(facts.task, &lines, more);
    let question = Question {
        system: texts::ACTION_SYSTEM,
        user: &request,
        shape: texts::ACTION_SHAPE,
    };
    let read = |answer: &Answer| {
        let salvaged = salvage(&answer.text).ok_or_else(|| texts::NOT_JSON.to_owned())?;
        let candidates = salvaged.objects("actions");
        if candidates.is_empty() && matches!(salvaged, Salvaged::Pieces(_)) {
            return Err(texts::cut_off(answer.capped, config.answer_cap));
        }
        Ok(candidates)
    };
    let candidates = match memory.ask_usable(llm, &question, cancel, read).await {
        Ok(candidates) => candidates,
        Err(CallFailed(why)) => return nothing(kind, UNNAMED, why, facts.run_id),
    };
    if candidates.is_empty() {
        return found_nothing(kind, None, facts.run_id);
    }
    let mut outcomes = Outcomes::default();
    for (i, candidate) in candidates.iter().enumerate() {
        let name = candidate
            .get("name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or(UNNAMED)
            .to_owned();
        if i >= MAX_ACTIONS_OUT {
            outcomes.dropped(&name, texts::too_many_actions(MAX_ACTIONS_OUT));
            continue;
        }
        match check_candidate(candidate) {
            Err(why) => outcomes.dropped(&name, why),
            Ok((mut new, notes)) => {
                new.app = app.clone();
                new.source_run = facts.run_id.map(str::to_owned);
                let reason = (!notes.is_empty()).then(|| notes.join("; "));
                save_or_merge(memory, new, reason, &mut outcomes).await;
            }
        }
    }
    outcomes.into_notes(kind, facts.run_id)
}

/// Merges into the action of the same name or alias (its aliases kept and joined, its steps
/// replaced), or saves a new one.
async fn save_or_merge(
    memory: &Memory,
    new: NewAction,
    reason: Option<String>,
    outcomes: &mut Outcomes,
) {
    let store = memory.store();
    let mut existing = memory.find_action(&new.name).await;
    for alias in &new.aliases {
        if !matches!(existing, Ok(None)) {
            break;
        }
        existing = memory.find_action(alias).await;
    }
    let done = match existing {
        Ok(Some(old)) => {
            let mut aliases = old.aliases.clone();
            for a in std::iter::once(&new.name).chain(&new.aliases) {
                let known = a.eq_ignore_ascii_case(&old.name)
                    || aliases.iter().any(|x| x.eq_ignore_ascii_case(a));
                if !known && aliases.len() < MAX_ALIASES {
                    aliases.push(a.clone());
                }
            }
            let merged = NewAction {
                name: old.name.clone(),
                aliases,
                description: if new.description.is_empty() {
                    old.description.clone()
                } else {
                    new.description.clone()
                },
                app: new.app.clone().or(old.app.clone()),
                ..new.clone()
            };
            store
                .update_action(&old.id, &merged)
                .await
                .map(|a| (MemoryOutcome::Merged, a))
        }
        Ok(None) => store
            .create_action(&new)
            .await
            .map(|a| (MemoryOutcome::Saved, a)),
        Err(e) => Err(e),
    };
    match done {
        Ok((outcome, a)) => outcomes.stored(outcome, &a.id, &a.name, reason),
        Err(StoreError::Conflict(_)) => outcomes.dropped(&new.name, texts::NAME_TAKEN.to_owned()),
        Err(e) => outcomes.dropped(&new.name, texts::store_failed(&e.to_string())),
    }
}
