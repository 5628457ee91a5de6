//! Recall when a run starts (seed 001 §4.2, §5.3): the experiences whose task is like the run's
//! (weighted Dice of bigrams and words, a threshold, the best two) and the actions the task names
//! (name or alias as a substring, or most of it), read from the store in the index's order; the
//! prompt sections they make; the cards; and the hits they count.

use deft_protocol::memory::{MemoryItem, MemoryKind, MemoryNote, MemoryOutcome};
use deft_store::{Action, Experience, StoreError};

use crate::similar::{features, fold};
use crate::{Memory, now_ms, texts};

/// What recall found for a task, best first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recalled {
    /// Experiences and their similarity.
    pub experiences: Vec<(Experience, f32)>,
    /// Actions and their score.
    pub actions: Vec<(Action, f32)>,
}

impl Memory {
    /// What the libraries hold for `goal` (no side effects; [`Memory::count_hits`] counts them).
    pub async fn recall(&self, goal: &str) -> Result<Recalled, StoreError> {
        let index = self.index().await?;
        let config = self.config();
        let query = features(goal);
        if query.is_empty() {
            return Ok(Recalled::default());
        }
        let ex_hits = index.experiences(&query, config.experience_threshold, config.experience_top);
        let ac_hits = index.actions(
            &query,
            &fold(goal),
            config.action_threshold,
            config.action_top,
        );
        let store = self.store();
        let ids: Vec<String> = ex_hits.iter().map(|h| h.id.clone()).collect();
        let mut found = store.experiences_by_ids(&ids).await?;
        let experiences = ex_hits
            .iter()
            .filter_map(|h| {
                let at = found.iter().position(|e| e.id == h.id)?;
                Some((found.swap_remove(at), h.score))
            })
            .collect();
        let ids: Vec<String> = ac_hits.iter().map(|h| h.id.clone()).collect();
        let mut found = store.actions_by_ids(&ids).await?;
        let actions = ac_hits
            .iter()
            .filter_map(|h| {
                let at = found.iter().position(|a| a.id == h.id)?;
                Some((found.swap_remove(at), h.score))
            })
            .collect();
        Ok(Recalled {
            experiences,
            actions,
        })
    }

    /// Counts a recall: a hit and the last-used time for each recalled entry.
    pub async fn count_hits(&self, recalled: &Recalled) -> Result<(), StoreError> {
        let now = now_ms();
        let ex: Vec<String> = recalled
            .experiences
            .iter()
            .map(|(e, _)| e.id.clone())
            .collect();
        if !ex.is_empty() {
            self.store().record_experience_hits(&ex, now).await?;
        }
        let ac: Vec<String> = recalled.actions.iter().map(|(a, _)| a.id.clone()).collect();
        if !ac.is_empty() {
            self.store().record_action_hits(&ac, now).await?;
        }
        Ok(())
    }
}

impl Recalled {
    /// Nothing was recalled.
    pub fn is_empty(&self) -> bool {
        self.experiences.is_empty() && self.actions.is_empty()
    }

    /// The system-prompt sections: experiences, then reusable actions (each only when any).
    pub fn sections(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.experiences.is_empty() {
            let entries: Vec<(String, String, String)> = self
                .experiences
                .iter()
                .map(|(e, _)| (e.title.clone(), e.task.clone(), e.recipe.clone()))
                .collect();
            out.push(texts::experience_section(&entries));
        }
        if !self.actions.is_empty() {
            let entries: Vec<String> = self.actions.iter().map(|(a, _)| action_entry(a)).collect();
            out.push(texts::action_section(&entries));
        }
        out
    }

    /// The `memory` cards: one per library that recalled anything.
    pub fn notes(&self) -> Vec<MemoryNote> {
        let mut out = Vec::new();
        let item = |id: &str, title: &str, score: f32| MemoryItem {
            id: Some(id.to_owned()),
            title: title.to_owned(),
            score: Some((score * 100.0).round() / 100.0),
            reason: None,
        };
        if !self.experiences.is_empty() {
            let items: Vec<MemoryItem> = self
                .experiences
                .iter()
                .map(|(e, s)| item(&e.id, &e.title, *s))
                .collect();
            out.push(note(MemoryKind::Experience, items));
        }
        if !self.actions.is_empty() {
            let items: Vec<MemoryItem> = self
                .actions
                .iter()
                .map(|(a, s)| item(&a.id, &a.name, *s))
                .collect();
            out.push(note(MemoryKind::Action, items));
        }
        out
    }
}

fn note(kind: MemoryKind, items: Vec<MemoryItem>) -> MemoryNote {
    MemoryNote {
        kind,
        outcome: MemoryOutcome::Recalled,
        note: texts::note(kind, MemoryOutcome::Recalled, items.len()),
        items,
    }
}

/// An action as the prompt shows it: its steps as compact JSON, one a line.
pub fn action_entry(a: &Action) -> String {
    let steps: Vec<String> = a
        .steps
        .as_array()
        .map(|s| s.iter().map(|step| step.to_string()).collect())
        .unwrap_or_default();
    let variables: Vec<(String, String)> = a
        .variables
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    texts::action_entry(&a.name, &a.aliases, &a.description, &variables, &steps)
}
