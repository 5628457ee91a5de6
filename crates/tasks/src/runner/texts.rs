//! What a task run says when a step cannot do its work: the error texts of step results,
//! written for the person reading the run history.

use deft_protocol::selector::Selector;

/// A control step before any window was opened or selected.
pub const NO_WINDOW: &str = "no window is selected: start the task with open_app (or a step that selects a window) before steps that locate controls";

/// A tool failed without saying why.
pub fn tool_failed_without_text(tool: &str) -> String {
    format!("{tool} failed without an error text")
}

/// A selector matched nothing, not even fuzzily.
pub fn not_found(selector: &Selector, note: &str) -> String {
    let why = if note.is_empty() {
        String::new()
    } else {
        format!(" ({note})")
    };
    format!("no control matches {selector}{why}; a fuzzy retry found nothing either")
}

/// `find_controls` answered something that is not its JSON form.
pub fn find_answer_unreadable(answer: &str) -> String {
    let head: String = answer.chars().take(120).collect();
    format!("find_controls did not answer in its JSON form: {head}")
}

/// A run asked to play both `until` and `only`.
pub const SCOPE_BOTH: &str = "give either until (run the task up to and including a step) or only (run one step alone), not both";

/// A run's `until` / `only` names a path where the task has no step.
pub fn no_step_at(path: &str, top_level: usize) -> String {
    let last = top_level.saturating_sub(1);
    format!(
        "the task has no step at {path} (its top-level steps are steps[0] to steps[{last}]); give the path of one of its steps as the validator writes it, such as steps[1] or steps[2].then[0]"
    )
}

/// How a run to a step ends once that step has run.
pub fn ran_until(path: &str) -> String {
    format!("ran up to and including {path}; the device is left as that step left it")
}

/// A step or run cut short by a stop.
pub const STOPPED: &str = "stopped by a person";

/// `mark_done` without a message.
pub const MARKED_DONE: &str = "the task marked itself done";

/// `stop_self` without a message.
pub const STOPPED_ITSELF: &str = "the task stopped itself";

/// A horizontal swipe (the shared wheel tool turns only vertically).
pub const HORIZONTAL_SWIPE: &str = "left and right swipes are not supported on this device yet: the wheel tool scrolls up and down";

/// A container step handed to the code of another kind of step (a bug, never a task's fault).
pub fn not_a_container(what: &str) -> String {
    format!("internal: {what} was run as a container step, which it is not")
}

/// A container step handed to the code of leaf steps (a bug, never a task's fault).
pub fn container_as_leaf(step_type: &str) -> String {
    format!("internal: {step_type} is a container and runs its sub-steps")
}

/// A step of an `if_el` whose condition failed (its variable had no value, no window was
/// selected): neither branch runs.
pub const CONDITION_UNCHECKED: &str = "not run: the condition could not be checked";

/// A step after the one that stopped the run.
pub fn not_run(stopped_at: &str) -> String {
    format!("not run: the run ended at {stopped_at}")
}

/// The run ends because a step failed and its `on_error` is `stop`.
pub fn failed_at(path: &str) -> String {
    format!("{path} failed")
}

/// A leaf step passed its limit.
pub fn step_timeout(limit: std::time::Duration) -> String {
    format!(
        "the step did not finish within its timeout of {} s",
        limit.as_secs_f64()
    )
}

/// The step in flight (or kept from starting) when a container's `timeout_s` passed.
pub fn container_timeout_in_step(
    step_type: &str,
    path: &str,
    limit: std::time::Duration,
) -> String {
    format!(
        "the {step_type} at {path} passed its timeout of {} s while this step ran",
        limit.as_secs_f64()
    )
}

/// A step a container's passed `timeout_s` kept from starting.
pub fn not_run_in_time(step_type: &str, path: &str) -> String {
    format!("not run: the {step_type} at {path} had passed its timeout")
}

/// The whole run passed its limit.
pub fn run_timeout(limit: std::time::Duration) -> String {
    format!("the run passed its timeout of {} s", limit.as_secs_f64())
}

/// The step in flight when the run passed its limit.
pub fn run_timeout_in_step(limit: std::time::Duration) -> String {
    format!(
        "the run passed its timeout of {} s while this step ran",
        limit.as_secs_f64()
    )
}

/// A step type this device has no tool for.
pub fn not_supported(step_type: &str, device: &str) -> String {
    format!("{step_type} is not supported on this device ({device}): it has no tool for it")
}

/// `stop_app` in a browser with no tab of the app.
pub fn no_tab_of(app: &str, device: &str) -> String {
    format!(
        "no tab of {app} is open on {device}: stop_app closes the tabs whose app (the page's host, as the tab list shows it: \"example.org\", \"file\") is {app}"
    )
}

/// `stop_app` in a browser closed the app's tabs.
pub fn closed_tabs(app: &str, n: usize) -> String {
    format!("closed {n} tab(s) of {app}")
}

/// `launch_app` answered without the window it opened.
pub fn launched_without_window(app: &str) -> String {
    format!("{app} started but the device did not say which window it opened")
}

