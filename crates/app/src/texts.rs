//! What deft-app says to a person (run histories, streams, refused runs): each text once,
//! tested verbatim.

/// 409 when stopping a task run that has ended; also the `done` text of a run without one.
pub fn task_run_ended(id: &str, status: &str) -> String {
    format!("task run {id} has ended already ({status})")
}

/// A task run a restart cut off.
pub const TASK_RUN_INTERRUPTED: &str =
    "the server stopped while this task ran; the run was cut off (its steps so far are kept)";

/// A task run whose runner failed.
pub const TASK_RUN_CRASHED: &str =
    "the task runner failed unexpectedly; the server log has the details";

/// A notification's title for a task run that ended as `status`.
pub fn notice_run_ended(task: &str, status: &str) -> String {
    let how = match status {
        "ok" => "succeeded",
        "failed" => "failed",
        "timed_out" => "timed out",
        "interrupted" => "was interrupted",
        other => other,
    };
    format!("Task \"{task}\" {how}")
}

/// A notification's title for a remote device whose link ended.
pub fn notice_device_offline(device: &str) -> String {
    format!("Device \"{device}\" went offline")
}

/// A notification's title for a run waiting for the approval of `tool`.
pub fn notice_approval_waiting(tool: &str) -> String {
    format!("A run waits for your approval of {tool}")
}

/// The title of an approval notification whose wait for `tool` ended: approved (`Some(true)`),
/// denied (`Some(false)`) or not answered before the run ended (`None`).
pub fn notice_approval_answered(tool: &str, answer: Option<bool>) -> String {
    match answer {
        Some(true) => format!("Approved: {tool} (the run went on)"),
        Some(false) => format!("Denied: {tool} (the run was told)"),
        None => format!("No longer waits: {tool} (the run ended before an answer)"),
    }
}

/// A notification's title for an audit pass that suggested deleting `n` experiences.
pub fn notice_audit_suggestions(n: u64) -> String {
    if n == 1 {
        "The memory audit suggests deleting 1 experience".to_owned()
    } else {
        format!("The memory audit suggests deleting {n} experiences")
    }
}

/// A notification's body for an audit pass that reviewed `reviewed` experiences.
pub fn notice_audit_reviewed(reviewed: u64, suggested: u64) -> String {
    format!(
        "It reviewed {reviewed} and suggests deleting {suggested}: each waits for your decision \
         (keep or delete) on the Memory page."
    )
}

/// Why a phone went offline: adb no longer lists it.
pub const NOTICE_PHONE_UNLISTED: &str =
    "adb no longer lists it: unplugged, switched off or out of reach; plug it in again to use it";

/// Why a phone went offline: its adb state is `state` now (`note`: what the listing says).
pub fn notice_phone_state(state: &str, note: Option<&str>) -> String {
    match note {
        Some(note) => format!("its adb state is now \"{state}\": {note}"),
        None => format!("its adb state is now \"{state}\""),
    }
}

/// A notification's title for a task's `notify` step.
pub fn notice_notify_step(task: &str) -> String {
    format!("Task \"{task}\" says")
}

/// The store failed.
pub fn store_failed(detail: &str) -> String {
    format!("the console's database failed: {detail}")
}

/// 400 summary of a task or schedule that does not validate (the body lists every problem).
pub fn invalid_task(errors: &[deft_tasks::validate::Issue]) -> String {
    invalid("task", errors)
}

