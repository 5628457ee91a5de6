//! Every text the tool layer writes for the model, in one place. They are part of the prompt:
//! keep them stable (tests check them).

use std::time::Duration;

use deft_protocol::Command;

/// Result of a command with an empty `tool_name`.
pub const NO_ACTION: &str = "No action taken.";

/// Error of a command skipped after an earlier failure.
pub const SKIPPED_EARLY_EXIT: &str = "Skipped due to previous failure (early_exit=True).";

/// A recorded call the device answered with no Result at all (`session::DeviceSession`).
pub const NO_RESULT: &str = "the device returned no result for this call";

/// Error of a command cancelled by a stop (docs/design.md "Failure texts").
pub const STOPPED: &str =
    "Cancelled because the run was stopped; the action may not have completed.";

/// Error of the commands of a batch whose device disconnected (docs/design.md "Failure texts").
pub const DISCONNECTED: &str = "The device disconnected during this batch; some actions may have run — observe again before retrying.";

/// Error of a command the batch deadline left unrun.
pub fn deadline_not_run(batch: Duration) -> String {
    format!(
        "The batch deadline of {} s passed before this command ran; it was not executed.",
        secs(batch)
    )
}

/// Error of a command whose batch reached the device but got no answer by the deadline (a
/// paused or overloaded device, a frozen network): it may have run.
pub fn deadline_unanswered(batch: Duration) -> String {
    format!(
        "The batch deadline of {} s passed before the device answered; this command may have run — observe again before retrying.",
        secs(batch)
    )
}

/// Error of the command that was running when the batch deadline passed.
pub fn deadline_while_running(batch: Duration) -> String {
    format!(
        "The batch deadline of {} s passed while this command was running; it was cancelled and may not have completed — observe again before retrying.",
        secs(batch)
    )
}

/// The dispatcher's text for a command it could not run at all (UFO's wording).
pub fn dispatch_error(command: &Command, error: &str) -> String {
    format!(
        "Error occurred while executing command {command}: {error}, please retry or execute a different command."
    )
}

/// Error of a call that ran past its limit.
pub fn tool_timeout(tool: &str, limit: Duration) -> String {
    format!(
        "Tool {tool} execution timed out after {} s and was cancelled; it may have partly run. Observe the current state before retrying.",
        secs(limit)
    )
}

/// Error of a call whose server connection died.
pub fn server_died(tool: &str, namespace: &str) -> String {
    format!(
        "Tool {tool} execution failed: the tool server '{namespace}' stopped during the call; it will be restarted on the next call. Observe the current state, then retry or execute a different command."
    )
}

/// Error of a call whose server could not be started.
pub fn server_unavailable(tool: &str, reason: &str) -> String {
    format!("Tool {tool} execution failed: {reason}. Please retry or execute a different command.")
}

/// Error of a call the server rejected at the protocol level (e.g. invalid arguments).
pub fn protocol_error(tool: &str, message: &str) -> String {
    format!("Tool {tool} execution failed: {message}")
}

/// Error of a tool that reported failure without any text.
pub const TOOL_ERROR_WITHOUT_TEXT: &str = "The tool reported an error without a message.";

/// Error of a command naming a tool this Computer does not have.
pub fn unknown_tool(key: &str, computer: &str, closest: &[String]) -> String {
    let hint = if closest.is_empty() {
        String::new()
    } else {
        format!(" Closest registered tools: {}.", closest.join(", "))
    };
    format!(
        "Tool {key} is not registered in current computer: {computer}.{hint} Call list_tools to see every available tool."
    )
}

/// Error of a `list_tools` call with a bad `tool_type` filter.
pub fn bad_list_filter(detail: &str) -> String {
    format!("list_tools: {detail}")
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{}", s as u64)
    } else {
        format!("{s:.1}")
    }
}

/// Error of a builtin tool that panicked (a bug in deft, reported instead of hanging).
pub fn tool_panicked(tool: &str, why: &str) -> String {
    format!(
        "Tool {tool} failed inside deft ({why}); it may have partly run. Observe the current state, then retry or execute a different command."
    )
}

/// 400: a request without a `Host` header (`authority`).
pub const HOST_MISSING: &str = "bad request: the request has no Host header";

/// 400: a request with more than one `Host` header.
pub const HOST_DUPLICATE: &str = "bad request: the request has more than one Host header";

/// 400: a `Host` that is not a host name or address with an optional port.
pub const HOST_MALFORMED: &str =
    "bad request: the Host header must be a host name or address with an optional port";

/// 403: a `Host` that does not name this machine, on a loopback server.
pub const HOST_FOREIGN: &str = "forbidden: this server listens on loopback and answers only requests for localhost, 127.0.0.1 or [::1] (or a name it was told to allow)";

/// 403: an `Origin` of another site.
pub const CROSS_ORIGIN: &str = "forbidden: cross-origin requests are not allowed";

/// `list_tools` brought no Result.
pub const LIST_TOOLS_NO_RESULT: &str = "the device answered list_tools with no result";

/// `list_tools` failed without saying why.
pub const LIST_TOOLS_FAILED: &str = "list_tools failed";

/// `list_tools` answered something that is not a tool list.
pub fn list_tools_unreadable(why: &str) -> String {
    format!("list_tools answered something unreadable: {why}")
}