/// `open_app` selected the app's window (`title`, when the device said it), found as
/// `found_by` says (`launch_app`'s rule: `already_open`, `descendant`, `new_tab`, …).
pub fn opened_window(app: &str, id: &str, title: Option<&str>, found_by: Option<&str>) -> String {
    let title = title.map(|t| format!(" {t:?}")).unwrap_or_default();
    let how = match found_by {
        Some("already_open") => " (already open: nothing was started)".to_owned(),
        Some("new_tab") => " (its running instance took the request: a new tab)".to_owned(),
        Some("running_instance") => " (its running instance took the request)".to_owned(),
        Some(rule) => format!(" (found by {rule})"),
        None => String::new(),
    };
    format!("{app} opened in window {id}{title}{how}")
}

/// A `clipboard` step set the clipboard.
pub fn clipboard_set(chars: usize) -> String {
    format!("put {chars} character{} on the clipboard", plural(chars))
}

/// A `clipboard` step read the clipboard into a variable.
pub fn clipboard_read(name: &str, chars: usize) -> String {
    format!(
        "read {chars} character{} into {{{{{name}}}}}",
        plural(chars)
    )
}

/// `get_clipboard` answered without its text.
pub fn clipboard_answer_unreadable(answer: &serde_json::Value) -> String {
    let head: String = answer.to_string().chars().take(120).collect();
    format!("get_clipboard did not answer with a text: {head}")
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// How long a `wait_el` waited.
pub fn waited(ms: u64) -> String {
    format!("waited {ms} ms")
}

/// How many swipes a `swipe_until` took.
pub fn swipes_taken(n: u32) -> String {
    format!("{n} swipe{}", if n == 1 { "" } else { "s" })
}

/// A `swipe_until` that never saw its control.
pub fn swipe_until_missed(selector: &Selector, max: u32) -> String {
    format!("no control matches {selector} after {max} swipes")
}

/// How many rounds a loop ran.
pub fn loop_rounds(n: u32) -> String {
    format!("{n} round{}", if n == 1 { "" } else { "s" })
}

/// A `while` / `until` loop that hit its cap.
pub fn loop_cap(max: u32, selector: &Selector, while_shown: bool) -> String {
    let cond = if while_shown {
        "still shows"
    } else {
        "has not shown"
    };
    format!("the loop reached its max of {max} rounds and {selector} {cond}")
}

/// Which branch an `if_el` took.
pub fn branch_taken(held: bool) -> String {
    format!("took {}", if held { "then" } else { "else" })
}

/// A step of the branch an `if_el` did not take.
pub fn branch_not_taken(held: bool) -> String {
    format!(
        "not run: the condition {} so {} was taken",
        if held { "held" } else { "did not hold" },
        if held { "then" } else { "else" }
    )
}

/// The run's one-line summary.
pub fn summary(ok: usize, failed: usize, skipped: usize, why: Option<&str>) -> String {
    let counts = format!("{ok} ok, {failed} failed, {skipped} skipped");
    match why {
        Some(w) => format!("{counts}: {w}"),
        None => counts,
    }
}

pub use crate::texts::csv_not_absolute;

/// The last of a step's attempts failed.
pub fn attempts_failed(attempts: u32, error: &str) -> String {
    format!("failed {attempts} attempts; the last: {error}")
}

/// What a step that worked on a later attempt adds to its message.
pub fn on_attempt(message: Option<&str>, attempt: u32, attempts: u32) -> String {
    match message {
        Some(m) if !m.is_empty() => format!("{m} (on attempt {attempt} of {attempts})"),
        _ => format!("on attempt {attempt} of {attempts}"),
    }
}

/// How many rounds a `for_each` ran.
pub fn for_each_rounds(n: usize) -> String {
    format!("{n} round{}", if n == 1 { "" } else { "s" })
}

/// A `for_each` whose source has more items than a loop may run rounds.
pub fn too_many_rounds(count: usize, max: usize, source: &str) -> String {
    format!(
        "{source} has {count} items; for_each runs at most {max} rounds, so none was run: split the data over several files or tasks"
    )
}

/// A `for_each`'s `variable` without a value when the loop starts.
pub fn for_each_variable_missing(name: &str) -> String {
    format!(
        "no value for the variable {name} that for_each reads: give it in the task's variables or the run request, or read it with a clipboard step that runs before this one"
    )
}

/// A `for_each`'s CSV file outside the allowed folders (`opened`: where it really is, links
/// resolved).
pub fn csv_outside(path: &str, opened: &std::path::Path, allowed: &[std::path::PathBuf]) -> String {
    let dirs: Vec<String> = allowed.iter().map(|d| d.display().to_string()).collect();
    let via = if std::path::Path::new(path) == opened {
        String::new()
    } else {
        format!(" (it leads to {})", opened.display())
    };
    let dirs = if dirs.is_empty() {
        "none is set".to_owned()
    } else {
        dirs.join(", ")
    };
    format!(
        "the csv file {path}{via} is outside the folders a task may read ({dirs}): move it into one of them, or add its folder to DEFT_DOCUMENT_DIRS where deft runs"
    )
}

/// A `for_each`'s CSV file that cannot be read.
pub fn csv_unreadable(path: &str, why: &str) -> String {
    format!("cannot read the csv file {path}: {why}")
}

/// A CSV file that is not UTF-8.
pub const CSV_NOT_UTF8: &str = "it is not UTF-8 text (save it as \"CSV UTF-8\")";

/// A CSV file past the size limit.
pub fn csv_too_large(path: &str, bytes: u64, max: u64) -> String {
    format!("the csv file {path} is {bytes} bytes; at most {max} are read: split it")
}

/// A CSV text whose quote never closes.
pub fn csv_open_quote(line: usize) -> String {
    format!("a quote opened on line {line} is never closed")
}
