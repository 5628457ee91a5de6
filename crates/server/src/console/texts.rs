//! Every text the console's API answers with: written for the person in front of the console,
//! saying what happened and what to do. Stable; tests check them.

/// 401 on a console route.
pub const LOGIN_REQUIRED: &str =
    "not logged in: log in to the console, or send 'Authorization: Bearer <api token>'";
/// 401 on a wrong login.
pub const WRONG_LOGIN: &str = "wrong username or password";
/// 403 without the CSRF header.
pub const CSRF: &str = "missing or wrong X-CSRF-Token header: reload the page (cookie-authenticated changes need the token from /api/auth/me)";
/// 400 on setup after an admin exists.
pub const SETUP_DONE: &str = "the console is set up already: log in instead";
/// 403 on a wrong setup token.
pub const SETUP_TOKEN: &str =
    "the setup link is wrong or was used already: use the link `deft serve` printed at its start";
/// 409 when another run holds the slot.
pub const RUN_ACTIVE: &str = "another run is active (one run at a time on this server): wait for it to finish or stop it first";
/// 409 on stop/confirm without a run.
pub const NO_RUN: &str = "no run is active";
/// 400 when no device was chosen and none is the default.
pub const NO_DEVICE: &str =
    "choose a device: pick one in the device list, or set a default device in the settings";
/// 400 on an empty prompt.
pub const EMPTY_PROMPT: &str = "the prompt is empty: say what the agent should do";
/// 400 when a designer run names a conversation.
pub const DESIGNER_NO_CONVERSATION: &str = "a designer run starts fresh and continues no conversation (designer mode sends no chat history): leave out \"conversation\"";
/// 404 when no task draft is kept.
pub const NO_DRAFT: &str = "no task draft is kept: run designer mode (\"mode\": \"designer\") to draft one, or give the task to try as \"draft\"";
/// 400 when a draft to try names no device.
pub const DRAFT_NO_DEVICE: &str =
    "the draft names no device: give \"device\", or set the task file's \"device\"";
/// The title prefix of a designer run's conversation.
pub const DESIGNER_TITLE: &str = "🧭 ";
/// 409 when deleting a conversation whose run is active.
pub const CONVERSATION_RUNNING: &str =
    "this conversation has an active run: stop it before deleting the conversation";

/// 429 after too many failed logins.
pub fn too_many_logins(retry_after_secs: u64) -> String {
    format!("too many failed logins from this address: try again in {retry_after_secs} s")
}

/// 400 for a short password.
pub fn short_password(min: usize) -> String {
    format!("the password must have at least {min} characters")
}

/// 404 for an unknown conversation.
pub fn unknown_conversation(id: &str) -> String {
    format!("unknown conversation '{id}' (deleted?): pick one from the list or start a new one")
}

/// 404 for an unknown run.
pub fn unknown_run(id: &str) -> String {
    format!("unknown run '{id}'")
}

/// 404 when no confirm question waits.
pub fn no_question(call_id: &str) -> String {
    format!(
        "no approval is waiting for the call '{call_id}' (answered already, timed out, or the run ended)"
    )
}

/// 400 when a model setting is missing.
pub fn missing_setting(what: &str) -> String {
    format!("the {what} is not set: open Settings (⚙) and set it, or start deft serve with it")
}

/// 404 for a run on a device that is not connected (or never was).
pub fn device_not_connected(id: &str, known: &[String]) -> String {
    format!(
        "the device '{id}' is not connected (connected devices: {}): start `deft client --id {id}` on it, or pick another device",
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        }
    )
}

/// 409 for a device without a screen.
pub fn no_screen(id: &str, profile: &str) -> String {
    format!("the device '{id}' has no screen to show (profile '{profile}')")
}

/// 400 for a bad settings value.
pub fn bad_setting(what: &str, detail: &str) -> String {
    format!("invalid {what}: {detail}")
}

/// The error and done text of a run a server restart cut off.
pub const RUN_INTERRUPTED: &str =
    "The server stopped during this run; it did not finish. Send the request again to retry.";

/// The answer of a run whose agent task panicked.
pub const RUN_CRASHED: &str = "the run stopped on an internal error (the server log has the details); send the request again to retry";

/// The store failed.
pub fn store_failed(detail: &str) -> String {
    format!("the console's database failed: {detail}")
}

/// 400 summary of a task or schedule that does not validate (the body lists every problem).
pub fn invalid_task(errors: &[deft_tasks::validate::Issue]) -> String {
    invalid("task", errors)
}

/// The summary of a refused `what` (a task, an action, an experience): its first error, and
/// how many more the body lists.
pub fn invalid(what: &str, errors: &[deft_tasks::validate::Issue]) -> String {
    match errors {
        [] => format!("the {what} is invalid"),
        [one] => format!("the {what} is invalid: {one}"),
        [first, rest @ ..] => format!(
            "the {what} is invalid: {first} (and {} more; see \"errors\")",
            rest.len()
        ),
    }
}

/// 404 for an unknown task.
pub fn unknown_task(id_or_name: &str) -> String {
    format!("no task has the id or name {id_or_name:?}: list the tasks with GET /api/tasks")
}

/// 400 for a task body larger than the validator reads.
pub fn task_body_too_large(max: usize) -> String {
    format!(
        "the task is larger than {max} bytes ({} KiB), the most a task file may be",
        max / 1024
    )
}

/// 400 (at `device`) for a device the server does not know.
pub fn task_device_unknown(device: &str, known: &[String]) -> String {
    format!(
        "no device {device:?} is known to this server (known: {}); name one of them, or connect the client first",
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        }
    )
}

