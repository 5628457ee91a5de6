//! What an endpoint accepts beside the messages and tools — `stream_options`, the fields that
//! turn reasoning off, the output cap's name, structured output (`response_format`) — known for a provider or learned from its
//! answers, and kept for the process's life in one table keyed by endpoint (base URL and
//! model). deft makes a new [`super::LlmClient`] for every run, every distilling pass and every
//! audit; each one reads and teaches the same entry, so a strict endpoint refuses a field once
//! per process, not once per client.
//!
//! Something is learned only from a call that then went through: a field is known to be
//! refused once the call without it succeeded, so a 400 with another cause (a context too
//! long, a moderation refusal) teaches nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

/// What one endpoint accepts. Shared by every client of the endpoint in this process.
#[derive(Debug)]
pub(crate) struct Accepts {
    /// `stream_options: {include_usage: true}`.
    usage: AtomicBool,
    /// The reasoning-off fields (`thinking`, `enable_thinking`, `chat_template_kwargs`).
    thinking_off: AtomicBool,
    /// `max_completion_tokens` rather than `max_tokens`.
    completion_cap: AtomicBool,
    /// `response_format` with a JSON Schema (structured output).
    structured_output: AtomicBool,
}

/// Hosts whose API refuses any field it does not know and has no reasoning switch among the
/// fields deft sends: OpenAI's own API answers 400 "Unrecognized request argument supplied:
/// thinking", so the reasoning-off fields are never sent there.
const STRICT_HOSTS: &[&str] = &["api.openai.com"];

impl Accepts {
    /// What a new endpoint is assumed to accept: everything, except what its provider is known
    /// to refuse.
    fn assumed(base_url: &str) -> Self {
        Accepts {
            usage: AtomicBool::new(true),
            thinking_off: AtomicBool::new(!is_strict_provider(base_url)),
            completion_cap: AtomicBool::new(false),
            structured_output: AtomicBool::new(true),
        }
    }

    /// Whether `stream_options` is sent.
    pub(crate) fn usage(&self) -> bool {
        self.usage.load(Ordering::Relaxed)
    }

    /// Whether the reasoning-off fields are sent (when a call asks for them).
    pub(crate) fn thinking_off(&self) -> bool {
        self.thinking_off.load(Ordering::Relaxed)
    }

    /// Whether the cap goes as `max_completion_tokens`.
    pub(crate) fn completion_cap(&self) -> bool {
        self.completion_cap.load(Ordering::Relaxed)
    }

    /// Whether an output schema goes as `response_format`.
    pub(crate) fn structured_output(&self) -> bool {
        self.structured_output.load(Ordering::Relaxed)
    }

    /// A call went through without `response_format`, after a rejection with it.
    pub(crate) fn refuses_structured_output(&self) {
        self.structured_output.store(false, Ordering::Relaxed);
    }

    /// A call went through without `stream_options`, after a rejection with it.
    pub(crate) fn refuses_usage(&self) {
        self.usage.store(false, Ordering::Relaxed);
    }

    /// A call went through without the reasoning-off fields, after a rejection with them.
    pub(crate) fn refuses_thinking_off(&self) {
        self.thinking_off.store(false, Ordering::Relaxed);
    }

    /// A call went through with the cap under this name, after a rejection of the other.
    pub(crate) fn takes_completion_cap(&self, yes: bool) {
        self.completion_cap.store(yes, Ordering::Relaxed);
    }
}

/// Whether `base_url` is on a host of [`STRICT_HOSTS`].
fn is_strict_provider(base_url: &str) -> bool {
    reqwest::Url::parse(base_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .is_some_and(|h| STRICT_HOSTS.contains(&h.as_str()))
}

/// The endpoints met in this process, by (base URL, model).
type Table = Mutex<HashMap<(String, String), Arc<Accepts>>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Table::default)
}

/// The shared entry of the endpoint `base_url` (without a trailing `/`) serving `model`.
pub(crate) fn accepts(base_url: &str, model: &str) -> Arc<Accepts> {
    table()
        .lock()
        .entry((base_url.to_owned(), model.to_owned()))
        .or_insert_with(|| Arc::new(Accepts::assumed(base_url)))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_gets_no_reasoning_fields_and_others_do() {
        assert!(!accepts("https://api.openai.com/v1", "gpt-4o").thinking_off());
        assert!(!accepts("https://API.OpenAI.com/v1", "gpt-4o").thinking_off());
        for other in [
            "https://api.deepseek.com/v1",
            "http://127.0.0.1:8000/v1",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "https://api.openai.com.example.org/v1",
            "not a url",
        ] {
            assert!(accepts(other, "m").thinking_off(), "{other}");
        }
    }

    #[test]
    fn clients_of_one_endpoint_share_what_was_learned_and_no_other_does() {
        let a = accepts("http://127.0.0.1:9/v1", "shared-model");
        let b = accepts("http://127.0.0.1:9/v1", "shared-model");
        let other_model = accepts("http://127.0.0.1:9/v1", "another-model");
        a.refuses_thinking_off();
        assert!(!b.thinking_off());
        assert!(other_model.thinking_off());
        assert!(b.usage() && !b.completion_cap());
    }
}
