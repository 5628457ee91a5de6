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