/// The summary of a refused query (a filter, a sort, a cursor): its first problem.
pub fn invalid_query(errors: &[deft_tasks::validate::Issue]) -> String {
    invalid("query", errors)
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

/// A task with secrets run without a server.
pub fn secrets_need_server(names: &[String]) -> String {
    format!(
        "the task uses the secrets {}, which only deft serve keeps; run it through the server (deft task run NAME --server URL) after saving it there",
        names.join(", ")
    )
}

/// A run of a task whose secrets are not (all) in the server's store.
pub fn secrets_missing(names: &[String]) -> String {
    format!(
        "the task uses the secrets {}, which this server does not have; set {} (deft secret set NAME, or the console's Secrets page) and start the run again",
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" }
    )
}

/// 400 (at `device`) for a device the server does not know.
pub fn task_device_unknown(device: &str, known: &[String]) -> String {
    format!(
        "no device {device:?} is known to this server (known: {}); name one of them, or connect the client first",
        known_or_none(known)
    )
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

/// 409 for an agent run, a batch or a task on a device a task run holds.
pub fn device_running_task(device: &str, task: &str, run_id: &str) -> String {
    format!(
        "the device '{device}' is running task {task:?} (run {run_id}): stop that run or try again when it ends"
    )
}

/// 404 for an unknown task.
pub fn unknown_task(id_or_name: &str) -> String {
    format!("no task has the id or name {id_or_name:?}: list the tasks with GET /api/tasks")
}

/// 409 for a busy device.
pub fn device_busy(id: &str) -> String {
    format!(
        "the device '{id}' is busy (a run, a task or an exec batch is executing on it); try again when it is idle"
    )
}

/// 409 when another run holds the slot.
pub const RUN_ACTIVE: &str = "another run is active (one run at a time on this server): wait for it to finish or stop it first";

/// 409 on stop/confirm without a run.
pub const NO_RUN: &str = "no run is active";

/// The holder of a run's device has no such run active (it ended meanwhile).
pub const NO_RUN_HERE: &str =
    "the run is not active on the server that holds its device (it ended meanwhile)";

/// 409 when the server holding a device did not take a job in time.
pub fn holder_silent(device: &str, secs: u64) -> String {
    format!(
        "the server that holds device '{device}' did not take the request within {secs} s (it may be stalled; if it is gone, the device reconnects to another server within a lease): try again"
    )
}

/// A relayed batch whose caller stopped waiting (the holder may still finish it).
pub const RELAY_CANCELLED: &str =
    "stopped while the server that holds the device ran the batch; it may still finish there";

/// A holder sent an image that is not Base64.
pub fn unreadable_image(why: &str) -> String {
    format!("the server that holds the device sent an unreadable image: {why}")
}

/// No step image `image_id` is kept for run `run_id`.
pub fn no_step_image(run_id: &str, image_id: &str) -> String {
    format!("no image '{image_id}' in run '{run_id}'")
}

/// A holder answered something else than asked (servers of different versions).
pub const HOLDER_ANSWERED_OTHERWISE: &str = "the server that holds the device answered something other than what was asked; do all servers run the same version of deft?";

/// A fleet job whose request the holder cannot read (another version of deft asked).
pub fn unreadable_fleet_job(kind: &str, error: &str) -> String {
    format!(
        "this server cannot read the '{kind}' request another server of the fleet sent ({error}); do all servers run the same version of deft?"
    )
}

/// 400 when no device was chosen and none is the default.
pub const NO_DEVICE: &str =
    "choose a device: pick one in the device list, or set a default device in the settings";

/// 400 on an empty prompt.
pub const EMPTY_PROMPT: &str = "the prompt is empty: say what the agent should do";

/// 400 when a designer run names a conversation.
pub const DESIGNER_NO_CONVERSATION: &str = "a designer run starts fresh and continues no conversation (designer mode sends no chat history): leave out \"conversation\"";

/// A designer run was asked for a typed result.
pub const DESIGNER_NO_OUTPUT_SCHEMA: &str = "output_schema is for chat runs: a designer run's result is its task draft. Leave output_schema out, or start a chat.";

/// The title prefix of a designer run's conversation.
pub const DESIGNER_TITLE: &str = "🧭 ";

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
        known_or_none(known)
    )
}

/// The error and done text of a run a server restart cut off.
pub const RUN_INTERRUPTED: &str =
    "The server stopped during this run; it did not finish. Send the request again to retry.";

/// The answer of a run whose agent task panicked.
pub const RUN_CRASHED: &str = "the run stopped on an internal error (the server log has the details); send the request again to retry";

/// 400 for model settings the client cannot use.
pub fn model_unusable(why: &str) -> String {
    format!("the model settings are unusable: {why}")
}

/// The answer kept with a designer run that ended without a draft.
pub fn no_task_draft(why: &str) -> String {
    format!("No task draft: {why}.")
}

