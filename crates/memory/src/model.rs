//! One model call of the memory (distilling, the audit), through the agent's one question
//! wrapper (`deft_agent::llm::ask`): reasoning turned off (seed 001 §4.1: a
//! reasoning model spends the budget on reasoning and leaves the answer empty or cut), the
//! answer capped in size (a runaway answer is cut where the cap is and read as cut off), and a
//! time limit. The text comes back with whether it was cut.
//!
//! [`crate::Memory::ask_usable`] reads the answer with the caller's reader and gives an
//! unusable one (not JSON, cut off with nothing complete, no recipe, no review of an entry
//! shown) one corrective retry: the answer and what was wrong with it go back to the model,
//! which answers again. A call that fails is not retried here: the client already retried what
//! a retry can cure (429, 5xx, a dropped connection).

use std::time::Duration;

use deft_agent::llm::{self, AskError, AskOptions, CallOptions, LlmClient, LlmError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::texts;
use crate::trajectory::cut;

/// Characters of an unusable answer quoted back in the corrective retry.
const QUOTED_CHARS: usize = 2_000;

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

/// What the memory asks the model: the system prompt, the request, and the shape of a usable
/// answer in words (for the corrective retry).
pub(crate) struct Question<'a> {
    /// The system prompt.
    pub system: &'a str,
    /// The user message.
    pub user: &'a str,
    /// What a usable answer looks like ([`texts::EXPERIENCE_SHAPE`], …).
    pub shape: &'a str,
}

impl crate::Memory {
    /// Asks `question` and reads the answer with `read` (`Err`: why it is unusable, in words
    /// the model reads); an unusable answer gets one corrective retry. The error is a finished
    /// reason for the card: the call failed, or the answer was unusable twice.
    pub(crate) async fn ask_usable<T>(
        &self,
        llm: &LlmClient,
        question: &Question<'_>,
        cancel: &CancellationToken,
        read: impl Fn(&Answer) -> Result<T, String>,
    ) -> Result<T, CallFailed> {
        let mut messages = vec![
            json!({"role": "system", "content": question.system}),
            json!({"role": "user", "content": question.user}),
        ];
        let first = self.ask(llm, &messages, cancel).await?;
        let why = match read(&first) {
            Ok(usable) => return Ok(usable),
            Err(why) => why,
        };
        tracing::info!(%why, "the model's answer is unusable; asking once more, saying why");
        messages.push(json!({"role": "assistant", "content": cut(&first.text, QUOTED_CHARS)}));
        messages.push(json!({"role": "user", "content": texts::correction(&why, question.shape)}));
        let second = self.ask(llm, &messages, cancel).await?;
        read(&second).map_err(|why| CallFailed(texts::unusable_twice(&why)))
    }

    /// [`ask`] with the memory's answer cap and time limit; a failure as the card says it.
    async fn ask(
        &self,
        llm: &LlmClient,
        messages: &[Value],
        cancel: &CancellationToken,
    ) -> Result<Answer, CallFailed> {
        let c = self.config();
        ask(llm, messages, c.answer_cap, c.call_limit, cancel)
            .await
            .map_err(|e| CallFailed(texts::model_failed(&e.0)))
    }
}

/// Asks `messages` without tools and with reasoning off; at most `cap` bytes of answer, within
/// `limit`; `cancel` stops it.
pub async fn ask(
    llm: &LlmClient,
    messages: &[Value],
    cap: usize,
    limit: Duration,
    cancel: &CancellationToken,
) -> Result<Answer, CallFailed> {
    let options = AskOptions {
        call: CallOptions {
            no_thinking: true,
            ..CallOptions::default()
        },
        answer_cap: Some(cap),
        time_limit: Some(limit),
    };
    match llm::ask(llm, messages, &options, cancel).await {
        Ok(asked) => Ok(Answer {
            text: asked.text,
            capped: asked.capped,
        }),
        Err(AskError::Llm(LlmError::Cancelled)) => {
            Err(CallFailed(crate::texts::CALL_STOPPED.to_owned()))
        }
        Err(e) => Err(CallFailed(e.to_string())),
    }
}
