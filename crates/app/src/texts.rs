//! What deft-app says to a person (run histories, streams): each text once, tested verbatim.

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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