/// 404 for an unknown task run.
pub fn unknown_task_run(id: &str) -> String {
    format!("no task run has the id {id:?}: list runs with GET /api/task-runs")
}

/// The device ids a text lists, or `none`.
fn known_or_none(known: &[String]) -> String {
    if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    }
}

/// The device MCP endpoint's server name.
pub const MCP_SERVER_NAME: &str = "deft-device";

/// What an MCP client is told the device endpoint is for.
pub fn mcp_instructions(device: &str) -> String {
    format!(
        "The device '{device}' as deft's agent sees it. Start with get_desktop_app_info (the windows, tabs or apps), then select_application_window: the selected application's own tools (its controls and, for documents, API tools such as insert_table) are listed from then on, and the server sends notifications/tools/list_changed. Sensitive calls (run_shell, controls named Send, Delete, Pay …) need a person's approval."
    )
}

/// A tool call that failed without a text.
pub const MCP_TOOL_FAILED_WITHOUT_TEXT: &str = "the tool failed without saying why";

/// The device of an MCP endpoint is not (or no longer) connected.
pub fn mcp_device_gone(device: &str) -> String {
    format!(
        "the device '{device}' is not connected to this server; nothing was run (list the devices with GET /api/devices)"
    )
}

/// An MCP client called a tool the device does not offer now: with no application selected,
/// `roots` are the applications whose window brings it.
pub fn mcp_unknown_tool(
    tool: &str,
    device: &str,
    selected: Option<&str>,
    roots: &[String],
) -> String {
    let bring = if roots.is_empty() {
        String::new()
    } else {
        format!(" ({tool} comes with the window of {})", roots.join(", "))
    };
    match selected {
        None => format!(
            "'{tool}' is not a tool of the device '{device}' while no application window is selected: an application's tools appear once its window is selected{bring}. Call get_desktop_app_info to list the windows, then select_application_window with the window's id and name, and list the tools again."
        ),
        Some(app) => format!(
            "'{tool}' is not a tool of the device '{device}' nor of the selected application '{app}'{bring}; select another window with select_application_window, or list the tools again (tools/list)."
        ),
    }
}

/// A sensitive call refused because the MCP client cannot ask a person.
pub fn mcp_approval_unavailable(tool: &str, reason: &str) -> String {
    format!(
        "{tool} needs a person's approval ({reason}), and this MCP client cannot ask one (it does not support elicitation); nothing was run. Use a client that supports elicitation, or start the endpoint with approvals off (deft mcp device --yes) if every call may run unasked."
    )
}

/// A sensitive call the person did not approve.
pub fn mcp_approval_denied(tool: &str) -> String {
    format!("{tool} was not approved; nothing was run")
}

/// A sensitive call whose approval request failed or timed out.
pub fn mcp_approval_unanswered(tool: &str, why: &str) -> String {
    format!("{tool} was not approved: the approval request got no answer ({why}); nothing was run")
}

/// A sensitive call whose approval answer could not be read.
pub fn mcp_approval_unreadable(tool: &str, why: &str) -> String {
    format!("{tool} was not approved: the approval answer is unreadable ({why}); nothing was run")
}

/// The approval form's field.
pub const MCP_APPROVE_FIELD: &str = "Run this call on the device";

/// The approval form's question.
pub fn mcp_approval_question(
    tool: &str,
    device: &str,
    reason: &str,
    args: &serde_json::Value,
) -> String {
    format!(
        "deft asks: run {tool} on the device '{device}'? It needs approval: {reason}. Arguments: {args}"
    )
}

/// An MCP client that did not name itself.
pub const MCP_UNNAMED_CLIENT: &str = "an MCP client";

/// The goal an MCP endpoint's trace shows.
pub fn mcp_trace_goal(device: &str, client: &str) -> String {
    format!("Calls of {client} on the device '{device}' through its MCP endpoint")
}

/// The end of an MCP endpoint's trace.
pub const MCP_ENDPOINT_CLOSED: &str = "The MCP endpoint closed.";

/// A webhook URL left empty.
pub const WEBHOOK_URL_EMPTY: &str = "a webhook needs a URL (https://…)";

/// A webhook URL longer than `max` characters.
pub fn webhook_url_too_long(max: usize) -> String {
    format!("the URL is longer than {max} characters")
}

