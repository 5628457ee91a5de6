//! Every text the server's API answers with. Written for whoever calls the API (a person, the
//! CLI, a script); stable, and tested verbatim.

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

/// 409 for a busy device.
pub fn device_busy(id: &str) -> String {
    format!(
        "the device '{id}' is busy (a run, a task or an exec batch is executing on it); try again when it is idle"
    )
}

/// 400 for an exec body that is not a batch.
pub fn bad_batch(detail: &str) -> String {
    format!("the request body is not a batch: {detail}")
}

/// 400 for a bad `deadline_secs`.
pub fn bad_deadline(given: f64) -> String {
    format!("deadline_secs must be a positive number of seconds, got {given}")
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
            bad_deadline(-1.0),
            "deadline_secs must be a positive number of seconds, got -1"
        );
    }
}
