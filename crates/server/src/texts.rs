//! Every text the server's API answers with. Written for whoever calls the API (a person, the
//! CLI, a script); stable, and tested verbatim.

pub use deft_app::texts::device_busy;

/// 401 on an API route.
pub const UNAUTHORIZED: &str = "unauthorized: this route needs 'Authorization: Bearer <api token>' (deft serve prints the API token and keeps it in its data folder)";

/// 404 for an unknown device.
pub fn unknown_device(id: &str, known: &[String]) -> String {
    format!(
        "unknown device '{id}'; known devices: {}",
        if known.is_empty() {
            "(none)".to_owned()
        } else {
            known.join(", ")
        }
    )
}

/// 400 for an exec body that is not a batch.
pub fn bad_batch(detail: &str) -> String {
    format!("the request body is not a batch: {detail}")
}

/// 413 for a request body past the server's limit.
pub fn body_too_large(limit: usize) -> String {
    format!(
        "the request body is larger than {limit} bytes, the most this server reads (deft serve --max-body); send less, e.g. a batch in several requests"
    )
}

/// 400 for a request body that could not be read.
pub fn body_unreadable(detail: &str) -> String {
    format!("cannot read the request body: {detail}")
}

/// 400 for a bad `deadline_secs`.
pub fn bad_deadline(given: f64) -> String {
    format!("deadline_secs must be a positive number of seconds, got {given}")
}

/// Why a device could not register: its fleet lease could not be taken (the database failed);
/// the client retries.
pub fn lease_unavailable(device: &str, error: &dyn std::fmt::Display) -> String {
    format!(
        "device '{device}' cannot be held by this server now (its fleet lease could not be taken: {error}); the client tries again"
    )
}

/// The note on a device another server of the fleet holds.
pub fn held_elsewhere(server: &str) -> String {
    format!(
        "connected to server {server} of the fleet: runs started here go there, and its screen is relayed from there"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_stable() {
        assert_eq!(
            unknown_device("x", &["local".into(), "pc1".into()]),
            "unknown device 'x'; known devices: local, pc1"
        );
        assert_eq!(
            device_busy("pc1"),
            "the device 'pc1' is busy (a run, a task or an exec batch is executing on it); try again when it is idle"
        );
        assert_eq!(
            body_too_large(1024),
            "the request body is larger than 1024 bytes, the most this server reads (deft serve --max-body); send less, e.g. a batch in several requests"
        );
        assert_eq!(
            bad_deadline(-1.0),
            "deadline_secs must be a positive number of seconds, got -1"
        );
    }
}
