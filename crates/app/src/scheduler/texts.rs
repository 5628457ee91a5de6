//! The reasons the scheduler records on runs that never started (shown in the run history).

use std::time::Duration;

use deft_tasks::schedule::ScheduleError;
use deft_tasks::schedule::utc_moment as utc;

/// A fire missed under the `skip` misfire policy.
pub(super) fn missed(fire_at_ms: i64, now_ms: i64) -> String {
    format!(
        "missed: due at {}, noticed {} late (no deft server was running then); the schedule's \
         misfire policy is skip",
        utc(fire_at_ms),
        span_ms(now_ms - fire_at_ms)
    )
}

/// A busy task under the `skip` busy policy.
pub(super) fn busy_skipped(reason: &str) -> String {
    format!("skipped: the task was busy ({reason}); the schedule's busy policy is skip")
}

/// A busy task that stayed busy for the whole wait.
pub(super) fn busy_gave_up(waited: Duration, reason: &str) -> String {
    format!(
        "skipped: the task was still busy after waiting {} ({reason})",
        span_ms(i64::try_from(waited.as_millis()).unwrap_or(i64::MAX))
    )
}

/// A fire that came while an earlier fire of the same schedule still waited.
pub(super) fn superseded(earlier_fire_at_ms: i64) -> String {
    format!(
        "skipped: an earlier fire of this schedule (due at {}) is still waiting for the task's \
         running instance to end",
        utc(earlier_fire_at_ms)
    )
}

/// A fire still waiting for a busy task when the server stopped.
pub(super) fn stopped_while_waiting(reason: &str) -> String {
    format!("skipped: the server stopped while this fire waited for the busy task ({reason})")
}

/// A stored spec that no longer parses (e.g. a zone gone from a newer zone database).
pub(super) fn spec_invalid(e: &ScheduleError) -> String {
    format!(
        "the schedule no longer parses and will not fire again: {e}; fix it and switch it on again"
    )
}

/// The handler's task panicked.
pub(super) fn handler_failed() -> String {
    "the run could not start: the server's fire handler failed unexpectedly (see the server log)"
        .to_owned()
}

/// A span as "45 s", "10 min", "2 h 5 min", "3 d 4 h".
fn span_ms(ms: i64) -> String {
    let s = ms.max(0) / 1_000;
    match s {
        0..60 => format!("{s} s"),
        60..3_600 => format!("{} min", s / 60),
        3_600..86_400 if s % 3_600 < 60 => format!("{} h", s / 3_600),
        3_600..86_400 => format!("{} h {} min", s / 3_600, s % 3_600 / 60),
        _ if s % 86_400 < 3_600 => format!("{} d", s / 86_400),
        _ => format!("{} d {} h", s / 86_400, s % 86_400 / 3_600),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn spans_read_naturally() {
        use super::span_ms;
        assert_eq!(span_ms(-5), "0 s");
        assert_eq!(span_ms(45_900), "45 s");
        assert_eq!(span_ms(600_000), "10 min");
        assert_eq!(span_ms(3_600_000), "1 h");
        assert_eq!(span_ms(7_500_000), "2 h 5 min");
        assert_eq!(span_ms(2 * 86_400_000 + 30_000), "2 d");
        assert_eq!(span_ms(3 * 86_400_000 + 4 * 3_600_000), "3 d 4 h");
    }
}
