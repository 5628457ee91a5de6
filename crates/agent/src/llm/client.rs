//! The HTTP side: request, retries with backoff, error texts people can act on, and the
//! fallbacks for gateways that reject a field: `stream_options` and the fields that turn
//! reasoning off ([`CallOptions::no_thinking`]) are dropped, the output cap's name swapped
//! (`max_tokens` or `max_completion_tokens`, whichever the endpoint takes) — each at most once
//! per call after a 400 or 422, so the call still goes through. What helped is remembered for
//! the endpoint (see [`super::endpoint`]): every client of it in this process, the next run's
//! as much as this one's, sends what the endpoint takes.

use std::sync::Arc;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::endpoint::{self, Accepts};
use super::{Accumulator, Completion, Delta};
use crate::output::OutputSchema;
use crate::texts;

/// Where and how to reach the model.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// Base URL, e.g. `https://api.openai.com/v1` (the client appends `/chat/completions`).
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// API key (sent as Bearer), if the server needs one.
    pub api_key: Option<String>,
    /// TCP connect timeout.
    pub connect_timeout: Duration,
    /// Longest silence while streaming.
    pub read_timeout: Duration,
    /// Retries after 429/5xx/connection errors.
    pub max_retries: u32,
    /// First backoff; doubles each retry (capped at 30 s) unless the server sends `Retry-After`.
    pub backoff: Duration,
    /// Whether a call with an output schema sends it as OpenAI's structured output
    /// (`response_format: {"type": "json_schema", …}`); false for a provider known to lack it:
    /// the schema then goes in a system message. An endpoint that answers 400 to it gets the
    /// system message instead, and never the field again in this process.
    pub structured_output: bool,
}

impl LlmConfig {
    /// A config with the defaults: 10 s connect, 120 s read, 3 retries from 1 s.
    pub fn new(base_url: &str, model: &str, api_key: Option<String>) -> Self {
        LlmConfig {
            base_url: base_url.trim_end_matches('/').to_owned(),
            model: model.to_owned(),
            api_key: api_key.filter(|k| !k.is_empty()),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(120),
            max_retries: 3,
            backoff: Duration::from_secs(1),
            structured_output: true,
        }
    }
}

/// A model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// 401/403.
    #[error("the API key is invalid or expired (HTTP {status} from {url}): {message}")]
    Unauthorized {
        /// Status.
        status: u16,
        /// Endpoint.
        url: String,
        /// Server text.
        message: String,
    },
    /// The server does not know the model.
    #[error("the model '{model}' is not available at {url}: {message}")]
    UnknownModel {
        /// Model name.
        model: String,
        /// Endpoint.
        url: String,
        /// Server text.
        message: String,
    },
    /// Still failing after the retries (429, 5xx).
    #[error(
        "the model server at {url} kept failing (HTTP {status}) after {attempts} attempts: {message}"
    )]
    Unavailable {
        /// Status.
        status: u16,
        /// Endpoint.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// Server text.
        message: String,
    },
    /// Another 4xx.
    #[error("the model server at {url} rejected the request (HTTP {status}): {message}")]
    Rejected {
        /// Status.
        status: u16,
        /// Endpoint.
        url: String,
        /// Server text.
        message: String,
    },
    /// Could not connect.
    #[error("cannot reach the model server at {url}: {reason}")]
    Unreachable {
        /// Endpoint.
        url: String,
        /// Why.
        reason: String,
    },
    /// The stream stalled or broke.
    #[error("the model server at {url} stopped streaming: {reason}")]
    Stream {
        /// Endpoint.
        url: String,
        /// Why.
        reason: String,
    },
    /// The caller cancelled.
    #[error("cancelled")]
    Cancelled,
}

/// Per-call settings beside the messages and tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// The most tokens the model may write in this call (`max_tokens` or
    /// `max_completion_tokens`, as the endpoint takes it); `None` sends no cap. A run profile's
    /// (designer mode: 8,192).
    pub max_output_tokens: Option<u32>,
    /// Ask the server not to reason before answering (the memory's distilling and audit
    /// calls: a reasoning model would spend the answer's budget on reasoning and leave the
    /// content empty or cut off). Sent as `thinking: {"type": "disabled"}` (DeepSeek, Doubao,
    /// Anthropic-style gateways), `enable_thinking: false` (Qwen on DashScope) and
    /// `chat_template_kwargs: {"enable_thinking": false, "thinking": false}` (vLLM and SGLang
    /// serving Qwen3 or DeepSeek-V3.1); never to OpenAI's own API, which refuses unknown
    /// fields; an endpoint that rejects them gets the call again without, and never again.
    pub no_thinking: bool,
}

