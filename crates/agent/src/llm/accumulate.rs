//! Accumulates streamed chat-completion chunks: content, reasoning, tool-call fragments by index
//! (several calls per turn), finish reason and the final usage chunk.

use serde_json::Value;

use super::{CallUsage, Delta};

/// One tool call the model made.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    /// The model's id for the call (generated when the server sends none).
    pub id: String,
    /// Function name.
    pub name: String,
    /// Arguments as sent: JSON text, possibly invalid.
    pub arguments: String,
}

/// A finished model call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// Answer text.
    pub content: String,
    /// Reasoning text.
    pub reasoning: String,
    /// Tool calls in order.
    pub tool_calls: Vec<ToolCall>,
    /// `finish_reason` of the choice.
    pub finish_reason: Option<String>,
    /// Usage, when the server reported it.
    pub usage: Option<CallUsage>,
    /// Chunks that could not be read (logged and skipped).
    pub malformed_chunks: usize,
}

/// Folds chunks into a [`Completion`].
#[derive(Debug, Default)]
pub struct Accumulator {
    done: Completion,
}

impl Accumulator {
    /// A fresh accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one SSE `data:` payload; returns the text deltas it carried.
    pub fn push(&mut self, data: &str) -> Vec<Delta> {
        let chunk: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => {
                self.done.malformed_chunks += 1;
                tracing::warn!(
                    "skipping a malformed chunk from the model server ({e}): {}",
                    truncate(data, 200)
                );
                return Vec::new();
            }
        };
        let mut deltas = Vec::new();
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            let get = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            let (p, c) = (get("prompt_tokens"), get("completion_tokens"));
            let total = u
                .get("total_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(p + c);
            self.done.usage = Some(CallUsage {
                prompt_tokens: p,
                completion_tokens: c,
                total_tokens: total,
            });
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return deltas;
        };
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            self.done.finish_reason = Some(f.to_owned());
        }
        let Some(delta) = choice.get("delta") else {
            return deltas;
        };
        for key in ["reasoning_content", "reasoning"] {
            if let Some(t) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                self.done.reasoning.push_str(t);
                deltas.push(Delta::Reasoning(t.to_owned()));
                break;
            }
        }
        if let Some(t) = delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            self.done.content.push_str(t);
            deltas.push(Delta::Content(t.to_owned()));
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (pos, call) in calls.iter().enumerate() {
                let index = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .map(|i| i as usize)
                    .unwrap_or(pos);
                while self.done.tool_calls.len() <= index {
                    self.done.tool_calls.push(ToolCall::default());
                }
                let slot = &mut self.done.tool_calls[index];
                if let Some(id) = call
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                {
                    slot.id = id.to_owned();
                }
                if let Some(f) = call.get("function") {
                    if let Some(n) = f
                        .get("name")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                    {
                        slot.name = n.to_owned();
                    }
                    if let Some(a) = f.get("arguments").and_then(Value::as_str) {
                        slot.arguments.push_str(a);
                    }
                }
            }
        }
        deltas
    }

    /// The completion; calls without an id get one, calls without a name are dropped with a log.
    pub fn finish(mut self) -> Completion {
        self.done.tool_calls.retain(|c| {
            if c.name.is_empty() {
                tracing::warn!("the model server sent a tool call without a name; ignoring it");
            }
            !c.name.is_empty()
        });
        for (i, c) in self.done.tool_calls.iter_mut().enumerate() {
            if c.id.is_empty() {
                c.id = format!("call_{i}_{}", uuid::Uuid::new_v4().simple());
            }
        }
        self.done
    }
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fragments_by_index_concatenate() {
        let mut a = Accumulator::new();
        a.push(&json!({"choices":[{"delta":{"content":"Click"}}]}).to_string());
        a.push(&json!({"choices":[{"delta":{"content":"ing."}}]}).to_string());
        a.push(&json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"click","arguments":"{\"x\""}}]}}]}).to_string());
        a.push(&json!({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"name":"type","arguments":"{}"}}]}}]}).to_string());
        a.push(&json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}).to_string());
        a.push("{broken");
        a.push(&json!({"choices":[{"delta":{},"finish_reason":"tool_calls"}]}).to_string());
        a.push(&json!({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}).to_string());
        let c = a.finish();
        assert_eq!(c.content, "Clicking.");
        assert_eq!(c.tool_calls.len(), 2);
        assert_eq!(c.tool_calls[0].arguments, "{\"x\":1}");
        assert_eq!(c.tool_calls[1].name, "type");
        assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            c.usage,
            Some(CallUsage {
                prompt_tokens: 3,
                completion_tokens: 4,
                total_tokens: 7
            })
        );
        assert_eq!(c.malformed_chunks, 1);
    }

    #[test]
    fn reasoning_is_separate_and_ids_are_generated() {
        let mut a = Accumulator::new();
        let d = a.push(&json!({"choices":[{"delta":{"reasoning_content":"hmm"}}]}).to_string());
        assert_eq!(d, vec![Delta::Reasoning("hmm".into())]);
        a.push(&json!({"choices":[{"delta":{"tool_calls":[{"function":{"name":"wait","arguments":"{}"}}]}}]}).to_string());
        let c = a.finish();
        assert_eq!(c.reasoning, "hmm");
        assert!(c.tool_calls[0].id.starts_with("call_0_"));
    }
}
