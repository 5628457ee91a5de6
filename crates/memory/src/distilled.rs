//! What distilling knows of a run (`RunFacts`) and what it did with each candidate, as the run's
//! cards: items grouped by outcome (saved, merged, dropped — in that order), each outcome logged;
//! the cards of a library that brought nothing.

use deft_protocol::memory::{MemoryItem, MemoryKind, MemoryNote, MemoryOutcome};

use crate::texts;

/// Outcomes of one library's distilling, in the order they happened.
#[derive(Debug, Default)]
pub struct Outcomes {
    items: Vec<(MemoryOutcome, MemoryItem)>,
}

impl Outcomes {
    /// A stored entry (`reason`: what was trimmed, if anything).
    pub fn stored(
        &mut self,
        outcome: MemoryOutcome,
        id: &str,
        title: &str,
        reason: Option<String>,
    ) {
        self.items.push((
            outcome,
            MemoryItem {
                id: Some(id.to_owned()),
                title: title.to_owned(),
                score: None,
                reason,
            },
        ));
    }

    /// A dropped candidate and why.
    pub fn dropped(&mut self, title: &str, reason: String) {
        self.items.push((
            MemoryOutcome::Dropped,
            MemoryItem {
                id: None,
                title: title.to_owned(),
                score: None,
                reason: Some(reason),
            },
        ));
    }

    /// The cards, one per outcome that happened; each item logged.
    pub fn into_notes(self, kind: MemoryKind, run: Option<&str>) -> Vec<MemoryNote> {
        let run = run.unwrap_or("-");
        for (outcome, item) in &self.items {
            let reason = item.reason.as_deref().unwrap_or("");
            match outcome {
                MemoryOutcome::Dropped => tracing::warn!(
                    run, kind = kind.as_str(), outcome = outcome.as_str(), title = %item.title,
                    reason, "memory distilling dropped a candidate"
                ),
                _ => tracing::info!(
                    run, kind = kind.as_str(), outcome = outcome.as_str(), title = %item.title,
                    id = item.id.as_deref().unwrap_or(""), reason, "memory distilled"
                ),
            }
        }
        [
            MemoryOutcome::Saved,
            MemoryOutcome::Merged,
            MemoryOutcome::Dropped,
        ]
        .into_iter()
        .filter_map(|outcome| {
            let items: Vec<MemoryItem> = self
                .items
                .iter()
                .filter(|(o, _)| *o == outcome)
                .map(|(_, i)| i.clone())
                .collect();
            (!items.is_empty()).then(|| MemoryNote {
                kind,
                outcome,
                note: texts::note(kind, outcome, items.len()),
                items,
            })
        })
        .collect()
    }
}

/// What distilling knows of the run.
pub(crate) struct RunFacts<'a> {
    /// The goal.
    pub task: &'a str,
    /// The final answer.
    pub answer: &'a str,
    /// The run's id.
    pub run_id: Option<&'a str>,
    /// The ids of the experiences recalled into the run (their use is counted already).
    pub recalled: &'a [String],
}

/// The card of a library whose distilling brought no candidate (the call failed, the answer
/// was unusable): one item named `title` with the reason.
pub(crate) fn nothing(
    kind: MemoryKind,
    title: &str,
    reason: String,
    run: Option<&str>,
) -> Vec<MemoryNote> {
    tracing::warn!(run = run.unwrap_or("-"), kind = kind.as_str(), %reason, "memory distilling brought nothing");
    vec![MemoryNote {
        kind,
        outcome: MemoryOutcome::Dropped,
        note: texts::nothing_distilled(kind),
        items: vec![MemoryItem {
            id: None,
            title: title.to_owned(),
            score: None,
            reason: Some(reason),
        }],
    }]
}

/// The card of a library for which the model found nothing reusable (`why`: its reason, if it
/// gave one): a note without items — no candidate was dropped.
pub(crate) fn found_nothing(
    kind: MemoryKind,
    why: Option<&str>,
    run: Option<&str>,
) -> Vec<MemoryNote> {
    tracing::info!(
        run = run.unwrap_or("-"),
        kind = kind.as_str(),
        why = why.unwrap_or(""),
        "the model found nothing reusable"
    );
    vec![MemoryNote {
        kind,
        outcome: MemoryOutcome::Dropped,
        note: texts::nothing_reusable(kind, why),
        items: Vec::new(),
    }]
}
