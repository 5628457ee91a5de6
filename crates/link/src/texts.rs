//! Every text the device link writes: errors sent over the wire (read by the device's operator
//! or by the other end's software) and the texts a Result carries when the link, not the tool,
//! decided its outcome. They are stable; tests check them verbatim.

/// `error` sent when the first frame is not a `register` message.
pub const REGISTER_FIRST: &str = "The first message on /ws must be a 'register' message with a non-empty client_id; closing the connection.";

/// `error` sent when a registration has an empty or missing `client_id`.
pub const EMPTY_ID: &str = "The 'register' message needs a non-empty client_id naming this device; closing the connection.";

/// `error` sent when a device tries to register under a reserved id.
pub fn reserved_id(id: &str) -> String {
    format!(
        "The device id '{id}' is reserved (local and browser name the server's own devices); start the client with another --id."
    )
}

/// `error` sent when an id is already connected (UFO's wording, plus what to do).
pub fn duplicate_id(id: &str) -> String {
    format!(
        "client_id '{id}' is already registered; duplicate registrations are not allowed. Stop the other client or start this one with another --id."
    )
}

/// `error` sent when a message claims another device's id.
pub fn identity_mismatch(claimed: &str, registered: &str) -> String {
    format!(
        "client_id '{claimed}' does not match the registered connection '{registered}'; the message was refused."
    )
}

/// `error` sent when a client other than a device (UFO's constellation) registers.
pub const DEVICES_ONLY: &str = "Only device clients (client_type 'device') can register on this server; closing the connection.";

/// `error` sent when a message claims another client type.
pub const CLIENT_TYPE_MISMATCH: &str =
    "client_type does not match the registered connection; the message was refused.";

/// `error` sent when a second `register` arrives on a registered connection.
pub const ALREADY_REGISTERED: &str =
    "This connection is already registered; a second 'register' message was ignored.";

/// `error` sent for a frame that is not valid JSON or not a known message.
pub fn malformed(detail: &str) -> String {
    format!(
        "The message could not be read ({detail}); it was ignored and the connection stays open."
    )
}

/// `error` sent for a binary frame.
pub const BINARY_FRAME: &str = "Binary frames are not part of the protocol; send one JSON message per text frame. The frame was ignored.";

/// `error` sent for a message type the receiver does not handle.
pub fn unsupported_type(kind: &str) -> String {
    format!("Message type '{kind}' is not handled on this connection; it was ignored.")
}

/// `error` sent for `command_results` without a `prev_response_id`.
pub const RESULTS_WITHOUT_ID: &str = "command_results and command_result must carry prev_response_id (the command's response_id); the results were ignored.";

/// `error` sent for results no batch of this device is waiting for (late, duplicate, or for
/// another device's batch).
pub fn results_not_pending(response_id: &str) -> String {
    format!(
        "No batch of this device is waiting for results with prev_response_id '{response_id}' (late, duplicate or not sent to this device); the results were ignored."
    )
}

/// `error` a client sends for a `command` without `response_id`.
pub const COMMAND_WITHOUT_ID: &str =
    "A 'command' message must carry a response_id; the commands were not run.";

/// Close reason when a device token is refused.
pub const TOKEN_REFUSED: &str = "device token refused";

/// Close reason when the device stayed silent too long.
pub fn silent(secs: u64) -> String {
    format!("no message from the device for {secs} s; it is considered gone")
}

/// The failure text of a command the device answered no Result for.
pub const NO_RESULT: &str = "The device returned no result for this command; it may or may not have run — observe again before retrying.";

/// Error of a command whose tool layer crashed on the device.
pub fn tool_layer_crashed(detail: &str) -> String {
    format!(
        "The device's tool layer crashed while running this batch ({detail}); observe again before retrying."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_stable() {
        assert_eq!(
            duplicate_id("pc1"),
            "client_id 'pc1' is already registered; duplicate registrations are not allowed. Stop the other client or start this one with another --id."
        );
        assert_eq!(
            reserved_id("local"),
            "The device id 'local' is reserved (local and browser name the server's own devices); start the client with another --id."
        );
        assert_eq!(
            identity_mismatch("b", "a"),
            "client_id 'b' does not match the registered connection 'a'; the message was refused."
        );
        assert_eq!(
            results_not_pending("r1"),
            "No batch of this device is waiting for results with prev_response_id 'r1' (late, duplicate or not sent to this device); the results were ignored."
        );
        assert_eq!(
            malformed("expected value at line 1 column 1"),
            "The message could not be read (expected value at line 1 column 1); it was ignored and the connection stays open."
        );
        assert_eq!(
            unsupported_type("task"),
            "Message type 'task' is not handled on this connection; it was ignored."
        );
        assert_eq!(
            silent(45),
            "no message from the device for 45 s; it is considered gone"
        );
        assert_eq!(
            tool_layer_crashed("panic"),
            "The device's tool layer crashed while running this batch (panic); observe again before retrying."
        );
    }
}
