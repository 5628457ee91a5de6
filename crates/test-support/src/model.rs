//! A scripted OpenAI-compatible chat server: real HTTP, real SSE chunking (content and reasoning
//! deltas, tool-call arguments split across chunks, a usage chunk, `[DONE]`), turn scripts that
//! can read the request (and so react to the previous tool output), error answers, slow and
//! malformed streams, and a record of every request for assertions.
//!
//! ```no_run
//! # async fn demo() {
//! use deft_test_support::model::{Reply, ScriptedModel};
//! let model = ScriptedModel::start(vec![
//!     Reply::tool_call("run_shell", serde_json::json!({"command": "uname"})).into(),
//!     Reply::text("It is Linux.").into(),
//! ])
//! .await;
//! // point the agent at model.base_url() …
//! # }
//! ```

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use serde_json::{Value, json};

/// One scripted turn: decides the reply from the request it answers.
pub type Turn = Box<dyn Fn(&Recorded) -> Reply + Send + Sync>;

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A streamed completion.
    Stream(Streamed),
    /// An HTTP error with a JSON body and optional `Retry-After`.
    Status {
        /// HTTP status.
        status: u16,
        /// Body (OpenAI-style `{"error": {...}}`).
        body: Value,
        /// `Retry-After` seconds.
        retry_after: Option<u64>,
    },
}

/// A streamed completion.
#[derive(Debug, Clone, Default)]
pub struct Streamed {
    /// Reasoning text (`reasoning_content`), streamed before the content.
    pub reasoning: String,
    /// Answer text.
    pub content: String,
    /// Tool calls: (id, name, arguments text). Arguments are split across chunks.
    pub tool_calls: Vec<(String, String, String)>,
    /// Usage reported in the final chunk (when the request asked for it).
    pub usage: Option<(u64, u64)>,
    /// Characters per content/argument chunk.
    pub chunk_chars: usize,
    /// Pause between chunks.
    pub delay: Duration,
    /// Lines of garbage (`data: {broken`) sent before the real chunks.
    pub malformed_chunks: usize,
}

impl Reply {
    /// A final answer.
    pub fn text(content: &str) -> Reply {
        Reply::Stream(Streamed {
            content: content.to_owned(),
            usage: Some((100, 20)),
            chunk_chars: 7,
            ..Default::default()
        })
    }

    /// One tool call with JSON arguments.
    pub fn tool_call(name: &str, args: Value) -> Reply {
        Reply::tool_calls(vec![(name, args)])
    }

    /// Several tool calls in one turn.
    pub fn tool_calls(calls: Vec<(&str, Value)>) -> Reply {
        Reply::Stream(Streamed {
            tool_calls: calls
                .into_iter()
                .enumerate()
                .map(|(i, (n, a))| {
                    (
                        format!("call_{i}_{}", uuid_like()),
                        n.to_owned(),
                        a.to_string(),
                    )
                })
                .collect(),
            usage: Some((100, 20)),
            chunk_chars: 5,
            ..Default::default()
        })
    }

    /// A tool call whose arguments text is given verbatim (e.g. invalid JSON).
    pub fn raw_tool_call(name: &str, arguments: &str) -> Reply {
        Reply::Stream(Streamed {
            tool_calls: vec![(
                format!("call_raw_{}", uuid_like()),
                name.to_owned(),
                arguments.to_owned(),
            )],
            usage: Some((100, 20)),
            chunk_chars: 5,
            ..Default::default()
        })
    }

    /// An HTTP error.
    pub fn status(status: u16, message: &str) -> Reply {
        Reply::Status {
            status,
            body: json!({"error": {"message": message, "type": "error", "code": status}}),
            retry_after: None,
        }
    }

    /// Adds reasoning text.
    pub fn with_reasoning(mut self, text: &str) -> Reply {
        if let Reply::Stream(s) = &mut self {
            s.reasoning = text.to_owned();
        }
        self
    }

