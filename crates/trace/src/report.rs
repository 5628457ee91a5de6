//! `report.html`: a static page (no script) a person opens from the trace folder.

use std::fmt::Write as _;

use deft_protocol::EventKind;
use deft_protocol::event::DeltaKind;

use crate::{Line, TraceMeta};

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2330}
header{background:#1d2330;color:#fff;padding:16px 24px}header h1{margin:0 0 6px;font-size:18px}
header .meta span{margin-right:18px;opacity:.85}
main{max-width:1100px;margin:0 auto;padding:16px}
.card{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;margin:12px 0;padding:12px 16px}
.card h2{font-size:15px;margin:0 0 6px}.dur{float:right;color:#667;font-weight:normal}
.ok{color:#137333}.fail{color:#b3261e}.skip{color:#8a6d00}
pre{background:#f0f2f5;padding:8px;border-radius:6px;white-space:pre-wrap;word-break:break-word;max-height:320px;overflow:auto;margin:6px 0}
details summary{cursor:pointer;color:#556}
.thumbs label{display:inline-block;margin:4px}.thumbs input{display:none}
.thumbs img{width:200px;border:1px solid #ccd;border-radius:4px;cursor:zoom-in}
.thumbs input:checked+img{width:min(1060px,95vw);cursor:zoom-out}
.answer{border-left:4px solid #1a73e8}.error{border-left:4px solid #b3261e}
"#;

/// The report for `lines`, with `images` (`(id, file)`) under `images/`.
pub fn render_report(
    meta: &TraceMeta,
    lines: &[Line],
    images: &[(String, String)],
    broken: Option<&str>,
) -> String {
    let file_of = |id: &str| {
        images
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, f)| f.as_str())
    };
    let started = lines.first().map(|l| l.ts_ms).unwrap_or(0);
    let ended = lines.last().map(|l| l.ts_ms).unwrap_or(started);
    let mut body = String::new();
    let mut reasoning = String::new();
    let mut content = String::new();
    let mut steps = 0;
    let mut status = "running".to_owned();
    let mut tokens = String::from("—");
    let flush_text = |body: &mut String, reasoning: &mut String, content: &mut String| {
        if !reasoning.is_empty() {
            let _ = write!(
                body,
                "<div class=card><details><summary>Reasoning</summary><pre>{}</pre></details></div>",
                esc(reasoning)
            );
            reasoning.clear();
        }
        if !content.is_empty() {
            let _ = write!(body, "<div class=card><pre>{}</pre></div>", esc(content));
            content.clear();
        }
    };
    for line in lines {
        match &line.event.kind {
            EventKind::Delta {
                text,
                kind: DeltaKind::Reasoning,
            } => reasoning.push_str(text),
            EventKind::Delta {
                text,
                kind: DeltaKind::Content,
            } => content.push_str(text),
            EventKind::StepStart { .. } | EventKind::Usage(_) => {}
            EventKind::Step {
                call_id,
                tool,
                args,
                result,
                image_ids,
                duration_ms,
                effect,
            } => {
                flush_text(&mut body, &mut reasoning, &mut content);
                steps += 1;
                let st = result.get("status").and_then(|s| s.as_str()).unwrap_or("");
                let class = match st {
                    "success" => "ok",
                    "skipped" => "skip",
                    _ => "fail",
                };
                let _ = write!(
                    body,
                    "<div class=\"card step\" id=\"{}\"><h2>{steps}. {} <span class={class}>{}</span>{}<span class=dur>{} ms</span></h2>",
                    esc(call_id),
                    esc(tool),
                    esc(st),
                    effect
                        .as_deref()
                        .map(|e| format!(" · {}", esc(e)))
                        .unwrap_or_default(),
                    duration_ms
                );
                let _ = write!(
                    body,
                    "<details><summary>arguments</summary><pre>{}</pre></details>",
                    esc(&pretty(args))
                );
                let shown = match (
                    result.get("error").and_then(|e| e.as_str()),
                    result.get("result"),
                ) {
                    (Some(e), _) if st != "success" => e.to_owned(),
                    (_, Some(serde_json::Value::String(s))) => s.clone(),
                    (_, Some(v)) => pretty(v),
                    _ => String::new(),
                };
                let _ = write!(body, "<pre>{}</pre>", esc(&shown));
                if !image_ids.is_empty() {
                    body.push_str("<div class=thumbs>");
                    for id in image_ids {
                        match file_of(id) {
                            Some(f) => {
                                let _ = write!(
                                    body,
                                    "<label><input type=checkbox><img src=\"images/{}\" alt=\"{}\" loading=lazy></label>",
                                    esc(f),
                                    esc(id)
                                );
                            }
                            None => {
                                let _ = write!(
                                    body,
                                    "<span class=fail>image {} was not saved</span>",
                                    esc(id)
                                );
                            }
                        }
                    }
                    body.push_str("</div>");
                }
                body.push_str("</div>");
            }
            EventKind::Confirm { tool, reason, .. } => {
                let _ = write!(
                    body,
                    "<div class=card><b>Approval asked</b> for {}: {}</div>",
                    esc(tool),
                    esc(reason)
                );
            }
            EventKind::Confirmed { approve, .. } => {
                let _ = write!(
                    body,
                    "<div class=card>Approval {}</div>",
                    if *approve { "granted" } else { "denied" }
                );
            }
            EventKind::Error { message } => {
                flush_text(&mut body, &mut reasoning, &mut content);
                let _ = write!(
                    body,
                    "<div class=\"card error\"><b>Error:</b> {}</div>",
                    esc(message)
                );
            }
            EventKind::Done {
                answer,
                usage,
                status: s,
            } => {
                reasoning.clear();
                content.clear();
                status = serde_json::to_value(s)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                tokens = format!(
                    "{} prompt + {} completion = {} tokens in {} calls",
                    usage.prompt_tokens, usage.completion_tokens, usage.total_tokens, usage.calls
                );
                let _ = write!(
                    body,
                    "<div class=\"card answer\"><h2>Answer ({})</h2><pre>{}</pre></div>",
                    esc(&status),
                    esc(answer)
                );
            }
        }
    }
    flush_text(&mut body, &mut reasoning, &mut content);
    let warn = broken
        .map(|b| {
            format!(
                "<div class=\"card error\">This trace is incomplete: {}</div>",
                esc(b)
            )
        })
        .unwrap_or_default();
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>deft run — {title}</title><style>{STYLE}</style></head><body>\
<header><h1>{goal}</h1><div class=meta><span>device {device}</span><span>model {model}</span><span>status {status}</span>\
<span>{steps} steps</span><span>{secs:.1} s</span><span>{tokens}</span></div></header><main>{warn}{body}</main></body></html>\n",
        title = esc(&meta.goal.chars().take(60).collect::<String>()),
        goal = esc(&meta.goal),
        device = esc(&meta.device),
        model = esc(&meta.model),
        status = esc(&status),
        secs = (ended.saturating_sub(started)) as f64 / 1000.0,
        tokens = esc(&tokens),
    )
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
