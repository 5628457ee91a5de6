//! One model call of the memory (distilling, the audit): reasoning turned off (seed 001 §4.1: a
//! reasoning model spends the budget on reasoning and leaves the answer empty or cut), the
//! answer capped in size (a runaway answer is cut where the cap is and read as cut off), and a
//! time limit. The text comes back with whether it was cut.

use std::time::Duration;

use deft_agent::llm::{CallOptions, Delta, LlmClient, LlmError};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A model's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The content (at most the cap, cut on a character boundary).
    pub text: String,
    /// The cap was reached and the stream was stopped there.
    pub capped: bool,
}

/// Why a call brought no answer: a finished text for the log and the card.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CallFailed(pub String);

impl crate::Memory {
    /// [`ask`] with the memory's answer cap and time limit.
    pub(crate) async fn ask(
        &self,
        llm: &LlmClient,
        system: &str,
        user: &str,
        cancel: &CancellationToken,
    ) -> Result<Answer, CallFailed> {
        let c = self.config();
        ask(llm, system, user, c.answer_cap, c.call_limit, cancel).await
    }
}

/// Asks `system` + `user` without tools and with reasoning off; at most `cap` bytes of answer,
/// within `limit`; `cancel` stops it.
pub async fn ask(
    llm: &LlmClient,
    system: &str,
    user: &str,
    cap: usize,
    limit: Duration,
    cancel: &CancellationToken,
) -> Result<Answer, CallFailed> {
    let messages = [
        json!({"role": "system", "content": system}),
        json!({"role": "user", "content": user}),
    ];
    let stop = cancel.child_token();
    let mut text = String::new();
    let mut capped = false;
    let call = {
        let stop = stop.clone();
        let mut on_delta = |d: Delta| {
            let Delta::Content(piece) = d else {
                return;
            };
            if capped {
                return;
            }
            let room = cap.saturating_sub(text.len());
            if piece.len() <= room {
                text.push_str(&piece);
                return;
            }
            let mut end = room;
            while !piece.is_char_boundary(end) {
                end -= 1;
            }
            text.push_str(&piece[..end]);
            capped = true;
            stop.cancel();
        };
        let options = CallOptions {
            no_thinking: true,
            ..CallOptions::default()
        };
        tokio::time::timeout(
            limit,
            llm.complete_with(&messages, &[], &options, &stop, &mut on_delta),
        )
        .await
    };
    match call {
        Ok(Ok(_) | Err(LlmError::Cancelled)) if capped => Ok(Answer { text, capped }),
        Ok(Ok(done)) => Ok(Answer {
            text: done.content,
            capped,
        }),
        Ok(Err(LlmError::Cancelled)) => Err(CallFailed(crate::texts::CALL_STOPPED.to_owned())),
        Ok(Err(e)) => Err(CallFailed(e.to_string())),
        Err(_) => Err(CallFailed(crate::texts::call_timed_out(limit))),
    }
}
