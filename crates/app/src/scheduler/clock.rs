//! The scheduler's clock: the system's for `deft serve`, a manual one for tests (time moves
//! only when the test moves it, so nothing waits for real).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use tokio::sync::watch;

/// Wall-clock time and sleeping until a moment of it, in ms since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    /// Now.
    fn now_ms(&self) -> i64;

    /// Resolves at (or after) `at_ms`; at once when it has passed.
    fn sleep_until(&self, at_ms: i64) -> BoxFuture<'static, ()>;
}

/// The system clock. Sleeps run on tokio's monotonic timer; a wall-clock jump is noticed at
/// the scheduler's next wake (at most [`super::SchedulerConfig::max_sleep`] later).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }

    fn sleep_until(&self, at_ms: i64) -> BoxFuture<'static, ()> {
        let wait = u64::try_from(at_ms.saturating_sub(self.now_ms())).unwrap_or(0);
        Box::pin(tokio::time::sleep(Duration::from_millis(wait)))
    }
}

/// A clock that moves only when told ([`ManualClock::set`], [`ManualClock::advance`]); its
/// sleeps resolve the moment it reaches their time. Clones share one time. For tests.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<watch::Sender<i64>>,
}

impl ManualClock {
    /// A clock at `start_ms`.
    pub fn new(start_ms: i64) -> ManualClock {
        ManualClock {
            now: Arc::new(watch::Sender::new(start_ms)),
        }
    }

    /// Moves the clock to `ms` (also backwards, as a wall clock may).
    pub fn set(&self, ms: i64) {
        self.now.send_replace(ms);
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.now.send_modify(|now| *now = now.saturating_add(by));
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        *self.now.borrow()
    }

    fn sleep_until(&self, at_ms: i64) -> BoxFuture<'static, ()> {
        let mut now = self.now.subscribe();
        Box::pin(async move {
            // The sender lives as long as any clone of the clock; when none is left the time
            // never comes.
            if now.wait_for(|now| *now >= at_ms).await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }
}