    /// Adds content text beside tool calls.
    pub fn with_content(mut self, text: &str) -> Reply {
        if let Reply::Stream(s) = &mut self {
            s.content = text.to_owned();
        }
        self
    }

    /// Streams slowly.
    pub fn with_delay(mut self, delay: Duration) -> Reply {
        if let Reply::Stream(s) = &mut self {
            s.delay = delay;
        }
        self
    }

    /// Sends `n` malformed chunks first.
    pub fn with_malformed(mut self, n: usize) -> Reply {
        if let Reply::Stream(s) = &mut self {
            s.malformed_chunks = n;
        }
        self
    }

    /// Sets `Retry-After` on an error.
    pub fn with_retry_after(mut self, secs: u64) -> Reply {
        if let Reply::Status { retry_after, .. } = &mut self {
            *retry_after = Some(secs);
        }
        self
    }
}

impl From<Reply> for Turn {
    fn from(r: Reply) -> Turn {
        Box::new(move |_| r.clone())
    }
}

/// The id of the first control of `kind` named `name` in a compact listing
/// (docs/observation.md: `[*]ID TYPE "NAME" …`), so scripts never hard-code ids.
pub fn find_control(listing: &str, kind: &str, name: &str) -> Option<String> {
    listing.lines().find_map(|line| {
        let line = line.strip_prefix('*').unwrap_or(line);
        let (id, rest) = line.split_once(' ')?;
        let (ty, rest) = rest.split_once(' ')?;
        if !id.chars().all(|c| c.is_ascii_digit()) || ty != kind {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        let n = de.next()?.ok()?;
        (n == name).then(|| id.to_owned())
    })
}

/// One rule of a [`routed`] script: the reply for a request whose text holds every needle.
#[derive(Debug, Clone)]
pub struct Route {
    /// Substrings the request's text must hold (see [`Recorded::text`]).
    pub needles: Vec<String>,
    /// The reply.
    pub reply: Reply,
}

impl Route {
    /// A text reply for requests holding every one of `needles`.
    pub fn text(needles: &[&str], answer: &str) -> Route {
        Route {
            needles: needles.iter().map(|n| (*n).to_owned()).collect(),
            reply: Reply::text(answer),
        }
    }
}

/// `turns` turns that each answer by what the request says, whatever order the requests come
/// in (several workers asking at once): the first route whose needles all occur in the request's
/// text; a request no route matches gets a text that says so.
pub fn routed(routes: Vec<Route>, turns: usize) -> Vec<Turn> {
    let routes = Arc::new(routes);
    (0..turns)
        .map(|_| {
            let routes = routes.clone();
            Box::new(move |r: &Recorded| {
                let text = r.text();
                routes
                    .iter()
                    .find(|route| route.needles.iter().all(|n| text.contains(n.as_str())))
                    .map(|route| route.reply.clone())
                    .unwrap_or_else(|| Reply::text("scripted model: no route matches this request"))
            }) as Turn
        })
        .collect()
}

/// Whether a request asks the model not to reason, in any dialect deft sends (`thinking:
/// {"type": "disabled"}`, `enable_thinking: false`, `chat_template_kwargs`).
pub fn turns_reasoning_off(r: &Recorded) -> bool {
    r.body["thinking"]["type"] == "disabled"
        || r.body["enable_thinking"] == false
        || r.body["chat_template_kwargs"]["enable_thinking"] == false
}

/// A turn of a reasoning model that needs to be told not to reason: `answer` when the request
/// turns reasoning off ([`turns_reasoning_off`]); otherwise it spends its budget reasoning and
/// leaves the answer empty.
pub fn reasoning_unless_off(answer: &str) -> Turn {
    let answer = answer.to_owned();
    Box::new(move |r: &Recorded| {
        if turns_reasoning_off(r) {
            Reply::text(&answer)
        } else {
            Reply::text("").with_reasoning("Let me think about this step by step. First, …")
        }
    })
}

/// The turn after a `launch_app` call: select the window its answer names
/// (`{"window": {"id", "name"}}`).
pub fn select_launched_window(req: &Recorded) -> Reply {
    let out: Value = serde_json::from_str(req.last_tool_output().unwrap_or("")).unwrap_or_default();
    let w = &out["window"];
    Reply::tool_call(
        "select_application_window",
        json!({"id": w["id"], "name": w["name"]}),
    )
}

/// The turn that clicks the buttons named `labels`, in order, by their ids in the listing that
/// is the last tool output.
pub fn click_buttons(req: &Recorded, labels: &[&str]) -> Reply {
    let listing = req.last_tool_output().unwrap_or_default();
    let calls = labels
        .iter()
        .map(|label| {
            let id = find_control(listing, "button", label)
                .unwrap_or_else(|| panic!("no button {label:?} in:\n{listing}"));
            ("click_input", json!({"id": id, "name": label}))
        })
        .collect();
    Reply::tool_calls(calls)
}

/// The turn that fills the fixture order form (`fixtures/web/form.html`) from its listing, the
/// last tool output: the name typed as `name`, "I agree" ticked, Submit clicked.
pub fn fill_order_form(req: &Recorded, name: &str) -> Reply {
    let listing = req.last_tool_output().unwrap_or_default();
    let id = |kind: &str, label: &str| {
        find_control(listing, kind, label)
            .unwrap_or_else(|| panic!("no {kind} {label:?} in:\n{listing}"))
    };
    Reply::tool_calls(vec![
        (
            "set_edit_text",
            json!({"id": id("edit", "Name"), "name": "Name", "text": name}),
        ),
        (
            "click_input",
            json!({"id": id("checkbox", "I agree"), "name": "I agree"}),
        ),
        (
            "click_input",
            json!({"id": id("button", "Submit"), "name": "Submit"}),
        ),
    ])
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The JSON body.
    pub body: Value,
    /// The `Authorization` header.
    pub authorization: Option<String>,
}

impl Recorded {
    /// The messages of the request.
    pub fn messages(&self) -> &[Value] {
        self.body["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Every message's text, one per line: string contents and the text parts of multi-part
    /// contents (images left out).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for m in self.messages() {
            match &m["content"] {
                Value::String(s) => out.push_str(s),
                Value::Array(parts) => {
                    for p in parts.iter().filter_map(|p| p["text"].as_str()) {
                        out.push_str(p);
                    }
                }
                _ => {}
            }
            out.push('\n');
        }
        out
    }

    /// How many images the request carries (`image_url` parts).
    pub fn image_count(&self) -> usize {
        self.messages()
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|p| p["type"] == "image_url")
            .count()
    }

    /// The text of the last `tool` message.
    pub fn last_tool_output(&self) -> Option<&str> {
        self.messages()
            .iter()
            .rev()
            .find(|m| m["role"] == "tool")
            .and_then(|m| m["content"].as_str())
    }

    /// Names of the offered tools.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|x| x["function"]["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }
}