/// Sets the fields that turn reasoning off in each dialect (see [`CallOptions::no_thinking`]).
fn turn_thinking_off(body: &mut Value) {
    body["thinking"] = json!({"type": "disabled"});
    body["enable_thinking"] = json!(false);
    body["chat_template_kwargs"] = json!({"enable_thinking": false, "thinking": false});
}

/// Words in a rejection that name the reasoning-off fields.
const THINKING_FIELDS: &[&str] = &["thinking", "chat_template_kwargs"];

/// Words in a rejection that name structured output.
const FORMAT_FIELDS: &[&str] = &["response_format", "json_schema"];

/// Words in a rejection that name `stream_options`.
const USAGE_FIELDS: &[&str] = &["stream_options", "include_usage"];

/// How an endpoint names the output cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapParam {
    /// `max_tokens`: what most OpenAI-compatible servers take (DeepSeek, vLLM, llama.cpp,
    /// Ollama). Tried first.
    MaxTokens,
    /// `max_completion_tokens`: what OpenAI's newer models take instead.
    MaxCompletionTokens,
}

impl CapParam {
    /// The request field.
    pub const fn as_str(self) -> &'static str {
        match self {
            CapParam::MaxTokens => "max_tokens",
            CapParam::MaxCompletionTokens => "max_completion_tokens",
        }
    }

    fn other(self) -> Self {
        match self {
            CapParam::MaxTokens => CapParam::MaxCompletionTokens,
            CapParam::MaxCompletionTokens => CapParam::MaxTokens,
        }
    }
}

/// An OpenAI-compatible streaming chat client.
pub struct LlmClient {
    http: reqwest::Client,
    config: LlmConfig,
    /// What the endpoint accepts, shared with every other client of it in this process.
    accepts: Arc<Accepts>,
}

