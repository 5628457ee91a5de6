//! `report.html`: a static page (no script) a person opens from the trace folder.

use std::fmt::Write as _;

use deft_protocol::event::DeltaKind;
use deft_protocol::memory::MemoryNote;
use deft_protocol::task_run::{StepStatus, TaskStepResult};
use deft_protocol::{DoneStatus, EventKind, ResultStatus, RunStatus, ToolStep, Usage};

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
    let mut page = Page::new(images);
    for line in lines {
        page.add(&line.event.kind);
    }
    page.flush_text();
    let started = lines.first().map(|l| l.ts_ms).unwrap_or(0);
    let ended = lines.last().map(|l| l.ts_ms).unwrap_or(started);
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
        status = esc(page.status),
        steps = page.steps,
        secs = (ended.saturating_sub(started)) as f64 / 1000.0,
        tokens = esc(&page.tokens),
        body = page.body,
    )
}

/// The report's body as the events come in: streamed text is held until something else
/// happens, then written as one card.
struct Page<'a> {
    images: &'a [(String, String)],
    body: String,
    reasoning: String,
    content: String,
    steps: usize,
    status: &'static str,
    tokens: String,
}

impl<'a> Page<'a> {
    fn new(images: &'a [(String, String)]) -> Self {
        Page {
            images,
            body: String::new(),
            reasoning: String::new(),
            content: String::new(),
            steps: 0,
            status: RunStatus::RUNNING,
            tokens: String::from("—"),
        }
    }

    fn add(&mut self, kind: &EventKind) {
        match kind {
            EventKind::Delta {
                text,
                kind: DeltaKind::Reasoning,
            } => self.reasoning.push_str(text),
            EventKind::Delta {
                text,
                kind: DeltaKind::Content,
            } => self.content.push_str(text),
            EventKind::StepStart { .. } | EventKind::Usage(_) | EventKind::TaskStepStart(_) => {}
            EventKind::TaskStep(step) => {
                self.flush_text();
                self.task_step(step);
            }
            EventKind::TaskStepRetry(r) => {
                self.flush_text();
                let _ = write!(
                    self.body,
                    "<div class=card>{} attempt {} of {} failed: {}; retrying in {} ms</div>",
                    esc(&r.path),
                    r.attempt,
                    r.attempts,
                    esc(&r.error),
                    r.delay_ms
                );
            }
            EventKind::TaskRound(r) => {
                self.flush_text();
                let values: Vec<String> = r
                    .values
                    .iter()
                    .map(|(k, v)| format!("{}={}", esc(k), esc(v)))
                    .collect();
                let _ = write!(
                    self.body,
                    "<div class=card>{} round {} of {}: {}</div>",
                    esc(&r.path),
                    r.round,
                    r.rounds,
                    values.join(", ")
                );
            }
            EventKind::Step(step) => {
                self.flush_text();
                self.step(step);
            }
            EventKind::Confirm { tool, reason, .. } => {
                let _ = write!(
                    self.body,
                    "<div class=card><b>Approval asked</b> for {}: {}</div>",
                    esc(tool),
                    esc(reason)
                );
            }
            EventKind::Confirmed { approve, .. } => {
                let _ = write!(
                    self.body,
                    "<div class=card>Approval {}</div>",
                    if *approve { "granted" } else { "denied" }
                );
            }
            EventKind::Memory(note) => {
                self.flush_text();
                self.memory(note);
            }
            EventKind::Error { message } => {
                self.flush_text();
                let _ = write!(
                    self.body,
                    "<div class=\"card error\"><b>Error:</b> {}</div>",
                    esc(message)
                );
            }
            EventKind::Done {
                answer,
                usage,
                status,
                draft,
                warnings,
                draft_error,
                output,
                ..
            } => {
                self.done(answer, usage, *status);
                self.draft(draft.as_ref(), warnings.as_deref(), draft_error.as_deref());
                if let Some(typed) = output {
                    self.typed(typed);
                }
            }
        }
    }

    /// Writes the held reasoning and answer text as cards.
    fn flush_text(&mut self) {
        if !self.reasoning.is_empty() {
            let _ = write!(
                self.body,
                "<div class=card><details><summary>Reasoning</summary><pre>{}</pre></details></div>",
                esc(&self.reasoning)
            );
            self.reasoning.clear();
        }
        if !self.content.is_empty() {
            let _ = write!(
                self.body,
                "<div class=card><pre>{}</pre></div>",
                esc(&self.content)
            );
            self.content.clear();
        }
    }

    fn step(&mut self, step: &ToolStep) {
        self.steps += 1;
        let status = step.status();
        let (class, name) = match status {
            Some(ResultStatus::Success) => ("ok", "success"),
            Some(ResultStatus::Skipped) => ("skip", "skipped"),
            Some(ResultStatus::Failure) => ("fail", "failure"),
            None => ("fail", ""),
        };
        let _ = write!(
            self.body,
            "<div class=\"card step\" id=\"{}\"><h2>{}. {} <span class={class}>{name}</span>{}<span class=dur>{} ms</span></h2>",
            esc(&step.call_id),
            self.steps,
            esc(&step.tool),
            step.effect
                .as_deref()
                .map(|e| format!(" · {}", esc(e)))
                .unwrap_or_default(),
            step.duration_ms
        );
        let _ = write!(
            self.body,
            "<details><summary>arguments</summary><pre>{}</pre></details>",
            esc(&pretty(&step.args))
        );
        let failed = status != Some(ResultStatus::Success);
        let shown = match (
            step.result.get("error").and_then(|e| e.as_str()),
            step.result.get("result"),
        ) {
            (Some(e), _) if failed => e.to_owned(),
            (_, Some(serde_json::Value::String(s))) => s.clone(),
            (_, Some(v)) => pretty(v),
            _ => String::new(),
        };
        let _ = write!(self.body, "<pre>{}</pre>", esc(&shown));
        self.thumbnails(&step.image_ids);
        self.body.push_str("</div>");
    }

