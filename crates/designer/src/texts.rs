//! Every text designer mode writes for the model (`submit_task`'s description and answers) and
//! for the person (the warnings of a draft, why a run ended without one). Part of the prompt:
//! keep them stable; tests check them.

use deft_protocol::DoneStatus;
use deft_protocol::selector::Selector;
use deft_tasks::validate::Issue;

/// `submit_task`'s description.
pub const SUBMIT_DESCRIPTION: &str = "Submit the task you designed, as one task file: {\"task\": {\"name\": …, \"steps\": [...]}} in deft's step language. deft checks it: when it lists errors (each at its path, such as steps[2].selector), fix them and submit the whole task again. An accepted task ends your work; a person reviews it before it is saved or scheduled.";

/// `submit_task`'s `task` parameter.
pub const TASK_PARAMETER: &str =
    "The task file: name, steps, and optionally device, variables, on_error, timeout_s.";

/// The most issues one answer lists; the rest are counted.
pub const MAX_LISTED: usize = 20;

/// `submit_task`'s check itself failed (a bug); the model may submit again.
pub fn crashed(detail: &str) -> String {
    format!(
        "deft could not check this submission (an internal error: {detail}); submit the task again"
    )
}

/// `submit_task` called without a task.
pub const NO_TASK: &str = "submit_task needs the task as {\"task\": {\"name\": \"…\", \"steps\": [...]}}; nothing was submitted. Call it again with the whole task.";

/// `submit_task` with a `task` that is neither an object nor JSON text.
pub fn task_not_an_object(kind: &str) -> String {
    format!(
        "submit_task's task must be the task file as a JSON object, not {kind}; nothing was submitted. Call it again with {{\"task\": {{\"name\": \"…\", \"steps\": [...]}}}}."
    )
}

/// The answer to a draft with errors: each at its path, then what to do.
pub fn refused(errors: &[Issue], warnings: &[Issue]) -> String {
    let mut out = format!(
        "The task was not accepted: {}. Fix each at its path and call submit_task again with the whole task.\n",
        count(errors.len(), "error", "errors")
    );
    list(&mut out, errors.iter().map(ToString::to_string));
    if !warnings.is_empty() {
        out.push_str("Warnings (valid, but check them):\n");
        list(&mut out, warnings.iter().map(ToString::to_string));
    }
    out.trim_end().to_owned()
}

/// A `click_xy` or `gesture` step without a note, in a run that saw controls.
pub fn coordinates_refused(kind: &str, answers: usize) -> String {
    format!(
        "{kind} uses coordinates, but your exploration listed controls ({}): a point breaks when the window moves, resizes or changes. Act on the control with a selector (find it with find_controls). Only if no control is there (a canvas, a map, a picture), keep {kind} and say why in the step's note.",
        count(answers, "answer", "answers")
    )
}

/// The answer to a valid draft whose selectors were not all seen: held back once.
pub fn unseen_held(issues: &[deft_protocol::DraftIssue]) -> String {
    let mut out = format!(
        "Not accepted yet: {} of the task matched no control during your exploration, so the task may fail where they are used. Check each with find_controls on the screen where its step runs, fix its text, type or match if needed, and submit again. A selector you submit again unchanged is accepted as it is, with a warning for the person who reviews the task.\n",
        count(issues.len(), "selector", "selectors")
    );
    list(&mut out, issues.iter().map(ToString::to_string));
    out.trim_end().to_owned()
}

/// The answer to an accepted draft.
pub fn accepted(name: &str, steps: usize, warnings: usize) -> String {
    format!(
        "Accepted: the task \"{name}\" ({}, {}) is the draft; a person reviews it next. You are done.",
        count(steps, "step", "steps"),
        count(warnings, "warning", "warnings")
    )
}

/// The run's final answer when a draft was accepted.
pub fn drafted(name: &str, steps: usize, warnings: usize) -> String {
    format!(
        "Drafted the task \"{name}\": {}, {}.",
        count(steps, "step", "steps"),
        count(warnings, "warning", "warnings")
    )
}

/// The warning of a selector no observation matched.
pub fn unseen(selector: &Selector, answers: usize) -> String {
    format!(
        "no control seen during the exploration matches {selector} (checked against {} of listings, find_controls and wait_for_control); the step may fail when the task runs — check the selector with find_controls",
        count(answers, "answer", "answers")
    )
}

/// The warning of a selector whose text has a variable with no value before the run.
pub fn unchecked(why: &str) -> String {
    format!("not checked against the exploration: {why}")
}

/// Why a designer run ended without a valid draft. `refused`: how many drafts were refused,
/// and the errors of the last one.
pub fn no_draft(
    status: DoneStatus,
    answer: &str,
    tool_calls: u32,
    refused: Option<(u32, usize)>,
) -> String {
    let answer = short(answer.trim(), 300);
    let why = match status {
        DoneStatus::MaxSteps => format!(
            "the exploration used its {tool_calls} tool calls without submitting a valid task"
        ),
        DoneStatus::Stopped => "the run was stopped before a valid task was submitted".to_owned(),
        DoneStatus::Timeout => {
            format!("the run timed out before a valid task was submitted ({answer})")
        }
        DoneStatus::Failed => format!("the run failed before a valid task was submitted: {answer}"),
        DoneStatus::Completed if answer.is_empty() => {
            "the model ended without submitting a task, and without a word".to_owned()
        }
        DoneStatus::Completed => {
            format!("the model ended without submitting a task: \"{answer}\"")
        }
    };
    match refused {
        Some((n, errors)) => format!(
            "{why} ({} refused; the last one had {})",
            count(n as usize, "submitted draft was", "submitted drafts were"),
            count(errors, "error", "errors")
        ),
        None => why,
    }
}

fn list(out: &mut String, items: impl ExactSizeIterator<Item = String>) {
    let total = items.len();
    for item in items.take(MAX_LISTED) {
        out.push_str("- ");
        out.push_str(&item);
        out.push('\n');
    }
    if total > MAX_LISTED {
        out.push_str(&format!("- … and {} more\n", total - MAX_LISTED));
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}
