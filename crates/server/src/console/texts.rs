//! Every text the console's API answers with: written for the person in front of the console,
//! saying what happened and what to do. Stable; tests check them.

pub use deft_app::texts::{
    DESIGNER_NO_CONVERSATION, DESIGNER_TITLE, EMPTY_PROMPT, NO_DEVICE, NO_RUN, RUN_ACTIVE,
    RUN_CRASHED, RUN_INTERRUPTED, device_not_connected, device_running_task, draft_running,
    invalid, invalid_query, invalid_task, missing_setting, model_unusable, no_question,
    no_task_draft, store_failed, task_device_unknown, task_running, unknown_conversation,
    unknown_run, unknown_task, unknown_task_run,
};

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
/// 404 when no task draft is kept.
pub const NO_DRAFT: &str = "no task draft is kept: run designer mode (\"mode\": \"designer\") to draft one, or give the task to try as \"draft\"";
/// 400 when a draft to try names no device.
pub const DRAFT_NO_DEVICE: &str =
    "the draft names no device: give \"device\", or set the task file's \"device\"";
/// 409 when deleting a conversation whose run is active.
pub const CONVERSATION_RUNNING: &str =
    "this conversation has an active run: stop it before deleting the conversation";

/// 400 for a `PATCH /api/tasks/{id}` that changes nothing.
pub const TASK_PATCH_EMPTY: &str = "nothing to change: send \"enabled\" (true or false), \"notify\" ({\"on_failure\", \"on_success\", \"on_notify_step\"}, each true or false), or both";

/// 400 for a bad parameter of `GET /api/notifications`.
pub fn bad_notification_param(param: &str, given: &str, takes: &str) -> String {
    format!("{param}={given:?} is not valid: {param} takes {takes}")
}

/// 404 for a notification id that is not there.
pub fn unknown_notification(id: &str) -> String {
    format!(
        "no notification has the id {id:?} (it may have been pruned): list them with GET /api/notifications"
    )
}

/// Who set a secret through the API token.
pub const API_TOKEN_SETTER: &str = "api token";

/// 400 for a version number that is not one (`what`: the parameter).
pub fn bad_version_number(what: &str, given: &str) -> String {
    format!("{what} must be a version number (1, 2, …), not {given:?}")
}

/// The note of a version that restores version `n`.
pub fn restored_from(n: i64) -> String {
    format!("restored from {n}")
}

/// 400 for an export that does not say which tasks.
pub const EXPORT_WHICH: &str =
    "say which tasks to export: task=ID or NAME, folder=PATH, or all=true (one of them)";

/// The note of a version an import saved.
pub const IMPORTED_NOTE: &str = "imported";

/// 413 for an import document over the limit.
pub fn import_too_large(max: usize) -> String {
    format!(
        "the document is larger than {} MiB: export fewer tasks (one folder at a time) and import each document",
        max / (1024 * 1024)
    )
}

/// 400 for an import body that is not JSON.
pub fn import_not_json(error: &str) -> String {
    format!("the document is not JSON ({error}): import the file an export wrote")
}

/// 400 for JSON that is not an export document.
pub fn import_not_a_document(format: &str) -> String {
    format!(
        "this is not a deft task export: its \"format\" must be \"{format}\"; export the tasks with deft first"
    )
}

/// 400 for an export document whose fields are wrong.
pub fn import_bad_document(error: &str) -> String {
    format!("the document does not have the export's shape: {error}")
}

/// 400 for a document of another format version.
pub fn import_format_version(got: u64, known: u64) -> String {
    format!(
        "the document's format_version is {got}; this server reads version {known}: export it again from a deft of this version"
    )
}

/// 400 for a document with too many tasks.
pub fn import_too_many(n: usize, max: usize) -> String {
    format!("the document has {n} tasks; an import takes at most {max}: export a folder at a time")
}

/// 400 summary of an import with errors: the first, and how many more.
pub fn import_invalid(first_path: &str, first: &str, n: usize) -> String {
    match n {
        0 | 1 => format!("nothing was imported: {first_path}: {first}"),
        n => format!(
            "nothing was imported: {first_path}: {first} (and {} more; see \"errors\")",
            n - 1
        ),
    }
}

