//! How long a step may take (docs/tasks.md "Timeouts"): its own limit, cut by the `timeout_s`
//! of the containers around it. A step's own limit always speaks before the tool layer's batch
//! deadline it derives: the deadline of each tool call is the time the step has left plus
//! [`CALL_GRACE`], and a step that waits on the device (`wait_el`, `if_el`'s `wait_s`) gives
//! the device [`ANSWER_GRACE`] past its wait to say "No control matched … within S s" itself.
//! However little time is left, a call gets [`CALL_GRACE`]: a look-once (`timeout_s: 0`)
//! always looks. Times are tokio's, so a test on a paused clock sees them pass.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use super::outcome::StepError;
use super::texts;

/// A leaf step's limit unless its `timeout_s` says: the tool layer's default call limit.
pub(crate) const DEFAULT_STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// What a step that waits on the device allows past its wait for the device's own answer.
pub(crate) const ANSWER_GRACE: Duration = Duration::from_secs(5);

/// What a tool call's batch deadline allows past the step's limit, so the step's own text (or
/// the device's) is the one a person reads.
pub(crate) const CALL_GRACE: Duration = Duration::from_secs(2);

/// A container's `timeout_s` while its sub-steps run.
#[derive(Debug, Clone)]
pub(crate) struct Bound {
    /// When it passes.
    pub(crate) until: Instant,
    /// The container's `timeout_s`.
    pub(crate) limit: Duration,
    /// The container's path.
    pub(crate) path: String,
    /// The container's type (`group`, `loop`, `if_el`).
    pub(crate) step_type: &'static str,
}

impl Bound {
    /// Whether its time is up.
    pub(crate) fn passed(&self) -> bool {
        Instant::now() >= self.until
    }

    /// The error of a step its passing cut short, or kept from starting.
    pub(crate) fn in_step(&self) -> String {
        texts::container_timeout_in_step(self.step_type, &self.path, self.limit)
    }
}

/// The time a step (or a condition) may take, and what it fails with when that passes.
#[derive(Debug, Clone)]
pub(crate) struct Limit {
    /// When its time is up.
    pub(crate) until: Instant,
    /// Its error then.
    pub(crate) text: String,
}

impl Limit {
    /// A step's own limit — `shown` (its `timeout_s`, or the type's default) plus `grace` for
    /// the device's own answer — cut by the nearest of `bounds` that passes first.
    pub(crate) fn of(shown: Duration, grace: Duration, bounds: &[Bound]) -> Self {
        let own = Limit {
            until: Instant::now() + shown + grace,
            text: texts::step_timeout(shown),
        };
        bounds
            .iter()
            .filter(|b| b.until < own.until)
            .min_by_key(|b| b.until)
            .map_or(own, |b| Limit {
                until: b.until,
                text: b.in_step(),
            })
    }

    /// The batch deadline of a tool call made now: the time left, plus [`CALL_GRACE`].
    pub(crate) fn call_deadline(&self) -> Duration {
        self.until.saturating_duration_since(Instant::now()) + CALL_GRACE
    }

    /// `work` cut short when the limit passes, with the limit's text.
    pub(crate) async fn run<T>(
        &self,
        work: impl Future<Output = Result<T, StepError>>,
    ) -> Result<T, StepError> {
        tokio::time::timeout_at(self.until, work)
            .await
            .unwrap_or_else(|_| Err(StepError(self.text.clone())))
    }
}

/// The limit of a leaf step: `wait_el`'s `timeout_s` is its wait (default 10 s, `0` looks
/// once) with [`ANSWER_GRACE`]; any other step's `timeout_s` bounds it, by default
/// [`DEFAULT_STEP_TIMEOUT`].
pub(crate) fn leaf_limit(is_wait: bool, timeout_s: Option<f64>) -> (Duration, Duration) {
    if is_wait {
        let wait = timeout_s.unwrap_or(crate::step::limits::DEFAULT_WAIT_EL_S);
        (Duration::from_secs_f64(wait), ANSWER_GRACE)
    } else {
        (
            timeout_s.map_or(DEFAULT_STEP_TIMEOUT, Duration::from_secs_f64),
            Duration::ZERO,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_always_gets_its_grace_and_the_nearest_bound_speaks() {
        let passed = Limit {
            until: Instant::now() - Duration::from_secs(1),
            text: String::new(),
        };
        assert_eq!(
            passed.call_deadline(),
            CALL_GRACE,
            "a look-once still looks"
        );
        let group = Bound {
            until: Instant::now() + Duration::from_secs(3),
            limit: Duration::from_secs(3),
            path: "steps[1]".into(),
            step_type: "group",
        };
        let cut = Limit::of(Duration::from_secs(60), Duration::ZERO, &[group]);
        assert_eq!(
            cut.text,
            "the group at steps[1] passed its timeout of 3 s while this step ran"
        );
        let own = Limit::of(Duration::from_millis(500), ANSWER_GRACE, &[]);
        assert_eq!(
            own.text,
            "the step did not finish within its timeout of 0.5 s"
        );
        assert_eq!(leaf_limit(true, Some(0.0)), (Duration::ZERO, ANSWER_GRACE));
        assert_eq!(
            leaf_limit(false, None),
            (DEFAULT_STEP_TIMEOUT, Duration::ZERO)
        );
    }
}