impl LlmClient {
    /// A client for `config`.
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .read_timeout(config.read_timeout)
            .build()
            .map_err(|e| LlmError::Unreachable {
                url: config.base_url.clone(),
                reason: format!("cannot build the HTTP client: {e}"),
            })?;
        let accepts = endpoint::accepts(config.base_url.trim_end_matches('/'), &config.model);
        Ok(LlmClient {
            http,
            config,
            accepts,
        })
    }

    /// The config.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// Whether usage is still being asked for (false once the endpoint took a call only
    /// without `stream_options`).
    pub fn asks_for_usage(&self) -> bool {
        self.accepts.usage()
    }

    /// Whether [`CallOptions::no_thinking`] is sent: false for a provider known to refuse the
    /// fields, and once the endpoint took a call only without them.
    pub fn sends_thinking_off(&self) -> bool {
        self.accepts.thinking_off()
    }

    /// Whether an output schema is sent as `response_format` (the config allows it and the
    /// endpoint has not refused it).
    pub fn sends_response_format(&self) -> bool {
        self.config.structured_output && self.accepts.structured_output()
    }

    /// The name the output cap is sent under now.
    pub fn cap_param(&self) -> CapParam {
        if self.accepts.completion_cap() {
            CapParam::MaxCompletionTokens
        } else {
            CapParam::MaxTokens
        }
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.config.base_url)
    }

    /// The streamed chat request: model, messages, tools (when any), and what `sent` says:
    /// usage, reasoning off, the output cap (under its name).
    fn request_body(
        &self,
        messages: &[Value],
        tools: &[Value],
        output: Option<&OutputSchema>,
        sent: &Sent,
    ) -> Value {
        let messages = match output {
            Some(schema) if !sent.response_format => with_schema_prompt(messages, schema),
            _ => messages.to_vec(),
        };
        let mut body = json!({"model": self.config.model, "messages": messages, "stream": true});
        if let Some(schema) = output.filter(|_| sent.response_format) {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema.schema(), "strict": false},
            });
        }
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.to_vec());
        }
        if sent.usage {
            body["stream_options"] = json!({"include_usage": true});
        }
        if sent.thinking_off {
            turn_thinking_off(&mut body);
        }
        if let Some((param, n)) = sent.cap {
            body[param.as_str()] = json!(n);
        }
        body
    }

    /// The error for an HTTP `status` that is not retried (any more) after `attempts`.
    fn http_error(&self, status: u16, url: String, message: String, attempts: u32) -> LlmError {
        match status {
            401 | 403 => LlmError::Unauthorized {
                status,
                url,
                message,
            },
            404 => LlmError::UnknownModel {
                model: self.config.model.clone(),
                url,
                message,
            },
            400 | 422 if mentions_model(&message, &self.config.model) => LlmError::UnknownModel {
                model: self.config.model.clone(),
                url,
                message,
            },
            429 | 500..=599 => LlmError::Unavailable {
                status,
                url,
                attempts,
                message,
            },
            _ => LlmError::Rejected {
                status,
                url,
                message,
            },
        }
    }

    /// Streams one completion of `messages` with `tools` (none: a plain answer), passing text
    /// deltas to `on_delta` as they arrive.
    pub async fn complete(
        &self,
        messages: &[Value],
        tools: &[Value],
        cancel: &CancellationToken,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, LlmError> {
        self.complete_with(messages, tools, &CallOptions::default(), cancel, on_delta)
            .await
    }

    /// [`LlmClient::complete`] with per-call settings (the output cap, reasoning off).
    pub async fn complete_with(
        &self,
        messages: &[Value],
        tools: &[Value],
        options: &CallOptions,
        cancel: &CancellationToken,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, LlmError> {
        self.complete_typed(messages, tools, options, None, cancel, on_delta)
            .await
    }

    /// [`LlmClient::complete_with`] asking for an answer valid against `output`: as the
    /// provider's structured output (`response_format`) when it takes it, else as a system
    /// message with the schema after the leading system messages.
    pub async fn complete_typed(
        &self,
        messages: &[Value],
        tools: &[Value],
        options: &CallOptions,
        output: Option<&OutputSchema>,
        cancel: &CancellationToken,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, LlmError> {
        let url = self.url();
        let mut attempt = 0u32;
        let mut fallback = Fallback::new(self.cap_param(), options.max_output_tokens);
        loop {
            attempt += 1;
            let asked = Sent {
                usage: self.asks_for_usage() && !fallback.usage_dropped,
                thinking_off: options.no_thinking
                    && self.sends_thinking_off()
                    && !fallback.thinking_dropped,
                cap: fallback.cap(),
                response_format: output.is_some()
                    && self.sends_response_format()
                    && !fallback.format_dropped,
            };
            let body = self.request_body(messages, tools, output, &asked);
            let mut req = self.http.post(&url).json(&body);
            if let Some(key) = &self.config.api_key {
                req = req.bearer_auth(key);
            }
            let sent = tokio::select! {
                r = req.send() => r,
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            };
            let response = match sent {
                Ok(r) => r,
                Err(e) => {
                    let reason = describe(&e);
                    if attempt <= self.config.max_retries {
                        tracing::warn!("model server unreachable ({reason}); retrying");
                        self.sleep(self.backoff(attempt, None), cancel).await?;
                        continue;
                    }
                    return Err(LlmError::Unreachable { url, reason });
                }
            };
            let status = response.status().as_u16();
            if (200..300).contains(&status) {
                fallback.learned(&self.accepts);
                return self.read_stream(response, cancel, on_delta).await;
            }
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let text = response.text().await.unwrap_or_default();
            let message = error_message(&text);
            if matches!(status, 400 | 422)
                && self.fall_back(&mut fallback, &asked, status, &message)
            {
                attempt -= 1;
                continue;
            }
            if matches!(status, 429 | 500..=599) && attempt <= self.config.max_retries {
                tracing::warn!("model server answered HTTP {status}; retrying");
                self.sleep(self.backoff(attempt, retry_after), cancel)
                    .await?;
                continue;
            }
            return Err(self.http_error(status, url, message, attempt));
        }
    }

    /// After a 400 or 422: changes what the next attempt sends, or says there is nothing left
    /// to change. The endpoint learns it only if the call then goes through.
    fn fall_back(&self, fallback: &mut Fallback, sent: &Sent, status: u16, message: &str) -> bool {
        match fallback.after_rejection(message, sent) {
            Retry::OtherCap => tracing::warn!(
                "the model server rejected the output cap as {} (HTTP {status}): {message}; retrying with {}",
                fallback.param.other().as_str(),
                fallback.param.as_str()
            ),
            // Some gateways know no such fields: ask once more without them.
            Retry::WithoutThinking => tracing::warn!(
                "the model server rejected the request with reasoning turned off (HTTP {status}: {message}); retrying without those fields"
            ),
            // Some gateways reject stream_options: ask once more without it.
            Retry::WithoutFormat => tracing::warn!(
                "the model server rejected response_format (HTTP {status}: {message}); retrying with the output schema in the prompt"
            ),
            Retry::WithoutUsage => tracing::warn!(
                "the model server rejected stream_options (HTTP {status}); retrying without it, token figures will be missing"
            ),
            Retry::No => return false,
        }
        true
    }

    async fn read_stream(
        &self,
        response: reqwest::Response,
        cancel: &CancellationToken,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, LlmError> {
        let mut events = response.bytes_stream().eventsource();
        let mut acc = Accumulator::new();
        loop {
            let next = tokio::select! {
                n = events.next() => n,
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            };
            match next {
                None => break,
                Some(Ok(ev)) => {
                    let data = ev.data.trim();
                    if data == "[DONE]" {
                        break;
                    }
                    if data.is_empty() {
                        continue;
                    }
                    for d in acc.push(data) {
                        on_delta(d);
                    }
                }
                Some(Err(e)) => {
                    return Err(LlmError::Stream {
                        url: self.url(),
                        reason: e.to_string(),
                    });
                }
            }
        }
        Ok(acc.finish())
    }

    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        retry_after.unwrap_or_else(|| {
            let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
            (self.config.backoff * factor).min(Duration::from_secs(30))
        })
    }

    async fn sleep(&self, d: Duration, cancel: &CancellationToken) -> Result<(), LlmError> {
        tokio::select! {
            _ = tokio::time::sleep(d) => Ok(()),
            _ = cancel.cancelled() => Err(LlmError::Cancelled),
        }
    }
}

/// What one attempt sends beside the messages and tools.
struct Sent {
    /// `stream_options: {include_usage: true}`.
    usage: bool,
    /// The fields that turn reasoning off.
    thinking_off: bool,
    /// The output cap, under its name.
    cap: Option<(CapParam, u32)>,
    /// The output schema as `response_format` (else in a system message).
    response_format: bool,
}

/// What to change after a 400/422, each at most once per call: the field the message names
/// (the cap's name, the reasoning-off fields, `stream_options`, `response_format`); when it
/// names none, `response_format` first (the output schema then goes in the prompt), the
/// reasoning-off fields next (the rarest dialect), then `stream_options`, then the cap's name.
struct Fallback {
    param: CapParam,
    max: Option<u32>,
    swapped: bool,
    thinking_dropped: bool,
    usage_dropped: bool,
    format_dropped: bool,
}

/// The retry [`Fallback::after_rejection`] chose.
enum Retry {
    OtherCap,
    WithoutThinking,
    WithoutUsage,
    WithoutFormat,
    No,
}

impl Fallback {
    fn new(param: CapParam, max: Option<u32>) -> Self {
        Fallback {
            param,
            max,
            swapped: false,
            thinking_dropped: false,
            usage_dropped: false,
            format_dropped: false,
        }
    }

    /// The cap to send now.
    fn cap(&self) -> Option<(CapParam, u32)> {
        self.max.map(|n| (self.param, n))
    }

    /// The call went through: what it changed is what the endpoint takes.
    fn learned(&self, accepts: &Accepts) {
        if self.swapped {
            accepts.takes_completion_cap(self.param == CapParam::MaxCompletionTokens);
        }
        if self.thinking_dropped {
            accepts.refuses_thinking_off();
        }
        if self.usage_dropped {
            accepts.refuses_usage();
        }
        if self.format_dropped {
            accepts.refuses_structured_output();
        }
    }

    fn after_rejection(&mut self, message: &str, sent: &Sent) -> Retry {
        let names = |fields: &[&str]| fields.iter().any(|f| message.contains(f));
        let swap = sent.cap.is_some() && !self.swapped;
        let thinking = sent.thinking_off && !self.thinking_dropped;
        let usage = sent.usage && !self.usage_dropped;
        let format = sent.response_format && !self.format_dropped;
        let retry = if swap && names(&[self.param.as_str()]) {
            Retry::OtherCap
        } else if format && names(FORMAT_FIELDS) {
            Retry::WithoutFormat
        } else if thinking && names(THINKING_FIELDS) {
            Retry::WithoutThinking
        } else if usage && names(USAGE_FIELDS) {
            Retry::WithoutUsage
        } else if format {
            Retry::WithoutFormat
        } else if thinking {
            Retry::WithoutThinking
        } else if usage {
            Retry::WithoutUsage
        } else if swap {
            Retry::OtherCap
        } else {
            Retry::No
        };
        match retry {
            Retry::OtherCap => {
                self.param = self.param.other();
                self.swapped = true;
            }
            Retry::WithoutThinking => self.thinking_dropped = true,
            Retry::WithoutUsage => self.usage_dropped = true,
            Retry::WithoutFormat => self.format_dropped = true,
            Retry::No => {}
        }
        retry
    }
}

/// `messages` with the output schema's system message after the leading system messages.
fn with_schema_prompt(messages: &[Value], schema: &OutputSchema) -> Vec<Value> {
    let at = messages
        .iter()
        .position(|m| m["role"] != "system")
        .unwrap_or(messages.len());
    let text = texts::output_schema_prompt(&schema.schema().to_string());
    let mut out = messages.to_vec();
    out.insert(at, json!({"role": "system", "content": text}));
    out
}

fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    if e.is_timeout() {
        s.push_str(" (timed out)");
    }
    s
}

/// The `error.message` of an OpenAI-style error body, or the body itself.
fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let msg = parsed
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("error"))
        })
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| body.trim().to_owned());
    msg.chars().take(500).collect()
}

fn mentions_model(message: &str, model: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("model")
        && (m.contains("not found")
            || m.contains("does not exist")
            || m.contains("unknown")
            || m.contains(&model.to_lowercase()))
}
