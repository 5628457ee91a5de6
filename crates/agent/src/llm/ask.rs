//! One question to the model, without tools: messages in, the answer's text out — the one wrapper
//! of the client for every part that asks a model a question rather than running a tool loop (the
//! dataflow's stages, the memory's distilling and audit). On top of [`LlmClient::complete_with`]
//! it adds what those callers share: the per-call options (reasoning off, the output cap), an
//! answer cap in bytes (a runaway answer is cut there, the stream stopped, and the answer marked
//! `capped` so the caller reads it as cut off), a time limit, the time the call took, and its
//! usage added to a run's total.

use std::time::{Duration, Instant};

use deft_protocol::Usage;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{CallOptions, CallUsage, Delta, LlmClient, LlmError};
use crate::texts;

/// How a question is asked.
#[derive(Debug, Clone, Default)]
pub struct AskOptions {
    /// The client's per-call options (the output cap in tokens, reasoning off).
    pub call: CallOptions,
    /// At most this many bytes of answer: the stream is stopped there (cut on a character
    /// boundary). `None`: the whole answer.
    pub answer_cap: Option<usize>,
    /// The call may take this long. `None`: only the client's own limits.
    pub time_limit: Option<Duration>,
}

/// A model's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Asked {
    /// The answer's text (at most the answer cap).
    pub text: String,
    /// The reasoning the model sent with it (empty when the answer was capped).
    pub reasoning: String,
    /// The answer cap was reached and the stream was stopped there.
    pub capped: bool,
    /// Tokens, when the server reported them.
    pub usage: Option<CallUsage>,
    /// How long the call took.
    pub took: Duration,
}

/// Why a question brought no answer.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// The client's error (`LlmError::Cancelled` when the call was stopped).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The time limit passed.
    #[error("{}", texts::model_call_timed_out(*.0))]
    TimedOut(Duration),
}

impl CallUsage {
    /// Adds this call to `total` (one call more, its tokens).
    pub fn add_to(usage: Option<CallUsage>, total: &mut Usage) {
        total.calls += 1;
        if let Some(u) = usage {
            total.prompt_tokens += u.prompt_tokens;
            total.completion_tokens += u.completion_tokens;
            total.total_tokens += u.total_tokens;
        }
    }
}

/// Asks `messages` of `llm` without tools, as `options` say; `cancel` stops the call.
pub async fn ask(
    llm: &LlmClient,
    messages: &[Value],
    options: &AskOptions,
    cancel: &CancellationToken,
) -> Result<Asked, AskError> {
    let started = Instant::now();
    let stop = cancel.child_token();
    let mut cap = Cap {
        room: options.answer_cap,
        text: String::new(),
        capped: false,
    };
    let call = {
        let stop = stop.clone();
        let mut on_delta = |d: Delta| {
            if cap.take(d) {
                stop.cancel();
            }
        };
        let call = llm.complete_with(messages, &[], &options.call, &stop, &mut on_delta);
        match options.time_limit {
            Some(limit) => tokio::time::timeout(limit, call)
                .await
                .map_err(|_| AskError::TimedOut(limit)),
            None => Ok(call.await),
        }
    };
    let took = started.elapsed();
    let asked = match call? {
        Ok(_) | Err(LlmError::Cancelled) if cap.capped => Asked {
            text: cap.text,
            reasoning: String::new(),
            capped: true,
            usage: None,
            took,
        },
        Ok(done) => Asked {
            text: done.content,
            reasoning: done.reasoning,
            capped: false,
            usage: done.usage,
            took,
        },
        Err(e) => return Err(e.into()),
    };
    tracing::debug!(
        model = %llm.config().model,
        seconds = took.as_secs_f64(),
        chars = asked.text.len(),
        capped = asked.capped,
        "the model answered"
    );
    Ok(asked)
}

/// The answer cap: the text kept while the stream runs.
struct Cap {
    room: Option<usize>,
    text: String,
    capped: bool,
}

impl Cap {
    /// Keeps what fits of a content delta; true when the cap was reached with it.
    fn take(&mut self, d: Delta) -> bool {
        let (Some(cap), Delta::Content(piece)) = (self.room, d) else {
            return false;
        };
        if self.capped {
            return false;
        }
        let room = cap.saturating_sub(self.text.len());
        if piece.len() <= room {
            self.text.push_str(&piece);
            return false;
        }
        let mut end = room;
        while !piece.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&piece[..end]);
        self.capped = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_cuts_on_a_character_boundary_and_then_keeps_nothing() {
        let mut cap = Cap {
            room: Some(5),
            text: String::new(),
            capped: false,
        };
        assert!(!cap.take(Delta::Content("abc".into())));
        assert!(!cap.take(Delta::Reasoning("ignored".into())));
        assert!(cap.take(Delta::Content("dé…".into())), "d fits, é does not");
        assert_eq!((cap.text.as_str(), cap.capped), ("abcd", true));
        assert!(!cap.take(Delta::Content("z".into())));
        assert_eq!(cap.text, "abcd");
        let mut none = Cap {
            room: None,
            text: String::new(),
            capped: false,
        };
        assert!(!none.take(Delta::Content("x".repeat(10_000))));
        assert_eq!(
            none.text, "",
            "without a cap the completion's content is the answer"
        );
    }

    #[test]
    fn a_question_past_its_limit_says_how_long_it_waited() {
        let e = AskError::TimedOut(Duration::from_secs(90));
        assert_eq!(e.to_string(), "the model did not answer within 90 s");
    }

    #[test]
    fn usage_adds_a_call_with_or_without_tokens() {
        let mut total = Usage::default();
        let u = CallUsage {
            prompt_tokens: 3,
            completion_tokens: 2,
            total_tokens: 5,
        };
        CallUsage::add_to(Some(u), &mut total);
        CallUsage::add_to(None, &mut total);
        assert_eq!(
            (total.calls, total.prompt_tokens, total.total_tokens),
            (2, 3, 5)
        );
    }
}
