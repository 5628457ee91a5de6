//! Schedules, pure: a schedule's spec parsed and checked, its next fire after any moment, and
//! its description in words for the console. No clock and no store here; times are ms since
//! the Unix epoch (UTC). `local_zone` names the server's own zone.
//!
//! - **cron**: five standard fields (minute hour day-of-month month day-of-week) read in an
//!   IANA time zone. Across a daylight-saving change: a fixed time that falls into the gap
//!   (02:30 on a spring-forward night) runs at the first moment after it (03:00); a fixed time
//!   that occurs twice (autumn) runs once, at the first; a job that repeats within the hour
//!   (`*/30 * * * *`) runs on the real clock — skipping the missing hour, and in both halves of
//!   the repeated one.
//! - **every**: a fixed interval of 1 s to 366 days; the next fire is the given moment plus
//!   the interval.
//! - **once**: at a moment; nothing after it.

mod cron;
mod describe;
mod zone;

use chrono::{TimeZone, Utc};
use chrono_tz::Tz;
use deft_protocol::schedule::ScheduleKind;

pub use cron::CronField;
pub use describe::describe;
pub use describe::utc_moment;
pub use zone::local_zone;

/// The shortest interval.
pub const MIN_INTERVAL_S: u64 = 1;

/// The longest interval (a leap year).
pub const MAX_INTERVAL_S: u64 = 366 * 24 * 3600;

/// A schedule's spec, parsed and checked: [`ScheduleSpec::next_after`] answers for any moment.
#[derive(Debug, Clone)]
pub struct ScheduleSpec {
    kind: ScheduleKind,
    parsed: Parsed,
}

#[derive(Debug, Clone)]
enum Parsed {
    Cron { cron: Box<cron::Parsed>, tz: Tz },
    Every { ms: i64 },
    Once { at_ms: i64 },
}

/// Why a schedule's spec is refused. Each text says what was wrong and what to write instead;
/// [`ScheduleError::input`] names the spec's key it is about (for an error path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The cron expression is blank.
    #[error(
        "the cron expression is empty: give 5 fields (minute hour day-of-month month \
         day-of-week), e.g. \"47 3 * * *\" for every day at 03:47"
    )]
    EmptyCron,
    /// Not five fields.
    #[error(
        "the cron expression {expr:?} has {count} field{s}; cron takes 5: minute hour \
         day-of-month month day-of-week, e.g. \"47 3 * * *\"{hint}",
        s = if *count == 1 { "" } else { "s" },
        hint = if *count > 5 {
            " (there is no seconds or year field: for periods under a minute use an interval \
             schedule)"
        } else {
            ""
        }
    )]
    FieldCount {
        /// The expression.
        expr: String,
        /// How many fields it has.
        count: usize,
    },
    /// An `@name` that is not a known nickname.
    #[error(
        "{expr:?} is not a cron nickname: use @yearly, @annually, @monthly, @weekly, @daily, \
         @midnight or @hourly, or 5 fields"
    )]
    UnknownNickname {
        /// The expression.
        expr: String,
    },
    /// One field is wrong.
    #[error("the {} field of the cron expression {expr:?} is {value:?}: {problem}", field.name())]
    CronField {
        /// The expression.
        expr: String,
        /// Which field.
        field: CronField,
        /// The field as written.
        value: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The fields are right one by one but not together.
    #[error("the cron expression {expr:?} does not parse: {problem}")]
    Cron {
        /// The expression.
        expr: String,
        /// croner's reason.
        problem: String,
    },
    /// The expression matches no date (`0 0 30 2 *`: February has no 30th).
    #[error(
        "the cron expression {expr:?} never fires: no date matches it (check the day-of-month \
         against the month)"
    )]
    NeverFires {
        /// The expression.
        expr: String,
    },
    /// Not an IANA zone name.
    #[error(
        "unknown time zone {tz:?}: use an IANA name such as Europe/Berlin, America/New_York or \
         UTC{}",
        suggestion.as_ref().map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default()
    )]
    UnknownTimeZone {
        /// The name given.
        tz: String,
        /// The closest known name, if one is close.
        suggestion: Option<String>,
    },
    /// An interval out of range.
    #[error(
        "an interval of {seconds} s is out of range: intervals are {MIN_INTERVAL_S} s to \
         {MAX_INTERVAL_S} s (366 days); for longer periods use a cron schedule"
    )]
    Interval {
        /// The interval given.
        seconds: u64,
    },
    /// A once schedule whose moment has passed.
    #[error("the moment {at} has passed: a once schedule needs a time in the future", at = describe::utc_moment(*at_ms))]
    OncePassed {
        /// The moment, ms since the epoch.
        at_ms: i64,
    },
}

impl ScheduleError {
    /// The key of the spec the error is about: `expr`, `tz`, `seconds` or `at_ms`.
    pub fn input(&self) -> &'static str {
        match self {
            ScheduleError::UnknownTimeZone { .. } => "tz",
            ScheduleError::Interval { .. } => "seconds",
            ScheduleError::OncePassed { .. } => "at_ms",
            _ => "expr",
        }
    }
}