/// 409 summary of an import whose names clash.
pub fn import_clashes(names: &[String]) -> String {
    format!(
        "nothing was imported: tasks named {} exist already; choose on_clash=skip, replace or rename",
        names
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// An import document with one name twice.
pub fn import_duplicate_name(name: &str) -> String {
    format!("the document has two tasks named {name:?}: rename one of them")
}

/// An entry whose name is not its definition's.
pub fn import_name_differs(entry: &str, definition: &str) -> String {
    format!("the entry is named {entry:?} but its definition {definition:?}: make them the same")
}

/// A secret an imported task uses that this server lacks.
pub fn import_missing_secret(name: &str) -> String {
    format!(
        "the secret {name} does not exist on this server: add it under Secrets before the task runs"
    )
}

/// Who saved a task version through the API token.
pub const API_AUTHOR: &str = "api";

/// 400 for a bad secret name.
pub fn bad_secret_name(name: &str) -> String {
    format!(
        "{name:?} is not a secret's name: use a letter, then letters, digits and _ (at most 64 characters), e.g. LOGIN_PW"
    )
}

/// 400 for an empty secret value.
pub fn secret_empty(name: &str) -> String {
    format!(
        "the value of the secret {name} is empty: give the value to keep (a task types it as it is)"
    )
}

/// 400 for a secret value that is too long.
pub fn secret_too_long(name: &str, chars: usize, max: usize) -> String {
    format!("the value of the secret {name} has {chars} characters; at most {max}")
}

/// 404 for a secret that does not exist.
pub fn unknown_secret(name: &str) -> String {
    format!("there is no secret {name}: GET /api/secrets lists them (deft secret list)")
}

/// 409 for deleting a secret that tasks use.
pub fn secret_in_use(name: &str, tasks: &[String]) -> String {
    format!(
        "the secret {name} is used by the tasks {}: remove it from their variables first, or replace its value instead of deleting it",
        tasks.join(", ")
    )
}

/// A stored secret that does not open with the data folder's key.
pub fn secret_unopenable(name: &str) -> String {
    format!(
        "the secret {name} cannot be decrypted with this server's key file (was secret.key replaced?); set it again (deft secret set {name})"
    )
}

/// 429 after too many failed logins.
pub fn too_many_logins(retry_after_secs: u64) -> String {
    format!("too many failed logins from this address: try again in {retry_after_secs} s")
}

/// 400 for a short password.
pub fn short_password(min: usize) -> String {
    format!("the password must have at least {min} characters")
}

/// 409 for a device without a screen.
pub fn no_screen(id: &str, profile: &str) -> String {
    format!("the device '{id}' has no screen to show (profile '{profile}')")
}

/// 400 for a bad settings value.
pub fn bad_setting(what: &str, detail: &str) -> String {
    format!("invalid {what}: {detail}")
}

/// 400 for a task body larger than the validator reads.
pub fn task_body_too_large(max: usize) -> String {
    format!(
        "the task is larger than {max} bytes ({} KiB), the most a task file may be",
        max / 1024
    )
}

/// 409 when another task has the name.
pub fn task_name_taken(name: &str) -> String {
    format!("a task named {name:?} exists already: choose another name or replace that task")
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

/// 400 for an unknown trigger filter of the run history.
pub fn bad_history_trigger(given: &str) -> String {
    let names: Vec<&str> = deft_store::TaskTrigger::ALL
        .iter()
        .map(|t| t.as_str())
        .collect();
    format!("unknown trigger {given:?}: use one of {}", names.join(", "))
}

/// 400 for a run history moment that is neither a date nor an ISO-8601 moment.
pub fn bad_history_moment(param: &str, given: &str) -> String {
    format!(
        "{param} {given:?} is not a moment: give a date (2026-03-01, a whole day in UTC) or an \
         ISO-8601 moment with its offset (2026-03-01T09:30:00Z)"
    )
}

/// 400 when the run history's range ends before it starts.
pub const HISTORY_TO_BEFORE_FROM: &str =
    "to is before from: give a range whose end is at or after its start";

/// 400 for an unknown sort of the run history.
pub fn bad_history_sort(given: &str) -> String {
    let names: Vec<&str> = deft_store::RunSortKey::ALL
        .iter()
        .map(|k| k.as_str())
        .collect();
    format!("unknown sort {given:?}: use one of {}", names.join(", "))
}

/// 400 for an order that is neither `asc` nor `desc`.
pub fn bad_history_order(given: &str) -> String {
    format!("unknown order {given:?}: use asc or desc")
}

/// 400 for a page size out of range.
pub fn bad_history_limit(given: &str) -> String {
    format!(
        "limit {given:?} is not a page size: give a whole number from 1 to {}",
        deft_store::MAX_PAGE
    )
}

/// 400 for an offset that is not a number.
pub fn bad_history_offset(given: &str) -> String {
    format!("offset {given:?} is not a number of runs to skip: give a whole number from 0")
}

/// 400 for an offset with a sort or a cursor.
pub const HISTORY_OFFSET_WITH_SORT: &str = "offset pages only the default order (newest first) \
     and never with a cursor: follow next_cursor instead";

/// 400 for a cursor the run history cannot continue from.
pub fn bad_cursor(why: &str) -> String {
    format!(
        "cannot continue from this cursor: {why}; give the next_cursor of a page with the same \
         sort and order, or leave it out to start from the first page"
    )
}

/// 400 for an export format other than CSV or JSON.
pub fn bad_export_format(given: &str) -> String {
    format!("unknown export format {given:?}: use csv or json")
}

/// 400 for a retention longer than the longest one may set.
pub fn bad_retention_days(field: &str, days: u32, max: u32) -> String {
    format!(
        "{field} {days} is too long: give a number of days up to {max} (about a century), or 0 to keep forever"
    )
}

/// Who made something through a named API token.
pub fn token_maker(name: &str) -> String {
    format!("token {name}")
}

/// 400 for a bad API token name.
pub fn token_name_bad(name: &str) -> String {
    format!(
        "{name:?} is not a token name: use 1 to 64 letters, digits, spaces, '-', '_' or '.', e.g. nightly-erp"
    )
}

/// 400 for the name the server's own API token's calls are logged under.
pub fn token_name_reserved(name: &str) -> String {
    format!(
        "{name:?} is reserved: it names the server's own API token, whose calls GET /api/tokens/{name}/calls lists; pick another name"
    )
}

/// 400 for a token without scopes.
pub fn token_scopes_empty(names: &[&str]) -> String {
    format!("give the token at least one scope: {}", names.join(", "))
}

/// 400 for an unknown scope.
pub fn token_scope_unknown(given: &str, names: &[&str]) -> String {
    format!("unknown scope {given:?}: use some of {}", names.join(", "))
}

/// 400 for an expiry out of range.
pub fn token_expiry_bad(days: u32, max: u32) -> String {
    format!(
        "expires_in_days {days} is out of range: give 1 to {max} days, or leave it out for a token that does not expire"
    )
}

/// 409 for a token name in use (revoked tokens keep theirs, for the record of their calls).
pub fn token_exists(name: &str) -> String {
    format!("an API token named {name:?} exists (revoked ones keep their names): pick another name")
}

/// 404 for an unknown token.
pub fn token_unknown(name: &str) -> String {
    format!("no API token named {name:?}: GET /api/tokens lists them")
}

/// 400 for a page of webhook deliveries asked with a limit out of range.
pub fn webhook_page_limit(max: u32) -> String {
    format!("limit: a page holds 1 to {max} deliveries")
}

/// 401 for a revoked token.
pub fn token_revoked(name: &str) -> String {
    format!(
        "the API token {name:?} was revoked: make a new one in the console's settings or with `deft token create`"
    )
}

/// 401 for an expired token.
pub fn token_expired(name: &str, at: &str) -> String {
    format!(
        "the API token {name:?} expired at {at}: make a new one in the console's settings or with `deft token create`"
    )
}

/// 403 for a token without the scope a route needs.
pub fn token_lacks_scope(name: &str, scope: &str) -> String {
    format!(
        "the API token {name:?} lacks the scope {scope}: make a token that has it (`deft token create NAME --scope {scope}`)"
    )
}

/// 403 for a named token on an admin route.
pub fn token_admin_only(name: &str) -> String {
    format!(
        "the API token {name:?} cannot call this route: settings, secrets and tokens take a console login or the server's API token"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_stable() {
        assert_eq!(
            bad_notification_param("limit", "0", "a whole number from 1 to 200"),
            "limit=\"0\" is not valid: limit takes a whole number from 1 to 200"
        );
        assert_eq!(
            unknown_notification("n1"),
            "no notification has the id \"n1\" (it may have been pruned): list them with GET /api/notifications"
        );
        assert!(TASK_PATCH_EMPTY.starts_with("nothing to change: send \"enabled\""));
        assert_eq!(
            too_many_logins(42),
            "too many failed logins from this address: try again in 42 s"
        );
        assert_eq!(
            token_lacks_scope("ci", "tasks:run"),
            "the API token \"ci\" lacks the scope tasks:run: make a token that has it (`deft token create NAME --scope tasks:run`)"
        );
        assert_eq!(
            token_scope_unknown("admin", &["runs", "tasks:read"]),
            "unknown scope \"admin\": use some of runs, tasks:read"
        );
        assert_eq!(
            no_screen("pc1", "shell"),
            "the device 'pc1' has no screen to show (profile 'shell')"
        );
    }
}
