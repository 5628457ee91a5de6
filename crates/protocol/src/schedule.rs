//! What a schedule is, as the API, the store and deft-tasks' schedule arithmetic share it:
//! when it fires ([`ScheduleKind`]) and what it does with a missed fire ([`MisfirePolicy`]) or a
//! busy task ([`BusyPolicy`]). The store maps these to its columns; deft-tasks parses and
//! computes fire times.

use serde::{Deserialize, Serialize};

/// When a schedule fires. Times are ms since the epoch; the store keeps the spec as given
/// (deft-tasks parses it and computes the fire times).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScheduleKind {
    /// A 5-field cron expression read in an IANA time zone.
    Cron {
        /// The expression, e.g. `47 3 * * *`.
        expr: String,
        /// The IANA zone name, e.g. `Europe/Berlin` or `UTC`.
        tz: String,
    },
    /// A fixed interval.
    Every {
        /// The interval in seconds (at least 1).
        seconds: u64,
    },
    /// Once, at a moment.
    Once {
        /// The moment, ms since the epoch.
        at_ms: i64,
    },
}

crate::named_enum! {
    /// What a schedule does with a fire missed while no server ran (or far too late).
    MisfirePolicy {
        /// Run it once (however many were missed), then go on with the next regular fire.
        RunOnce = "run_once",
        /// Record it as a skipped run and go on with the next regular fire.
        Skip = "skip",
    }
}

crate::named_enum! {
    /// What a fire does when its task is already running (or its device is busy).
    BusyPolicy {
        /// Wait for the running instance to end (bounded), then run.
        Wait = "wait",
        /// Record a skipped run.
        Skip = "skip",
    }
}
