//! `deft-scripted-model --script FILE.json [--port N]`: the scripted OpenAI-compatible chat
//! server as a process, for tests that drive `deft serve` from outside (the console's browser
//! tests).
//!
//! The script is a list of scenarios:
//!
//! ```json
//! [{"match": "screenshot", "turns": [
//!     {"tool_call": {"name": "capture_desktop_screenshot", "args": {}}, "reasoning": "First a look."},
//!     {"text": "Done.", "reasoning": "I looked.", "chunk_chars": 4, "delay_ms": 20}]},
//!  {"match": "bad key", "turns": [{"status": 401, "message": "Incorrect API key provided."}]}]
//! ```
//!
//! A request is answered by the first scenario whose `match` is a substring of its latest text
//! user message (the goal; image messages are skipped), with the turn whose index is the number
//! of assistant messages after that message. No scenario, or past the last turn → a text reply
//! that says so, so a failing test shows what happened. Prints exactly one line,
//! `listening on http://127.0.0.1:PORT`, when ready.
//!
//! A text turn with `"hold_before": "MARKER"` streams up to the chunk that holds `MARKER` and
//! waits there until `POST /release` (each release lets one held answer go on; a release that
//! comes first is kept for the next), so a test can act while an answer is half-streamed
//! without racing the stream's pace. A hold lasts at most [`HOLD_LIMIT`], so a test that
//! failed before releasing it does not hang the runs after it.

#![forbid(unsafe_code)]

use std::convert::Infallible;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use deft_test_support::model::{Reply, Streamed, sse_lines};
use serde::Deserialize;
use serde_json::{Value, json};

/// One scenario of the script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    /// Substring of the latest text user message that selects this scenario.
    #[serde(rename = "match")]
    pattern: String,
    /// The replies, by the number of assistant messages after that user message.
    turns: Vec<TurnSpec>,
}

/// One scripted reply.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum TurnSpec {
    /// A tool call.
    Tool(ToolTurn),
    /// An HTTP error with an OpenAI-style body.
    Status(StatusTurn),
    /// A streamed answer.
    Text(TextTurn),
}

/// `{"tool_call": {"name", "args"}, "reasoning"?}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolTurn {
    tool_call: ToolCall,
    /// Reasoning streamed before the call.
    #[serde(default)]
    reasoning: Option<String>,
}

/// `{"status", "message"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusTurn {
    status: u16,
    message: String,
}

/// `{"text", "reasoning"?, "chunk_chars"?, "delay_ms"?, "hold_before"?}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TextTurn {
    text: String,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    chunk_chars: Option<usize>,
    #[serde(default)]
    delay_ms: Option<u64>,
    /// Wait for `POST /release` before the chunk that holds this text.
    #[serde(default)]
    hold_before: Option<String>,
}

/// The longest an answer waits for its release.
const HOLD_LIMIT: Duration = Duration::from_secs(60);

/// The server's state: the script, and the releases of held answers.
struct Shared {
    script: Vec<Scenario>,
    releases: tokio::sync::Semaphore,
}

/// The tool call of a [`TurnSpec::Tool`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCall {
    name: String,
    #[serde(default = "empty_object")]
    args: Value,
}

fn empty_object() -> Value {
    json!({})
}

impl TurnSpec {
    fn reply(&self) -> Reply {
        match self {
            TurnSpec::Tool(ToolTurn {
                tool_call,
                reasoning,
            }) => {
                let reply = Reply::tool_call(&tool_call.name, tool_call.args.clone());
                match reasoning {
                    Some(r) => reply.with_reasoning(r),
                    None => reply,
                }
            }
            TurnSpec::Status(StatusTurn { status, message }) => Reply::status(*status, message),
            TurnSpec::Text(TextTurn {
                text,
                reasoning,
                chunk_chars,
                delay_ms,
                ..
            }) => {
                let mut reply = Reply::text(text);
                if let Some(r) = reasoning {
                    reply = reply.with_reasoning(r);
                }
                if let Some(ms) = delay_ms {
                    reply = reply.with_delay(Duration::from_millis(*ms));
                }
                if let (Some(n), Reply::Stream(s)) = (chunk_chars, &mut reply) {
                    s.chunk_chars = (*n).max(1);
                }
                reply
            }
        }
    }
}

impl TurnSpec {
    /// The index of the stream line before which this turn waits for a release: after the
    /// role line, the reasoning chunks and the content chunks wholly before the marker.
    fn hold_line(&self, reply: &Reply) -> Option<usize> {
        let (TurnSpec::Text(turn), Reply::Stream(s)) = (self, reply) else {
            return None;
        };
        let marker = turn.hold_before.as_deref()?;
        let at = turn.text.find(marker)?;
        let n = s.chunk_chars.max(1);
        let reasoning_chunks = s.reasoning.chars().count().div_ceil(n);
        Some(1 + reasoning_chunks + turn.text[..at].chars().count() / n)
    }
}

