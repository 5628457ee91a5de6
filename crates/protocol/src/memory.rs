//! What a run's `memory` events say (docs/design.md "Events"): experiences and actions recalled
//! into the prompt at the start, and what distilling did after the end — saved, merged with a
//! near-duplicate, or dropped and why. The console shows each as a pseudo-card, the CLI as a
//! line, the trace as an entry.

use serde::{Deserialize, Serialize};

/// Which library a note is about.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// The experience library: task-level recipes in words.
    Experience,
    /// The action library: named actions as steps with element selectors.
    Action,
}

impl MemoryKind {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Experience => "experience",
            MemoryKind::Action => "action",
        }
    }
}

/// What happened to the items of a note.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemoryOutcome {
    /// Found similar to the run's task and put into its prompt.
    Recalled,
    /// Distilled from the run and stored as new entries.
    Saved,
    /// Distilled from the run and merged into near-duplicate entries.
    Merged,
    /// Distilled from the run and not stored (each item says why).
    Dropped,
}

impl MemoryOutcome {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            MemoryOutcome::Recalled => "recalled",
            MemoryOutcome::Saved => "saved",
            MemoryOutcome::Merged => "merged",
            MemoryOutcome::Dropped => "dropped",
        }
    }
}

/// One experience or action a note is about.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryItem {
    /// The entry's id in its library; absent for a dropped candidate, which was never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its title (an experience) or name (an action).
    pub title: String,
    /// How similar it is to the run's task, 0–1 (recalled items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
    /// Why it was dropped or trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The body of a `memory` event: what happened to which entries of one library, and a line a
/// person reads ("Recalled 2 similar experiences into the prompt").
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryNote {
    /// The library.
    pub kind: MemoryKind,
    /// What happened.
    pub outcome: MemoryOutcome,
    /// The entries.
    pub items: Vec<MemoryItem>,
    /// One line for a person.
    pub note: String,
}

impl MemoryNote {
    /// The note on one line for a terminal or a log: the note, then each item with its score
    /// or the reason it was dropped (`Recalled 1 similar experience: "Sum in the calculator"
    /// (0.82)`).
    pub fn line(&self) -> String {
        let items: Vec<String> = self
            .items
            .iter()
            .map(|item| {
                let mut s = format!("{:?}", item.title);
                if let Some(score) = item.score {
                    s.push_str(&format!(" ({score:.2})"));
                }
                if let Some(reason) = &item.reason {
                    s.push_str(&format!(" — {reason}"));
                }
                s
            })
            .collect();
        if items.is_empty() {
            self.note.clone()
        } else {
            format!("{}: {}", self.note, items.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_reads_as_one_line() {
        let note = MemoryNote {
            kind: MemoryKind::Experience,
            outcome: MemoryOutcome::Recalled,
            items: vec![
                MemoryItem {
                    id: Some("a".into()),
                    title: "Sum in the calculator".into(),
                    score: Some(0.8234),
                    reason: None,
                },
                MemoryItem {
                    id: None,
                    title: "x".into(),
                    score: None,
                    reason: Some("too short".into()),
                },
            ],
            note: "Recalled 2 similar experiences".into(),
        };
        assert_eq!(
            note.line(),
            "Recalled 2 similar experiences: \"Sum in the calculator\" (0.82); \"x\" — too short"
        );
    }
}
