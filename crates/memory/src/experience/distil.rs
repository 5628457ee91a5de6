//! Distilling a run into an experience (seed 001 §4.1): the task and its calls to the model in
//! plain words, reasoning off; the answer read truncation tolerant (an unusable one asked again
//! once, saying why); the recipe through the quality gate; merged into a near-duplicate (the
//! same kind of task, or the same recipe — see [`super::duplicate`]) or saved as new.

use deft_agent::llm::LlmClient;
use deft_protocol::memory::{MemoryKind, MemoryNote, MemoryOutcome};
use deft_store::NewExperience;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{duplicate, gate};
use crate::distilled::{Outcomes, RunFacts, found_nothing, nothing};
use crate::model::{Answer, CallFailed, Question};
use crate::trajectory::{Trajectory, cut};
use crate::{Memory, texts};
use deft_agent::answer::salvage;

/// Calls shown to the model.
const SHOWN_CALLS: usize = 40;
/// Longest title, in characters.
const MAX_TITLE_CHARS: usize = 80;
/// Characters of the final answer shown.
const ANSWER_CHARS: usize = 400;

/// What the model's answer held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// A title (maybe empty) and a recipe.
    Recipe {
        /// The title.
        title: String,
        /// The recipe.
        recipe: String,
    },
    /// The model found nothing reusable (its reason, if it gave one).
    Skip(Option<String>),
    /// Nothing usable (why).
    Garbage(String),
}

/// Reads a distilling answer (see [`deft_agent::answer::salvage`]).
pub fn parse(answer: &Answer, cap: usize) -> Parsed {
    let Some(salvaged) = salvage(&answer.text) else {
        return Parsed::Garbage(texts::NOT_JSON.to_owned());
    };
    let objects = salvaged.objects("experiences");
    let Some(obj) = objects
        .iter()
        .find(|o| o.get("recipe").is_some() || o.get("skip").is_some())
    else {
        return Parsed::Garbage(if objects.is_empty() {
            texts::cut_off(answer.capped, cap)
        } else {
            texts::NO_RECIPE.to_owned()
        });
    };
    match (obj.get("recipe"), obj.get("skip")) {
        (Some(Value::String(recipe)), _) => Parsed::Recipe {
            title: obj
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            recipe: recipe.clone(),
        },
        (Some(Value::Array(lines)), _) => Parsed::Recipe {
            title: obj
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            recipe: lines
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
        },
        (None, Some(skip)) => Parsed::Skip(
            skip.as_str()
                .map(str::trim)
                .filter(|why| !why.is_empty())
                .map(str::to_owned),
        ),
        _ => Parsed::Garbage(texts::NO_RECIPE.to_owned()),
    }
}

/// Distils the run into at most one experience; its cards.
pub(crate) async fn distil(
    memory: &Memory,
    llm: &LlmClient,
    facts: &RunFacts<'_>,
    trajectory: &Trajectory,
    cancel: &CancellationToken,
) -> Vec<MemoryNote> {
    let kind = MemoryKind::Experience;
    let config = memory.config();
    let calls = trajectory.calls();
    let shown: Vec<String> = calls.iter().take(SHOWN_CALLS).map(|c| c.line()).collect();
    let more = calls.len().saturating_sub(SHOWN_CALLS) + trajectory.dropped;
    let request =
        texts::experience_request(facts.task, &shown, more, &cut(facts.answer, ANSWER_CHARS));
    let task_title = cut(facts.task, 60);
    let question = Question {
        system: texts::EXPERIENCE_SYSTEM,
        user: &request,
        shape: texts::EXPERIENCE_SHAPE,
    };
    let read = |answer: &Answer| match parse(answer, config.answer_cap) {
        Parsed::Garbage(why) => Err(why),
        usable => Ok(usable),
    };
    let (title, recipe) = match memory.ask_usable(llm, &question, cancel, read).await {
        Ok(Parsed::Recipe { title, recipe }) => (title, recipe),
        Ok(Parsed::Skip(why)) => return found_nothing(kind, why.as_deref(), facts.run_id),
        Ok(Parsed::Garbage(why)) | Err(CallFailed(why)) => {
            return nothing(kind, &task_title, why, facts.run_id);
        }
    };
    let title = clean_title(&title, facts.task);
    let mut outcomes = Outcomes::default();
    match gate::check(&recipe, facts.task) {
        Err(why) => outcomes.dropped(&title, why),
        Ok(passed) => store(memory, facts, &title, passed, &mut outcomes).await,
    }
    outcomes.into_notes(kind, facts.run_id)
}

