//! What a run's message keeps besides the answer: the reasoning (capped at the store's limit),
//! the steps, the answer text streamed since the last step, the usage — built from the events
//! as they come, and again from the stored events when a restart cut the run off.

use deft_protocol::{AgentEvent, DeltaKind, EventKind, StepSummary, Usage};
use deft_store::MAX_REASONING_CHARS;

/// What a run's message keeps besides the answer: built from the events as they come, and
/// again from the stored events when a restart cut the run off.
#[derive(Default)]
pub(super) struct Summary {
    pub(super) reasoning: String,
    reasoning_chars: usize,
    /// A model call ended since the last reasoning: the next call's reasoning starts a paragraph
    /// of its own (not glued to the last sentence: "…first.Now I know").
    call_ended: bool,
    pub(super) steps: Vec<StepSummary>,
    /// The answer text streamed since the last step (what a person saw of the last turn).
    pub(super) partial: String,
    pub(super) usage: Usage,
    pub(super) done: Option<AgentEvent>,
}

impl Summary {
    /// Takes in one event (reasoning capped at the store's limit).
    pub(super) fn absorb(&mut self, kind: &EventKind) {
        match kind {
            EventKind::Delta {
                text,
                kind: DeltaKind::Reasoning,
            } if self.reasoning_chars < MAX_REASONING_CHARS => {
                let call_break = if std::mem::take(&mut self.call_ended) {
                    paragraph_break(&self.reasoning)
                } else {
                    ""
                };
                let room = MAX_REASONING_CHARS - self.reasoning_chars;
                let part: String = call_break.chars().chain(text.chars()).take(room).collect();
                self.reasoning_chars += part.chars().count();
                self.reasoning.push_str(&part);
            }
            EventKind::Delta {
                text,
                kind: DeltaKind::Content,
            } => self.partial.push_str(text),
            EventKind::Step(step) => {
                self.partial.clear();
                self.steps.push(step.summary());
            }
            EventKind::Usage(u) => {
                self.usage = *u;
                self.call_ended = true;
            }
            _ => {}
        }
    }

    /// The summary of a run's stored events (`(seq, JSON)`; unreadable ones are passed over).
    pub(super) fn of_stored(events: &[(u64, String)]) -> Self {
        let mut summary = Summary::default();
        for (_, json) in events {
            if let Ok(event) = serde_json::from_str::<AgentEvent>(json) {
                summary.absorb(&event.kind);
            }
        }
        summary
    }
}

/// What `text` (the reasoning so far) lacks of ending in a blank line, so the next model call's
/// reasoning starts a paragraph of its own; nothing before the first.
fn paragraph_break(text: &str) -> &'static str {
    if text.is_empty() || text.ends_with("\n\n") {
        ""
    } else if text.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    }
}