impl ScheduleSpec {
    /// Parses and checks a spec. Errors say which part is wrong and how (for cron: which
    /// field). A once schedule in the past parses; [`ScheduleSpec::first_fire`] refuses it.
    pub fn parse(kind: &ScheduleKind) -> Result<ScheduleSpec, ScheduleError> {
        let parsed = match kind {
            ScheduleKind::Cron { expr, tz } => {
                let tz = time_zone(tz)?;
                Parsed::Cron {
                    cron: Box::new(cron::parse(expr)?),
                    tz,
                }
            }
            ScheduleKind::Every { seconds } => {
                if !(MIN_INTERVAL_S..=MAX_INTERVAL_S).contains(seconds) {
                    return Err(ScheduleError::Interval { seconds: *seconds });
                }
                Parsed::Every {
                    ms: i64::try_from(*seconds * 1_000).expect("at most 366 days in ms"),
                }
            }
            ScheduleKind::Once { at_ms } => Parsed::Once { at_ms: *at_ms },
        };
        Ok(ScheduleSpec {
            kind: kind.clone(),
            parsed,
        })
    }

    /// The spec as stored.
    pub fn kind(&self) -> &ScheduleKind {
        &self.kind
    }

    /// The first fire strictly after `t_ms`; `None` when there is none (a once schedule at or
    /// before `t_ms`, a cron expression with no matching date within croner's search, or a
    /// time beyond what the calendar represents).
    pub fn next_after(&self, t_ms: i64) -> Option<i64> {
        match &self.parsed {
            Parsed::Cron { cron, tz } => {
                let start = Utc.timestamp_millis_opt(t_ms).single()?.with_timezone(tz);
                let next = cron.cron.find_next_occurrence(&start, false).ok()?;
                Some(next.timestamp_millis())
            }
            Parsed::Every { ms } => t_ms.checked_add(*ms),
            Parsed::Once { at_ms } => (*at_ms > t_ms).then_some(*at_ms),
        }
    }

    /// The fire that follows `fire_at_ms` in this schedule and lies after `now_ms`: the next
    /// regular fire while the scheduler keeps up, else the first one after now — the fires in
    /// between are dropped, never replayed in a burst. An interval keeps its phase
    /// (`fire_at_ms` + k × interval).
    pub fn next_fire(&self, fire_at_ms: i64, now_ms: i64) -> Option<i64> {
        let next = self.next_after(fire_at_ms)?;
        if next > now_ms {
            return Some(next);
        }
        match &self.parsed {
            Parsed::Every { ms } => {
                let periods = (now_ms - fire_at_ms) / ms + 1;
                fire_at_ms.checked_add(periods.checked_mul(*ms)?)
            }
            _ => self.next_after(now_ms),
        }
    }

    /// The first fire after `now_ms`, for a schedule being created or switched on; an error
    /// when it would never fire ([`ScheduleError::OncePassed`], [`ScheduleError::NeverFires`]).
    pub fn first_fire(&self, now_ms: i64) -> Result<i64, ScheduleError> {
        self.next_after(now_ms).ok_or_else(|| match &self.kind {
            ScheduleKind::Once { at_ms } => ScheduleError::OncePassed { at_ms: *at_ms },
            ScheduleKind::Cron { expr, .. } => ScheduleError::NeverFires {
                expr: expr.trim().to_owned(),
            },
            ScheduleKind::Every { seconds } => ScheduleError::Interval { seconds: *seconds },
        })
    }

    /// The spec in words, e.g. "every day at 03:47 (Europe/Berlin)".
    pub fn describe(&self) -> String {
        match &self.parsed {
            Parsed::Cron { cron, tz } => describe::cron_words(&cron.fields, tz.name()),
            Parsed::Every { ms } => describe::interval_words(ms / 1_000),
            Parsed::Once { at_ms } => format!("once on {}", describe::utc_moment(*at_ms)),
        }
    }
}

/// The IANA zone named `name` (exact spelling; `UTC` included), or an error with the closest
/// known name.
fn time_zone(name: &str) -> Result<Tz, ScheduleError> {
    let trimmed = name.trim();
    if let Ok(tz) = trimmed.parse::<Tz>() {
        return Ok(tz);
    }
    // A wrong case is the commonest slip ("europe/berlin"); otherwise the nearest name.
    let lower = trimmed.to_ascii_lowercase();
    let suggestion = chrono_tz::TZ_VARIANTS
        .iter()
        .map(|tz| tz.name())
        .find(|n| n.to_ascii_lowercase() == lower)
        .or_else(|| {
            chrono_tz::TZ_VARIANTS
                .iter()
                .map(|tz| {
                    let known = tz.name().to_ascii_lowercase();
                    (strsim::normalized_levenshtein(&lower, &known), tz.name())
                })
                .filter(|(score, _)| *score >= 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, n)| n)
        })
        .map(str::to_owned);
    Err(ScheduleError::UnknownTimeZone {
        tz: trimmed.to_owned(),
        suggestion,
    })
}