/// Merges the recipe into its near-duplicate (see [`duplicate`]) — a use of it, counted as a
/// hit unless the run already counted one when it recalled it — or saves a new experience.
async fn store(
    memory: &Memory,
    facts: &RunFacts<'_>,
    title: &str,
    passed: gate::Passed,
    outcomes: &mut Outcomes,
) {
    let store = memory.store();
    let new = NewExperience {
        task: facts.task.to_owned(),
        title: title.to_owned(),
        recipe: passed.recipe,
        source_run: facts.run_id.map(str::to_owned),
    };
    let similar = duplicate::near_duplicate(memory, facts.task, title, &new.recipe).await;
    let merged = match &similar {
        Some(hit) => match store.experience(&hit.id).await {
            Ok(existing) => {
                let revised = NewExperience {
                    task: existing.task,
                    title: existing.title,
                    ..new.clone()
                };
                Some(store.update_experience(&hit.id, &revised, true).await)
            }
            Err(_) => None,
        },
        None => None,
    };
    match merged {
        Some(Ok(e)) => {
            if !facts.recalled.contains(&e.id)
                && let Err(err) = store
                    .record_experience_hits(std::slice::from_ref(&e.id), crate::now_ms())
                    .await
            {
                tracing::warn!(error = %err, "cannot count the merged experience's use");
            }
            outcomes.stored(MemoryOutcome::Merged, &e.id, &e.title, passed.trimmed);
        }
        Some(Err(e)) => outcomes.dropped(title, texts::store_failed(&e.to_string())),
        None => match store.create_experience(&new).await {
            Ok(e) => outcomes.stored(MemoryOutcome::Saved, &e.id, &e.title, passed.trimmed),
            Err(e) => outcomes.dropped(title, texts::store_failed(&e.to_string())),
        },
    }
}

/// The title on one line, at most [`MAX_TITLE_CHARS`]; the task's start when there is none.
fn clean_title(title: &str, task: &str) -> String {
    let one_line = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        cut(
            &task.split_whitespace().collect::<Vec<_>>().join(" "),
            MAX_TITLE_CHARS,
        )
    } else {
        cut(&one_line, MAX_TITLE_CHARS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> Answer {
        Answer {
            text: text.into(),
            capped: false,
        }
    }

    #[test]
    fn answers_are_read_whole_cut_or_not_at_all() {
        assert_eq!(
            parse(
                &answer("```json\n{\"title\": \"Sum\", \"recipe\": \"Open it\"}\n```"),
                100
            ),
            Parsed::Recipe {
                title: "Sum".into(),
                recipe: "Open it".into()
            }
        );
        assert_eq!(
            parse(
                &answer(r#"{"title": "Sum", "recipe": ["1. Open", "2. Click"]}"#),
                100
            ),
            Parsed::Recipe {
                title: "Sum".into(),
                recipe: "1. Open\n2. Click".into()
            }
        );
        assert_eq!(
            parse(&answer(r#"{"skip": "only looked"}"#), 100),
            Parsed::Skip(Some("only looked".into()))
        );
        assert_eq!(parse(&answer(r#"{"skip": " "}"#), 100), Parsed::Skip(None));
        assert_eq!(
            parse(&answer(r#"{"title": "Sum", "recipe": "Open the calc"#), 100),
            Parsed::Garbage("the answer was cut off; nothing complete was in it".into())
        );
        let capped = Answer {
            text: r#"{"recipe": "aaaa"#.into(),
            capped: true,
        };
        assert!(
            matches!(parse(&capped, 65_536), Parsed::Garbage(w) if w.contains("longer than 64 KB"))
        );
        assert_eq!(
            parse(&answer("Sure! Open the calculator."), 100),
            Parsed::Garbage(texts::NOT_JSON.into())
        );
        assert_eq!(
            parse(&answer(r#"{"answer": 42}"#), 100),
            Parsed::Garbage(texts::NO_RECIPE.into())
        );
    }

    #[test]
    fn titles_are_one_short_line() {
        assert_eq!(clean_title("  Sum\n in   calc ", "t"), "Sum in calc");
        assert_eq!(clean_title("", "compute  7 × 8"), "compute 7 × 8");
        assert_eq!(
            clean_title(&"x".repeat(100), "t").chars().count(),
            MAX_TITLE_CHARS + 1
        );
    }
}
