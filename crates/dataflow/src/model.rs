//! The model the stages ask: one OpenAI-compatible chat call per question (the agent's one
//! question wrapper, `deft_agent::llm::ask`, with the client's retries and error texts), a system
//! prompt, a user message with the screenshots when `VISUAL_MODE` is on, and a JSON object read
//! tolerantly out of the answer (`deft_agent::answer`). The answer and the usage go to the task's
//! log.

use std::time::Instant;

use deft_agent::answer::json_object;
use deft_agent::llm::{self, AskError, AskOptions, CallUsage, LlmClient, LlmError};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::log::TaskLog;
use crate::result::StageError;
use crate::texts;

/// The widest screenshot sent to the model.
const IMAGE_MAX_WIDTH: u32 = 1280;
/// JPEG quality of the screenshots sent.
const JPEG_QUALITY: u8 = 80;

/// The model of a run.
pub struct Model {
    llm: LlmClient,
    visual: bool,
}

/// One question: the instructions, the question and the images it shows (PNG bytes).
pub struct Question<'a> {
    /// The stage asking (for errors).
    pub stage: &'a str,
    /// The system prompt.
    pub system: String,
    /// The user message's text.
    pub user: String,
    /// Screenshots, sent after the text when the run is visual.
    pub images: Vec<Vec<u8>>,
}

impl Model {
    /// A model behind `llm`; `visual`: send images.
    pub fn new(llm: LlmClient, visual: bool) -> Model {
        Model { llm, visual }
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.llm.config().model
    }

    /// Whether images are sent.
    pub fn visual(&self) -> bool {
        self.visual
    }

    /// Asks `q` and reads the JSON object of the answer; returns it with the answer's text.
    pub async fn ask(
        &self,
        q: Question<'_>,
        log: &mut TaskLog,
        cancel: &CancellationToken,
    ) -> Result<(Map<String, Value>, String), StageError> {
        let messages = self.messages(&q);
        let started = Instant::now();
        let answer = llm::ask(&self.llm, &messages, &AskOptions::default(), cancel).await;
        let took = started.elapsed();
        log.model_time += took;
        log.model_call(&json!({
            "stage": q.stage,
            "messages": without_images(&messages),
            "answer": answer.as_ref().map(|a| a.text.as_str()).ok(),
            "reasoning": answer.as_ref().map(|a| a.reasoning.as_str()).ok().filter(|r| !r.is_empty()),
            "error": answer.as_ref().err().map(ToString::to_string),
            "seconds": took.as_secs_f64(),
        }));
        let completion = answer.map_err(|e| model_error(q.stage, &e))?;
        CallUsage::add_to(completion.usage, &mut log.usage);
        log.model_answer(&completion.reasoning, &completion.text);
        let object = json_object(&completion.text).ok_or_else(|| {
            StageError::new("ModelAnswerError", texts::not_json(&completion.text)).at(q.stage)
        })?;
        Ok((object, completion.text))
    }

    fn messages(&self, q: &Question<'_>) -> Vec<Value> {
        let mut parts = vec![json!({"type": "text", "text": q.user})];
        if self.visual {
            for png in &q.images {
                match deft_agent::downscale_for_model(png, IMAGE_MAX_WIDTH, JPEG_QUALITY) {
                    Ok(img) => {
                        parts.push(json!({"type": "image_url", "image_url": {"url": img.data_uri}}))
                    }
                    Err(e) => {
                        tracing::warn!("a screenshot is left out of the {} question: {e}", q.stage)
                    }
                }
            }
        }
        let user = if parts.len() == 1 {
            json!({"role": "user", "content": q.user})
        } else {
            json!({"role": "user", "content": parts})
        };
        vec![json!({"role": "system", "content": q.system}), user]
    }
}

/// `messages` with each image replaced by a note of its size (the log keeps no pixels twice).
fn without_images(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if let Some(parts) = m["content"].as_array_mut() {
                for p in parts.iter_mut().filter(|p| p["type"] == "image_url") {
                    let len = p["image_url"]["url"].as_str().map_or(0, str::len);
                    *p = json!({"type": "image_url", "image_url": {"url": format!("(an image, {len} bytes as a data URI)")}});
                }
            }
            m
        })
        .collect()
}

fn model_error(stage: &str, e: &AskError) -> StageError {
    let kind = match e {
        AskError::Llm(LlmError::Cancelled) => "Interrupted",
        _ => "ModelError",
    };
    StageError::new(kind, e.to_string()).at(stage)
}