struct Shared {
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<Recorded>>,
    reject_stream_options: bool,
    reject_params: Vec<String>,
    strict: bool,
    api_key: Option<String>,
}

/// The running server; stops when dropped.
pub struct ScriptedModel {
    addr: std::net::SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

/// Options for [`ScriptedModel::start_with`].
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// Answer 400 to any request carrying `stream_options` (some gateways do).
    pub reject_stream_options: bool,
    /// Answer 400 to any request carrying one of these top-level fields (the first listed that
    /// it carries), naming it as OpenAI does ("Unsupported parameter: 'max_tokens' is not
    /// supported with this model. …"): `max_tokens` for OpenAI's newer models, `thinking` for a
    /// gateway that knows no reasoning switch.
    pub reject_params: Vec<String>,
    /// Answer 400 to any request carrying a top-level field OpenAI's chat completions API does
    /// not know (see [`OPENAI_FIELDS`]), with OpenAI's own body: `{"error": {"message":
    /// "Unrecognized request argument supplied: thinking", "type": "invalid_request_error",
    /// "param": null, "code": null}}` — "arguments", listed in order, for several.
    pub strict: bool,
    /// Require `Authorization: Bearer <key>`; 401 otherwise.
    pub api_key: Option<String>,
}

/// The top-level fields OpenAI's chat completions API takes; a [`ModelOptions::strict`] server
/// refuses any other.
pub const OPENAI_FIELDS: &[&str] = &[
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "messages",
    "metadata",
    "modalities",
    "model",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
];