/// 409 when another task has the name.
pub fn task_name_taken(name: &str) -> String {
    format!("a task named {name:?} exists already: choose another name or replace that task")
}

/// 409 when the task runs already.
pub fn task_running(name: &str, run_id: &str) -> String {
    format!(
        "the task {name:?} is running already (run {run_id}): one run at a time per task; stop it or wait for it to end"
    )
}

/// 409 when a draft is being tried already.
pub fn draft_running(run_id: &str) -> String {
    format!(
        "a draft is being tried already (run {run_id}): one at a time; stop it or wait for it to end"
    )
}

/// The answer kept with a designer run that ended without a draft.
pub fn no_task_draft(why: &str) -> String {
    format!("No task draft: {why}.")
}

/// 409 for an agent run, a batch or a task on a device a task run holds.
pub fn device_running_task(device: &str, task: &str, run_id: &str) -> String {
    format!(
        "the device '{device}' is running task {task:?} (run {run_id}): stop that run or try again when it ends"
    )
}

/// 400 for a run request that says it came from a schedule.
pub const BAD_TRIGGER: &str =
    "trigger is \"manual\" or \"api\"; \"schedule\" is for runs the scheduler starts";

/// 400 for an unknown status filter.
pub fn bad_run_status(given: &str) -> String {
    let names: Vec<&str> = deft_store::TaskRunStatus::ALL
        .iter()
        .map(|s| s.as_str())
        .collect();
    format!("unknown status {given:?}: use one of {}", names.join(", "))
}

/// 404 for an unknown task run.
pub fn unknown_task_run(id: &str) -> String {
    format!("no task run has the id {id:?}: list runs with GET /api/task-runs")
}

/// 409 when stopping a run another server runs.
pub fn task_run_elsewhere(id: &str) -> String {
    format!("task run {id} runs on another server sharing this database: stop it there")
}

/// 400 for a schedule body that is not an object.
pub const SCHEDULE_NOT_OBJECT: &str = "a schedule is a JSON object such as {\"kind\": \"cron\", \"expr\": \"47 3 * * *\", \"tz\": \"Europe/Berlin\"}";

/// 400 for an unknown field of a schedule.
pub fn schedule_unknown_field(key: &str, fields: &[&str]) -> String {
    format!(
        "unknown field {key:?}: a schedule takes {}",
        fields.join(", ")
    )
}

/// 400 for a non-boolean `enabled`.
pub const SCHEDULE_ENABLED_BOOL: &str = "enabled is true or false";

/// 400 for a missing or non-string `kind`.
pub const SCHEDULE_KIND: &str =
    "kind is \"cron\" (with expr and tz), \"every\" (with seconds) or \"once\" (with at)";

/// 400 for a field of the wrong type.
pub fn schedule_field_type(key: &str, wanted: &str) -> String {
    format!("{key} must be {wanted}")
}

/// 400 for a cron schedule without `expr`.
pub const SCHEDULE_CRON_EXPR: &str = "a cron schedule needs expr: 5 fields (minute hour day-of-month month day-of-week), e.g. \"47 3 * * *\"";

/// 400 for an interval that is not a whole number of seconds.
pub const SCHEDULE_SECONDS: &str =
    "an every schedule needs seconds: a whole number of seconds, e.g. 900 for every 15 minutes";

/// 400 for a once schedule without its moment.
pub const SCHEDULE_AT: &str = "a once schedule needs at (RFC 3339, e.g. \"2027-01-31T08:00:00+01:00\") or at_ms (ms since the epoch), one of them";

/// 400 for a moment that does not parse.
pub fn schedule_bad_moment(at: &str, why: &str) -> String {
    format!("{at:?} is not an RFC 3339 moment ({why}): write e.g. \"2027-01-31T08:00:00Z\"")
}

/// 400 for an unknown kind.
pub fn schedule_unknown_kind(kind: &str) -> String {
    format!("unknown kind {kind:?}: {SCHEDULE_KIND}")
}

/// 400 for an unknown policy.
pub fn schedule_policy(key: &str, allowed: &str) -> String {
    format!("{key} is {allowed}")
}

/// 404 for an unknown schedule of a task.
pub fn unknown_schedule(id: &str, task: &str) -> String {
    format!(
        "the task {task:?} has no schedule {id:?}: list them with GET /api/tasks/{{id}}/schedules"
    )
}

/// 400 for model settings the client cannot use.
pub fn model_unusable(why: &str) -> String {
    format!("the model settings are unusable: {why}")
}

/// 400 for an audit state that does not exist.
pub fn unknown_audit_state(state: &str) -> String {
    format!("unknown audit state {state:?}: use none, pending or kept")
}

/// 400 for a text field that is missing or too long.
pub fn text_field(field: &str, max: usize, required: bool) -> String {
    if required {
        format!("{field} must be 1 to {max} characters")
    } else {
        format!("{field} must be at most {max} characters")
    }
}

/// 404 for an unknown action.
pub fn unknown_action(id_or_name: &str) -> String {
    format!(
        "no action has the id, name or alias {id_or_name:?}: list the actions with GET /api/memory/actions"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_stable() {
        assert_eq!(
            too_many_logins(42),
            "too many failed logins from this address: try again in 42 s"
        );
        assert_eq!(
            missing_setting("model"),
            "the model is not set: open Settings (⚙) and set it, or start deft serve with it"
        );
        assert_eq!(
            device_not_connected("pc1", &["local".into()]),
            "the device 'pc1' is not connected (connected devices: local): start `deft client --id pc1` on it, or pick another device"
        );
        assert_eq!(
            no_screen("pc1", "shell"),
            "the device 'pc1' has no screen to show (profile 'shell')"
        );
    }
}