/// A webhook URL that does not parse (`why`: the parser's reason).
pub fn webhook_url_unparsable(why: &str) -> String {
    format!("not a URL ({why}); write it in full, as https://example.com/hooks/deft")
}

/// A webhook URL of another scheme than http(s).
pub fn webhook_url_scheme(scheme: &str) -> String {
    format!("the URL's scheme is {scheme}: only http and https can be delivered to")
}

/// A webhook URL without a host.
pub const WEBHOOK_URL_NO_HOST: &str = "the URL has no host";

/// A webhook URL with a user name or password in it.
pub const WEBHOOK_URL_CREDENTIALS: &str = "the URL holds a user name or password, which the \
     webhook list would show; take them out and check the Deft-Signature header instead";

/// A webhook host that is (`host`) a refused address, `why` naming its range.
pub fn webhook_host_refused(host: &str, why: &str) -> String {
    format!(
        "{host} is a {why} address, which webhooks may not reach (start deft serve with \
         --webhooks-allow-private to allow addresses of this machine and its networks)"
    )
}

/// A webhook host whose name resolves to the refused address `ip`.
pub fn webhook_resolves_refused(host: &str, ip: &str, why: &str) -> String {
    format!(
        "{host} resolves to {ip}, a {why} address, which webhooks may not reach (start deft \
         serve with --webhooks-allow-private to allow addresses of this machine and its networks)"
    )
}

/// A webhook host that resolved to no address at all.
pub fn webhook_no_address(host: &str) -> String {
    format!("{host} resolves to no address")
}

/// A webhook name left empty.
pub const WEBHOOK_NAME_EMPTY: &str = "a webhook needs a name";

/// A webhook name longer than `max` characters.
pub fn webhook_name_too_long(max: usize) -> String {
    format!("the name is longer than {max} characters")
}

/// A webhook name with a control character (a line break, a tab).
pub const WEBHOOK_NAME_CONTROL: &str =
    "the name may not hold line breaks or other control characters";

/// A webhook without an event kind.
pub fn webhook_events_empty(known: &str) -> String {
    format!("choose at least one event: {known}")
}

/// A webhook event kind deft does not send.
pub fn webhook_event_unknown(name: &str, known: &str) -> String {
    format!("{name:?} is no event deft sends; the events are {known}")
}

/// No webhook has this id or name.
pub fn webhook_unknown(key: &str) -> String {
    format!("no webhook {key:?}")
}

/// A webhook name taken by another.
pub fn webhook_exists(name: &str) -> String {
    format!("a webhook named {name:?} exists; choose another name")
}

/// A test or redelivery asked of a disabled webhook.
pub fn webhook_disabled(name: &str) -> String {
    format!("the webhook {name:?} is disabled; enable it to send to it")
}

/// No delivery of this webhook has this id.
pub fn webhook_delivery_unknown(id: &str) -> String {
    format!("no delivery {id} of this webhook")
}

/// A delivery's attempt answered by a status outside 2xx.
pub fn webhook_http_status(code: u16) -> String {
    format!("the receiver answered HTTP {code} (only 2xx counts as delivered)")
}

/// A delivery held back because its webhook was disabled meanwhile.
pub const WEBHOOK_DELIVERY_DISABLED: &str =
    "not sent: the webhook was disabled before this delivery was due";

/// A webhook secret that the data folder's key no longer opens.
pub const WEBHOOK_SECRET_UNOPENABLE: &str = "the webhook's signing secret cannot be opened with \
     this data folder's key (was the key file replaced?); rotate the secret";

/// A delivery's attempt that timed out after `secs` seconds.
pub fn webhook_timed_out(secs: u64) -> String {
    format!("no answer within {secs} s")
}

/// The text of a ping delivery's data.
pub const WEBHOOK_PING: &str =
    "A test delivery from deft: if you can read this, the webhook works.";

/// A notification's title for a webhook whose delivery failed after its last attempt.
pub fn notice_webhook_failing(name: &str) -> String {
    format!("Webhook \"{name}\" is failing")
}

