//! The one place a run's secret values are hidden: a [`Redactor`] built from the run's secret
//! values replaces each wherever it occurs — in every text of an event (a tool call's arguments,
//! the answer a device sent back, an error quoting them), as it is or JSON-escaped inside a text
//! that holds JSON — with `••••(secret NAME)`. [`Redacting`] wraps each of a run's event sinks
//! with it, so the trace, `report.html`, the store and the watchers all see the same redacted
//! stream; the run's report is redacted by the same redactor.
//!
//! ```
//! use deft_tasks::redact::Redactor;
//! let r = Redactor::new([("hunter2", "LOGIN_PW")]);
//! assert_eq!(r.text("password=hunter2"), "password=••••(secret LOGIN_PW)");
//! ```

use std::sync::Arc;

use deft_protocol::{AgentEvent, EventSink};
use serde_json::Value;

/// How a secret value is shown: bullets with the secret's name.
pub fn shown(name: &str) -> String {
    format!("••••(secret {name})")
}

/// Hides a run's secret values.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// What to find and what to put instead, longest first (a value inside another is
    /// replaced after it).
    pairs: Vec<(String, String)>,
}

impl Redactor {
    /// A redactor of `(value, secret name)` pairs; empty values are left out.
    pub fn new<'a>(secrets: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut pairs = Vec::new();
        for (value, name) in secrets {
            if value.is_empty() {
                continue;
            }
            pairs.push((value.to_owned(), shown(name)));
            // The same value inside a text that holds JSON (an answer's structured content).
            let escaped = serde_json::to_string(value).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            if escaped != value && !escaped.is_empty() {
                pairs.push((escaped.to_owned(), shown(name)));
            }
        }
        pairs.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        pairs.dedup_by(|a, b| a.0 == b.0);
        Redactor { pairs }
    }

    /// Whether there is nothing to hide.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// `text` with every secret value replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (value, shown) in &self.pairs {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), shown);
            }
        }
        out
    }

    /// `value` with every text in it (object keys too) redacted.
    pub fn json(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if self.pairs.iter().any(|(v, _)| s.contains(v.as_str())) {
                    *s = self.text(s);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut v) in entries {
                    self.json(&mut v);
                    map.insert(self.text(&key), v);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Any serializable value with every text in it redacted (an event, a step's result); the
    /// value as it was when it does not go through JSON and back.
    pub fn value<T>(&self, value: &T) -> T
    where
        T: serde::Serialize + serde::de::DeserializeOwned + Clone,
    {
        if self.is_empty() {
            return value.clone();
        }
        let Ok(mut json) = serde_json::to_value(value) else {
            return value.clone();
        };
        self.json(&mut json);
        serde_json::from_value(json).unwrap_or_else(|_| value.clone())
    }
}

/// An event sink that hands every event on redacted.
pub struct Redacting {
    redactor: Redactor,
    inner: Arc<dyn EventSink>,
}

impl Redacting {
    /// Each of `sinks` behind `redactor` (the sinks as they are when there is nothing to hide).
    pub fn wrap(redactor: &Redactor, sinks: Vec<Arc<dyn EventSink>>) -> Vec<Arc<dyn EventSink>> {
        if redactor.is_empty() {
            return sinks;
        }
        sinks
            .into_iter()
            .map(|inner| {
                Arc::new(Redacting {
                    redactor: redactor.clone(),
                    inner,
                }) as Arc<dyn EventSink>
            })
            .collect()
    }
}

impl EventSink for Redacting {
    fn send(&self, event: &AgentEvent) {
        self.inner.send(&self.redactor.value(event));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_hidden_wherever_they_occur_longest_first() {
        let r = Redactor::new([("pa\"ss", "Q"), ("hunter2", "PW"), ("hunter2x", "PWX")]);
        assert_eq!(
            r.text("a hunter2x and hunter2"),
            "a ••••(secret PWX) and ••••(secret PW)"
        );
        let mut v = json!({
            "args": {"text": "hunter2"},
            "hunter2": ["x hunter2 y", 3, null],
            "answer": "{\"value\": \"pa\\\"ss\"}",
        });
        r.json(&mut v);
        let text = v.to_string();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(
            !text.contains("pa\\\\\\\"ss"),
            "the escaped form too: {text}"
        );
        assert_eq!(v["args"]["text"], "••••(secret PW)");
        assert_eq!(v["••••(secret PW)"][0], "x ••••(secret PW) y");
        assert_eq!(v["answer"], "{\"value\": \"••••(secret Q)\"}");
    }

    #[test]
    fn nothing_to_hide_leaves_everything_as_it_is() {
        let r = Redactor::new([("", "EMPTY")]);
        assert!(r.is_empty());
        assert_eq!(r.text("hunter2"), "hunter2");
    }
}
