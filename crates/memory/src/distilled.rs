//! What distilling did with each candidate, as the run's cards: items grouped by outcome (saved,
//! merged, dropped — in that order), each outcome logged.

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