/// The body of that notification: which event, after how many attempts, and the last error.
pub fn notice_webhook_failed_delivery(event: &str, attempts: u32, error: &str) -> String {
    format!(
        "A {event} delivery failed after {attempts} attempts: {error}. Settings → Webhooks has \
         its log."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notices_of_approvals_audits_and_phones_read_as_written() {
        assert_eq!(
            NOTICE_PHONE_UNLISTED,
            "adb no longer lists it: unplugged, switched off or out of reach; plug it in again to use it"
        );
        assert_eq!(
            notice_phone_state("unauthorized", Some("allow USB debugging on the phone")),
            "its adb state is now \"unauthorized\": allow USB debugging on the phone"
        );
        assert_eq!(
            notice_phone_state("offline", None),
            "its adb state is now \"offline\""
        );
        assert_eq!(
            notice_audit_suggestions(1),
            "The memory audit suggests deleting 1 experience"
        );
        assert_eq!(
            notice_audit_suggestions(3),
            "The memory audit suggests deleting 3 experiences"
        );
        assert_eq!(
            notice_audit_reviewed(7, 3),
            "It reviewed 7 and suggests deleting 3: each waits for your decision (keep or delete) on the Memory page."
        );
        assert_eq!(
            notice_approval_waiting("run_shell"),
            "A run waits for your approval of run_shell"
        );
        assert_eq!(
            notice_approval_answered("run_shell", Some(true)),
            "Approved: run_shell (the run went on)"
        );
        assert_eq!(
            notice_approval_answered("run_shell", Some(false)),
            "Denied: run_shell (the run was told)"
        );
        assert_eq!(
            notice_approval_answered("run_shell", None),
            "No longer waits: run_shell (the run ended before an answer)"
        );
    }

    #[test]
    fn texts_read_as_written() {
        assert_eq!(
            task_run_ended("r1", "failed"),
            "task run r1 has ended already (failed)"
        );
        assert_eq!(
            TASK_RUN_INTERRUPTED,
            "the server stopped while this task ran; the run was cut off (its steps so far are kept)"
        );
        assert_eq!(
            TASK_RUN_CRASHED,
            "the task runner failed unexpectedly; the server log has the details"
        );
        assert_eq!(
            device_busy("pc"),
            "the device 'pc' is busy (a run, a task or an exec batch is executing on it); try again when it is idle"
        );
        assert_eq!(
            device_running_task("pc", "Nightly", "r1"),
            "the device 'pc' is running task \"Nightly\" (run r1): stop that run or try again when it ends"
        );
        assert_eq!(
            task_running("Nightly", "r1"),
            "the task \"Nightly\" is running already (run r1): one run at a time per task; stop it or wait for it to end"
        );
        assert_eq!(
            draft_running("r2"),
            "a draft is being tried already (run r2): one at a time; stop it or wait for it to end"
        );
        assert_eq!(
            task_device_unknown("pc", &[]),
            "no device \"pc\" is known to this server (known: none); name one of them, or connect the client first"
        );
        assert_eq!(
            unknown_task("x"),
            "no task has the id or name \"x\": list the tasks with GET /api/tasks"
        );
        assert_eq!(
            notice_run_ended("Nightly", "timed_out"),
            "Task \"Nightly\" timed out"
        );
        assert_eq!(
            notice_run_ended("Nightly", "interrupted"),
            "Task \"Nightly\" was interrupted"
        );
        assert_eq!(notice_notify_step("Nightly"), "Task \"Nightly\" says");
        assert_eq!(
            notice_device_offline("phone-1"),
            "Device \"phone-1\" went offline"
        );
        assert_eq!(
            store_failed("disk full"),
            "the console's database failed: disk full"
        );
        assert_eq!(invalid("action", &[]), "the action is invalid");
        assert_eq!(
            unknown_task_run("r9"),
            "no task run has the id \"r9\": list runs with GET /api/task-runs"
        );
        assert_eq!(
            missing_setting("model"),
            "the model is not set: open Settings (⚙) and set it, or start deft serve with it"
        );
        assert_eq!(
            device_not_connected("pc1", &["local".into()]),
            "the device 'pc1' is not connected (connected devices: local): start `deft client --id pc1` on it, or pick another device"
        );
    }
}