/// OpenAI's answer to fields it does not know, or `None` when `body` carries none.
fn unrecognized(body: &Value) -> Option<Reply> {
    let mut unknown: Vec<&str> = body
        .as_object()?
        .keys()
        .map(String::as_str)
        .filter(|k| !OPENAI_FIELDS.contains(k))
        .collect();
    unknown.sort_unstable();
    let message = match unknown.as_slice() {
        [] => return None,
        [one] => format!("Unrecognized request argument supplied: {one}"),
        several => format!(
            "Unrecognized request arguments supplied: {}",
            several.join(", ")
        ),
    };
    Some(Reply::Status {
        status: 400,
        body: json!({"error": {"message": message, "type": "invalid_request_error",
                               "param": null, "code": null}}),
        retry_after: None,
    })
}

impl ScriptedModel {
    /// Starts a server answering `turns` in order (a request past the script gets a 500).
    pub async fn start(turns: Vec<Turn>) -> ScriptedModel {
        Self::start_with(turns, ModelOptions::default()).await
    }

    /// Starts a server with options.
    pub async fn start_with(turns: Vec<Turn>, options: ModelOptions) -> ScriptedModel {
        let shared = Arc::new(Shared {
            turns: Mutex::new(turns.into()),
            requests: Mutex::new(Vec::new()),
            reject_stream_options: options.reject_stream_options,
            reject_params: options.reject_params,
            strict: options.strict,
            api_key: options.api_key,
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind scripted model: {e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener.tap_io(crate::net::no_delay), app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        ScriptedModel {
            addr,
            shared,
            stop: Some(tx),
        }
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().clone()
    }

    /// Turns not yet used.
    pub fn turns_left(&self) -> usize {
        self.shared.turns.lock().len()
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

async fn complete(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    let body: Value = match serde_json::from_str(&body) {
        Ok(v) => v,
        Err(e) => return error(400, &format!("invalid JSON body: {e}"), None),
    };
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let recorded = Recorded {
        body,
        authorization,
    };
    shared.requests.lock().push(recorded.clone());
    if let Some(key) = &shared.api_key
        && recorded.authorization.as_deref() != Some(&format!("Bearer {key}"))
    {
        return error(401, "Incorrect API key provided.", None);
    }
    if shared.reject_stream_options && recorded.body.get("stream_options").is_some() {
        return error(
            400,
            "Unrecognized request argument supplied: stream_options",
            None,
        );
    }
    if let Some(param) = shared
        .reject_params
        .iter()
        .find(|p| recorded.body.get(p.as_str()).is_some())
    {
        let instead = if param == "max_tokens" {
            " Use 'max_completion_tokens' instead."
        } else {
            ""
        };
        return error(
            400,
            &format!("Unsupported parameter: '{param}' is not supported with this model.{instead}"),
            None,
        );
    }
    if shared.strict
        && let Some(refusal) = unrecognized(&recorded.body)
    {
        return refusal.into_response_parts();
    }
    let turn = shared.turns.lock().pop_front();
    let Some(turn) = turn else {
        return error(500, "the scripted model has no more turns", None);
    };
    match turn(&recorded) {
        Reply::Status {
            status,
            body,
            retry_after,
        } => {
            let mut r = json_response(status, &body);
            if let Some(s) = retry_after
                && let Ok(v) = s.to_string().parse()
            {
                r.headers_mut().insert("retry-after", v);
            }
            r
        }
        Reply::Stream(s) => {
            let include_usage = recorded.body["stream_options"]["include_usage"] == true;
            let model = recorded.body["model"]
                .as_str()
                .unwrap_or("scripted")
                .to_owned();
            stream(s, include_usage, model)
        }
    }
}

fn error(status: u16, message: &str, retry_after: Option<u64>) -> Response {
    Reply::Status {
        status,
        body: json!({"error": {"message": message, "type": "invalid_request_error", "code": status}}),
        retry_after,
    }
    .into_response_parts()
}

impl Reply {
    fn into_response_parts(self) -> Response {
        match self {
            Reply::Status { status, body, .. } => json_response(status, &body),
            Reply::Stream(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        }
    }
}

/// The SSE lines of a streamed completion, as OpenAI sends them.
pub fn sse_lines(s: &Streamed, include_usage: bool, model: &str) -> Vec<String> {
    let id = format!("chatcmpl-{}", uuid_like());
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let n = s.chunk_chars.max(1);
    let mut out = Vec::new();
    for _ in 0..s.malformed_chunks {
        out.push("{\"id\": broken".to_owned());
    }
    out.push(chunk(json!({"role": "assistant", "content": ""}), Value::Null).to_string());
    for piece in split_chars(&s.reasoning, n) {
        out.push(chunk(json!({"reasoning_content": piece}), Value::Null).to_string());
    }
    for piece in split_chars(&s.content, n) {
        out.push(chunk(json!({"content": piece}), Value::Null).to_string());
    }
    for (i, (call_id, name, args)) in s.tool_calls.iter().enumerate() {
        out.push(
            chunk(
                json!({"tool_calls": [{"index": i, "id": call_id, "type": "function",
                                       "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            )
            .to_string(),
        );
        for piece in split_chars(args, n) {
            out.push(
                chunk(
                    json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                    Value::Null,
                )
                .to_string(),
            );
        }
    }
    let finish = if s.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out.push(chunk(json!({}), json!(finish)).to_string());
    if include_usage && let Some((p, c)) = s.usage {
        out.push(
            json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
                   "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}})
            .to_string(),
        );
    }
    out.push("[DONE]".to_owned());
    out
}

fn stream(s: Streamed, include_usage: bool, model: String) -> Response {
    let delay = s.delay;
    let lines = sse_lines(&s, include_usage, &model);
    let body = futures::stream::unfold(lines.into_iter(), move |mut it| async move {
        let line = it.next()?;
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        Some((
            Ok::<_, std::convert::Infallible>(format!("data: {line}\n\n")),
            it,
        ))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn json_response(status: u16, body: &Value) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn split_chars(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{:x}{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strict_server_names_the_fields_it_does_not_know_as_openai_does() {
        let one = json!({"model": "m", "messages": [], "stream": true, "thinking": {}});
        let Some(Reply::Status { status, body, .. }) = unrecognized(&one) else {
            panic!("refused")
        };
        assert_eq!(status, 400);
        assert_eq!(
            body,
            json!({"error": {"message": "Unrecognized request argument supplied: thinking",
                             "type": "invalid_request_error", "param": null, "code": null}})
        );
        let several = json!({"model": "m", "thinking": {}, "enable_thinking": false,
                             "chat_template_kwargs": {}});
        let Some(Reply::Status { body, .. }) = unrecognized(&several) else {
            panic!("refused")
        };
        assert_eq!(
            body["error"]["message"],
            "Unrecognized request arguments supplied: chat_template_kwargs, enable_thinking, thinking"
        );
        let known = json!({"model": "m", "messages": [], "stream": true,
                           "stream_options": {"include_usage": true}, "max_completion_tokens": 5});
        assert!(unrecognized(&known).is_none());
    }
}
