//! `submit_task`: the local platform tool a designer run ends with. The draft goes through the
//! task validator (every error at its path goes back to the model, which fixes and submits
//! again), then two checks of designer mode's own: coordinates are refused where the exploration
//! listed controls (unless the step's note says why a point is needed), and selectors no
//! observation matched are held back once so the model can check them. A draft that passes
//! ends the run; it becomes a task only when a person saves it.

use std::collections::BTreeSet;

use deft_protocol::{DraftIssue, DraftOutcome};
use deft_tasks::Task;
use deft_tasks::step::Action;
use deft_tasks::validate::{DeviceKind, Issue, Options, Report, validate_task};
use serde_json::{Map, Value};

use crate::evidence::Evidence;
use crate::texts;

/// What a submission came to.
pub enum Verdict {
    /// Refused: the text tells the model why (each problem at its path).
    Refused(String),
    /// Accepted: the draft, the answer to the model and the run's final answer.
    Accepted {
        /// The draft.
        draft: DraftOutcome,
        /// The tool's answer.
        reply: String,
        /// The run's final answer.
        answer: String,
    },
}

/// A designer run's submissions.
#[derive(Debug, Default)]
pub struct Submissions {
    /// Drafts refused so far.
    pub refused: u32,
    /// Errors of the last refused draft.
    pub last_errors: usize,
    /// Unseen selectors already reported to the model (path and text), accepted when they come
    /// again unchanged.
    held: BTreeSet<String>,
}

impl Submissions {
    /// Judges the arguments of one `submit_task` call for a run on `device` (`kind`).
    pub fn judge(
        &mut self,
        args: &Map<String, Value>,
        device: &str,
        kind: DeviceKind,
        evidence: &Evidence,
    ) -> Verdict {
        let mut value = match task_value(args) {
            Ok(v) => v,
            Err(text) => return self.refuse(text, 1),
        };
        if let Value::Object(o) = &mut value
            && o.get("device").is_none_or(Value::is_null)
        {
            o.insert("device".into(), Value::String(device.to_owned()));
        }
        let options = Options {
            device: Some(kind),
            ..Options::default()
        };
        let (task, report) = match validate_task(&value, &options).into_result() {
            Ok(valid) => valid,
            Err(report) => {
                let n = report.errors.len();
                return self.refuse(texts::refused(&report.errors, &report.warnings), n);
            }
        };
        let coordinates = coordinate_errors(&task, evidence);
        if !coordinates.is_empty() {
            let n = coordinates.len();
            return self.refuse(texts::refused(&coordinates, &report.warnings), n);
        }
        let unseen = evidence.unseen(&task);
        let new: Vec<DraftIssue> = unseen
            .iter()
            .filter(|i| !self.held.contains(&key(i)))
            .cloned()
            .collect();
        if !new.is_empty() {
            self.held.extend(new.iter().map(key));
            return self.refuse(texts::unseen_held(&new), 0);
        }
        accept(&task, &report, unseen)
    }

    fn refuse(&mut self, text: String, errors: usize) -> Verdict {
        self.refused += 1;
        self.last_errors = errors;
        Verdict::Refused(text)
    }
}

/// The accepted draft: the task as the validator built it (defaults written out, so it
/// validates as it is), the validator's warnings and the unseen selectors.
fn accept(task: &Task, report: &Report, unseen: Vec<DraftIssue>) -> Verdict {
    let mut warnings: Vec<DraftIssue> = report
        .warnings
        .iter()
        .map(|w| DraftIssue::new(w.path.clone(), w.message.clone()))
        .collect();
    warnings.extend(unseen);
    let steps = task.step_count();
    let n = warnings.len();
    let draft = DraftOutcome::Draft {
        task: serde_json::to_value(task).unwrap_or(Value::Null),
        warnings,
    };
    Verdict::Accepted {
        draft,
        reply: texts::accepted(&task.name, steps, n),
        answer: texts::drafted(&task.name, steps, n),
    }
}

fn key(issue: &DraftIssue) -> String {
    format!("{}\u{1f}{}", issue.path, issue.message)
}

/// The task the model submitted: `{"task": {...}}`, the task as JSON text, or (leniently) the
/// task's own fields at the top level.
fn task_value(args: &Map<String, Value>) -> Result<Value, String> {
    match args.get("task") {
        Some(Value::Object(_)) => Ok(args["task"].clone()),
        Some(Value::String(text)) => serde_json::from_str::<Value>(text).map_err(|_| {
            // The validator says where the JSON breaks.
            let report = validate_task(text.as_str(), &Options::default()).report;
            texts::refused(&report.errors, &[])
        }),
        Some(other) => Err(texts::task_not_an_object(deft_agent::texts::json_kind(
            other,
        ))),
        None if args.contains_key("steps") => Ok(Value::Object(args.clone())),
        None => Err(texts::NO_TASK.to_owned()),
    }
}

/// `click_xy` and `gesture` steps without a note, when the exploration listed controls.
fn coordinate_errors(task: &Task, evidence: &Evidence) -> Vec<Issue> {
    if !evidence.saw_controls() {
        return Vec::new();
    }
    task.walk()
        .into_iter()
        .filter(|(_, r)| {
            matches!(r.step.action, Action::ClickXy(_) | Action::Gesture(_))
                && r.step.note.as_deref().is_none_or(|n| n.trim().is_empty())
        })
        .map(|(path, r)| {
            Issue::new(
                format!("{path}.type"),
                texts::coordinates_refused(r.step.step_type().as_str(), evidence.answers()),
            )
        })
        .collect()
}