    /// A memory card: what happened to which experiences or actions, and why.
    fn memory(&mut self, note: &MemoryNote) {
        let _ = write!(
            self.body,
            "<div class=\"card memory\"><b>{} {}</b>: {}<ul>",
            esc(note.kind.as_str()),
            esc(note.outcome.as_str()),
            esc(&note.note)
        );
        for item in &note.items {
            let _ = write!(self.body, "<li>{}", esc(&item.title));
            if let Some(score) = item.score {
                let _ = write!(self.body, " <span class=dur>{score:.2}</span>");
            }
            if let Some(reason) = &item.reason {
                let _ = write!(self.body, " — {}", esc(reason));
            }
            self.body.push_str("</li>");
        }
        self.body.push_str("</ul></div>");
    }

    /// A task step: its path and type, how it ended, the control it matched (its name, else its
    /// value; how a tie was broken; what its selector said when the match had to be healed),
    /// the error.
    fn task_step(&mut self, step: &TaskStepResult) {
        let class = match step.status {
            StepStatus::Ok => "ok",
            StepStatus::Failed => "fail",
            StepStatus::Skipped => "skip",
        };
        let _ = write!(
            self.body,
            "<div class=\"card task-step\"><h2>{} <code>{}</code> <span class={class}>{}</span><span class=dur>{} ms</span></h2>",
            esc(&step.step_type),
            esc(&step.path),
            step.status.as_str(),
            step.duration_ms
        );
        if let Some(m) = &step.matched {
            let _ = write!(
                self.body,
                "<div>matched {} {} \"{}\" (score {})</div>",
                esc(&m.id),
                esc(&m.kind),
                esc(m.label()),
                m.score
            );
            if let Some(tie) = &m.tie {
                let _ = write!(self.body, "<div class=skip>tie: {}</div>", esc(tie));
            }
        }
        if let Some(h) = &step.healed_from {
            let _ = write!(self.body, "<div class=skip>healed from {}</div>", esc(h));
        }
        if let Some(e) = &step.error {
            let _ = write!(self.body, "<pre>{}</pre>", esc(e));
        }
        self.thumbnails(&step.image_ids);
        self.body.push_str("</div>");
    }

    fn thumbnails(&mut self, image_ids: &[String]) {
        if image_ids.is_empty() {
            return;
        }
        self.body.push_str("<div class=thumbs>");
        for id in image_ids {
            match self.images.iter().find(|(i, _)| i == id) {
                Some((_, file)) => {
                    let _ = write!(
                        self.body,
                        "<label><input type=checkbox><img src=\"images/{}\" alt=\"{}\" loading=lazy></label>",
                        esc(file),
                        esc(id)
                    );
                }
                None => {
                    let _ = write!(
                        self.body,
                        "<span class=fail>image {} was not saved</span>",
                        esc(id)
                    );
                }
            }
        }
        self.body.push_str("</div>");
    }

    fn done(&mut self, answer: &str, usage: &Usage, status: DoneStatus) {
        // The answer card replaces the streamed text of the last turn.
        self.reasoning.clear();
        self.content.clear();
        self.status = status.as_str();
        self.tokens = format!(
            "{} prompt + {} completion = {} tokens in {} calls",
            usage.prompt_tokens, usage.completion_tokens, usage.total_tokens, usage.calls
        );
        let _ = write!(
            self.body,
            "<div class=\"card answer\"><h2>Answer ({})</h2><pre>{}</pre></div>",
            esc(self.status),
            esc(answer)
        );
    }
}

impl Page<'_> {
    /// A run with an output schema: the value it gave, or why its answer is not valid.
    fn typed(&mut self, typed: &deft_protocol::TypedResult) {
        let repaired = if typed.repaired {
            " (after a repair turn)"
        } else {
            ""
        };
        match (&typed.value, typed.valid) {
            (Some(value), true) => {
                let _ = write!(
                    self.body,
                    "<div class=\"card answer\"><h2>Typed result: valid{repaired}</h2><pre>{}</pre></div>",
                    esc(&pretty(value))
                );
            }
            _ => {
                let listed: String = typed
                    .errors
                    .iter()
                    .map(|e| format!("<li><code>{}</code> {}</li>", esc(&e.path), esc(&e.message)))
                    .collect();
                let _ = write!(
                    self.body,
                    "<div class=\"card error\"><h2>Typed result: not valid{repaired}</h2><ul>{listed}</ul><pre>{}</pre></div>",
                    esc(typed.raw.as_deref().unwrap_or_default())
                );
            }
        }
    }

    /// Designer mode: the drafted task with its warnings, or why there is none.
    fn draft(
        &mut self,
        draft: Option<&serde_json::Value>,
        warnings: Option<&[deft_protocol::DraftIssue]>,
        error: Option<&str>,
    ) {
        if let Some(task) = draft {
            let listed: String = warnings
                .unwrap_or_default()
                .iter()
                .map(|w| format!("<li>{}</li>", esc(&w.to_string())))
                .collect();
            let _ = write!(
                self.body,
                "<div class=\"card answer\"><h2>Task draft</h2><pre>{}</pre>{}</div>",
                esc(&pretty(task)),
                if listed.is_empty() {
                    String::new()
                } else {
                    format!("<b>Warnings</b><ul>{listed}</ul>")
                }
            );
        }
        if let Some(why) = error {
            let _ = write!(
                self.body,
                "<div class=\"card error\"><b>No task draft:</b> {}</div>",
                esc(why)
            );
        }
    }
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