/// Reads and checks the script file.
fn load_script(path: &str) -> anyhow::Result<Vec<Scenario>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("read script {path}"))?;
    let script: Vec<Scenario> = serde_json::from_str(&text).with_context(|| {
        format!(
            "script {path}: expected a JSON list of {{\"match\", \"turns\": [...]}}; a turn is \
             {{\"tool_call\": {{\"name\", \"args\"}}}}, {{\"text\", \"reasoning\"?, \
             \"chunk_chars\"?, \"delay_ms\"?, \"hold_before\"?}} or {{\"status\", \"message\"}}"
        )
    })?;
    for (i, s) in script.iter().enumerate() {
        if s.pattern.is_empty() {
            bail!("script {path}: scenario {i} has an empty \"match\"");
        }
        if s.turns.is_empty() {
            bail!(
                "script {path}: scenario {i} (\"{}\") has no turns",
                s.pattern
            );
        }
    }
    Ok(script)
}

/// The latest user message with text content and how many assistant messages follow it.
fn goal_and_turn(messages: &[Value]) -> Option<(&str, usize)> {
    let at = messages
        .iter()
        .rposition(|m| m["role"] == "user" && m["content"].is_string())?;
    let goal = messages[at]["content"].as_str()?;
    let turn = messages[at + 1..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    Some((goal, turn))
}

/// The reply to one request body, and the stream line it holds before, if any.
fn answer(script: &[Scenario], body: &Value) -> (Reply, Option<usize>) {
    let messages = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let Some((goal, turn)) = goal_and_turn(messages) else {
        let text = "scripted model: the request has no user message with text content";
        return (Reply::text(text), None);
    };
    let Some(scenario) = script.iter().find(|s| goal.contains(&s.pattern)) else {
        let text = format!("scripted model: no scenario matches the prompt {goal:?}");
        return (Reply::text(&text), None);
    };
    match scenario.turns.get(turn) {
        Some(spec) => {
            let reply = spec.reply();
            let hold = spec.hold_line(&reply);
            (reply, hold)
        }
        None => (
            Reply::text(&format!(
                "scripted model: scenario {:?} has {} turns; this request asks for turn {}",
                scenario.pattern,
                scenario.turns.len(),
                turn + 1
            )),
            None,
        ),
    }
}

async fn complete(State(shared): State<Arc<Shared>>, body: String) -> Response {
    let body: Value = match serde_json::from_str(&body) {
        Ok(v) => v,
        Err(e) => {
            return error_response(
                400,
                &json!({"error": {"message": format!("invalid JSON body: {e}")}}),
            );
        }
    };
    let (reply, hold) = answer(&shared.script, &body);
    match reply {
        Reply::Status { status, body, .. } => error_response(status, &body),
        Reply::Stream(s) => {
            let include_usage = body["stream_options"]["include_usage"] == true;
            let model = body["model"].as_str().unwrap_or("scripted");
            stream(
                &s,
                include_usage,
                model,
                hold.map(|at| (at, shared.clone())),
            )
        }
    }
}

/// `POST /release`: one held answer goes on (the next one to hold, if none waits now).
async fn release(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.releases.add_permits(1);
    StatusCode::NO_CONTENT
}

/// The answer's lines as SSE, paced by its delay; before line `hold.0`, a wait for a release.
fn stream(
    s: &Streamed,
    include_usage: bool,
    model: &str,
    hold: Option<(usize, Arc<Shared>)>,
) -> Response {
    let delay = s.delay;
    let lines = sse_lines(s, include_usage, model);
    let start = (lines.into_iter().enumerate(), hold);
    let body = futures::stream::unfold(start, move |(mut it, hold)| async move {
        let (i, line) = it.next()?;
        if let Some((at, shared)) = &hold
            && i == *at
            && let Ok(Ok(permit)) =
                tokio::time::timeout(HOLD_LIMIT, shared.releases.acquire()).await
        {
            permit.forget();
        }
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        Some((Ok::<_, Infallible>(format!("data: {line}\n\n")), (it, hold)))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn error_response(status: u16, body: &Value) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `--script FILE` and `--port N` (default 0).
fn parse_args() -> anyhow::Result<(String, u16)> {
    const USAGE: &str = "usage: deft-scripted-model --script FILE.json [--port N]";
    let mut script = None;
    let mut port = 0u16;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--script" => script = Some(args.next().context(USAGE)?),
            "--port" => {
                let v = args.next().context(USAGE)?;
                port = v
                    .parse()
                    .with_context(|| format!("--port {v:?} is not a port number; {USAGE}"))?;
            }
            other => bail!("unknown argument {other:?}; {USAGE}"),
        }
    }
    Ok((script.context(USAGE)?, port))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let (path, port) = parse_args()?;
    let shared = Arc::new(Shared {
        script: load_script(&path)?,
        releases: tokio::sync::Semaphore::new(0),
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(complete))
        .route("/release", post(release))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .with_context(|| format!("bind 127.0.0.1:{port}"))?;
    let addr = listener.local_addr()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "listening on http://{addr}")?;
    out.flush()?;
    drop(out);
    axum::serve(listener.tap_io(deft_test_support::net::no_delay), app).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> Vec<Scenario> {
        serde_json::from_value(json!([
            {"match": "shot", "turns": [
                {"tool_call": {"name": "capture_desktop_screenshot", "args": {}}},
                {"text": "done", "reasoning": "why", "chunk_chars": 2, "delay_ms": 5}]},
            {"match": "key", "turns": [{"status": 401, "message": "bad key"}]}
        ]))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn text_of(r: &Reply) -> String {
        match r {
            Reply::Stream(s) => s.content.clone(),
            Reply::Status { status, .. } => format!("status {status}"),
        }
    }

    #[test]
    fn the_turn_is_counted_from_the_latest_text_user_message() {
        let s = script();
        let first = answer(
            &s,
            &json!({"messages": [
            {"role": "user", "content": "old"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "take a shot"}]}),
        )
        .0;
        match first {
            Reply::Stream(st) => assert_eq!(st.tool_calls[0].1, "capture_desktop_screenshot"),
            other => panic!("expected a tool call, got {other:?}"),
        }
        let second = answer(
            &s,
            &json!({"messages": [
            {"role": "user", "content": "take a shot"},
            {"role": "assistant", "content": null, "tool_calls": []},
            {"role": "tool", "content": "ok"},
            {"role": "user", "content": [{"type": "text", "text": "images"}]}]}),
        )
        .0;
        match second {
            Reply::Stream(st) => {
                assert_eq!(st.content, "done");
                assert_eq!(st.reasoning, "why");
                assert_eq!(st.chunk_chars, 2);
                assert_eq!(st.delay, Duration::from_millis(5));
            }
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn status_turns_and_misses_are_readable() {
        let s = script();
        let r = answer(
            &s,
            &json!({"messages": [{"role": "user", "content": "my key"}]}),
        );
        assert_eq!(text_of(&r.0), "status 401");
        let r = answer(
            &s,
            &json!({"messages": [{"role": "user", "content": "nothing"}]}),
        );
        assert_eq!(
            text_of(&r.0),
            "scripted model: no scenario matches the prompt \"nothing\""
        );
        let r = answer(
            &s,
            &json!({"messages": [
            {"role": "user", "content": "my key"}, {"role": "assistant", "content": "x"}]}),
        );
        assert_eq!(
            text_of(&r.0),
            "scripted model: scenario \"key\" has 1 turns; this request asks for turn 2"
        );
    }

    #[test]
    fn a_held_answer_stops_before_the_chunk_that_holds_its_marker() {
        let s: Vec<Scenario> = serde_json::from_value(json!([
            {"match": "slow", "turns": [{"text": "abcdefEND", "reasoning": "r1234",
                                         "chunk_chars": 3, "hold_before": "END"}]}
        ]))
        .unwrap_or_else(|e| panic!("{e}"));
        let (reply, hold) = answer(
            &s,
            &json!({"messages": [{"role": "user", "content": "slow"}]}),
        );
        let Reply::Stream(st) = reply else {
            panic!("expected text")
        };
        let lines = sse_lines(&st, false, "m");
        let at = hold.expect("a hold");
        // role, 2 reasoning chunks (r12, 34), the content chunks before the marker (abc, def)
        assert_eq!(at, 5);
        assert!(lines[at].contains("\"content\":\"END\""), "{}", lines[at]);
        assert!(
            lines[at - 1].contains("\"content\":\"def\""),
            "{}",
            lines[at - 1]
        );
    }

    #[test]
    fn a_bad_script_names_the_problem() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("s.json");
        std::fs::write(&path, r#"[{"match": "a", "turns": [{"txt": "x"}]}]"#)
            .unwrap_or_else(|e| panic!("{e}"));
        let err = load_script(path.to_str().unwrap_or_default())
            .err()
            .map(|e| format!("{e:#}"))
            .unwrap_or_default();
        assert!(err.contains("a turn is"), "{err}");
        std::fs::write(&path, r#"[{"match": "a", "turns": []}]"#).unwrap_or_else(|e| panic!("{e}"));
        let err = load_script(path.to_str().unwrap_or_default())
            .err()
            .map(|e| format!("{e:#}"))
            .unwrap_or_default();
        assert!(err.contains("has no turns"), "{err}");
    }
}
