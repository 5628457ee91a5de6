//! Schedules in words for the console: "every day at 03:47 (Europe/Berlin)", "every 5
//! minutes", "once on 2026-12-05 09:00 UTC". The common cron shapes get a sentence; anything
//! else falls back to the expression itself (`cron "0 0 L * *" (UTC)`), which is never wrong.

use chrono::{TimeZone, Timelike, Utc};
use deft_protocol::schedule::ScheduleKind;

use super::ScheduleSpec;
use super::cron::{MONTHS, WEEKDAYS};

/// A stored spec in words; one that no longer parses is shown as written.
pub fn describe(kind: &ScheduleKind) -> String {
    match ScheduleSpec::parse(kind) {
        Ok(spec) => spec.describe(),
        Err(_) => match kind {
            ScheduleKind::Cron { expr, tz } => format!("cron {:?} ({tz})", expr.trim()),
            ScheduleKind::Every { seconds } => format!("every {seconds} s"),
            ScheduleKind::Once { at_ms } => format!("once on {}", utc_moment(*at_ms)),
        },
    }
}

/// A moment as `2026-12-05 09:00 UTC` (with seconds when it has them).
pub fn utc_moment(ms: i64) -> String {
    match Utc.timestamp_millis_opt(ms).single() {
        Some(t) if t.second() == 0 => t.format("%Y-%m-%d %H:%M UTC").to_string(),
        Some(t) => t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        None => format!("{ms} ms after 1970-01-01 UTC"),
    }
}

/// An interval in the largest whole unit: "every 5 minutes", "every hour", "every 90 seconds".
pub(crate) fn interval_words(seconds: i64) -> String {
    let units = [
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    let (size, unit) = units
        .into_iter()
        .find(|(size, _)| seconds % size == 0)
        .unwrap_or((1, "second"));
    match seconds / size {
        1 => format!("every {unit}"),
        n => format!("every {n} {unit}s"),
    }
}

/// A cron expression's fields in words with its zone, or the expression when its shape is
/// not one of the common ones.
pub(crate) fn cron_words(fields: &[String; 5], tz: &str) -> String {
    match words(fields) {
        Some(words) => format!("{words} ({tz})"),
        None => format!("cron {:?} ({tz})", fields.join(" ")),
    }
}

/// The days a cron expression runs on, as a phrase before a time ("every Monday") and after a
/// repetition ("on Mondays").
struct Days {
    /// "every day", "every Monday", "on weekdays", "every year on 5 December".
    before_time: String,
    /// "", "on Mondays", "on weekdays", "on 5 December".
    after_repeat: String,
}

fn words(fields: &[String; 5]) -> Option<String> {
    let [minute, hour, dom, month, dow] = fields.each_ref().map(String::as_str);
    let days = days(dom, month, dow)?;
    let with_days = |repeat: String| {
        if days.after_repeat.is_empty() {
            repeat
        } else {
            format!("{repeat} {}", days.after_repeat)
        }
    };
    if let (Some(minutes), Some(hours)) = (values(minute, 0, 59), values(hour, 0, 23))
        && minutes.len() * hours.len() <= 6
    {
        let times: Vec<String> = hours
            .iter()
            .flat_map(|h| minutes.iter().map(move |m| format!("{h:02}:{m:02}")))
            .collect();
        return Some(format!("{} at {}", days.before_time, join_and(&times)));
    }
    let single_minute = values(minute, 0, 59).filter(|m| m.len() == 1).map(|m| m[0]);
    match (minute, hour, single_minute) {
        ("*", "*", _) => Some(with_days("every minute".into())),
        (_, "*", _) => match values(minute, 0, 59) {
            Some(ms) => {
                let at: Vec<String> = ms.iter().map(|m| format!(":{m:02}")).collect();
                Some(with_days(format!("every hour at {}", join_and(&at))))
            }
            None => {
                let n = step_of(minute, 60)?;
                Some(with_days(interval_words(i64::from(n) * 60)))
            }
        },
        (_, _, Some(m)) => {
            if let Some(n) = step_of(hour, 24) {
                return Some(with_days(format!(
                    "{} at :{m:02}",
                    interval_words(i64::from(n) * 3_600)
                )));
            }
            let (from, to) = hour.split_once('-')?;
            let (from, to): (u32, u32) = (from.parse().ok()?, to.parse().ok()?);
            Some(with_days(format!(
                "every hour from {from:02}:{m:02} to {to:02}:{m:02}"
            )))
        }
        _ => None,
    }
}

/// N of `*/N` when N divides `period` evenly (so the repetition has no seam).
fn step_of(field: &str, period: u32) -> Option<u32> {
    let n: u32 = field.strip_prefix("*/")?.parse().ok()?;
    (n > 0 && period.is_multiple_of(n)).then_some(n)
}

/// The values of a list of numbers (and names, via `names`) without steps, sorted and
/// deduplicated; `None` for `*`, steps, or special characters.
fn values_named(field: &str, min: u32, max: u32, names: &[&str], first: u32) -> Option<Vec<u32>> {
    let one = |text: &str| -> Option<u32> {
        let n = match names.iter().position(|n| *n == text) {
            Some(i) => u32::try_from(i).ok()? + first,
            None => text.parse().ok()?,
        };
        (min..=max).contains(&n).then_some(n)
    };
    let mut out = Vec::new();
    for item in field.split(',') {
        match item.split_once('-') {
            Some((a, b)) => out.extend(one(a)?..=one(b)?),
            None => out.push(one(item)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

fn values(field: &str, min: u32, max: u32) -> Option<Vec<u32>> {
    values_named(field, min, max, &[], 0)
}

fn days(dom: &str, month: &str, dow: &str) -> Option<Days> {
    let months = match month {
        "*" => None,
        m => Some(values_named(m, 1, 12, &MONTHS, 1)?),
    };
    let month_names = |ms: &[u32]| {
        join_and(
            &ms.iter()
                .map(|m| MONTH_WORDS[*m as usize - 1].to_owned())
                .collect::<Vec<_>>(),
        )
    };
    match (dom, dow) {
        ("*" | "?", "*" | "?") => Some(match &months {
            None => Days {
                before_time: "every day".into(),
                after_repeat: String::new(),
            },
            Some(ms) => Days {
                before_time: format!("every day in {}", month_names(ms)),
                after_repeat: format!("in {}", month_names(ms)),
            },
        }),
        ("*" | "?", _) => {
            let mut weekdays = values_named(dow, 0, 7, &WEEKDAYS, 0)?;
            weekdays.iter_mut().for_each(|d| *d %= 7);
            weekdays.sort_unstable_by_key(|d| (d + 6) % 7); // Monday first
            weekdays.dedup();
            let (before, after) = weekday_phrases(&weekdays);
            Some(match &months {
                None => Days {
                    before_time: before,
                    after_repeat: after,
                },
                Some(ms) => Days {
                    before_time: format!("{before} in {}", month_names(ms)),
                    after_repeat: format!("{after} in {}", month_names(ms)),
                },
            })
        }
        (_, "*" | "?") => {
            let days_of_month = if dom == "L" {
                "the last day".to_owned()
            } else {
                let ds = values(dom, 1, 31)?;
                format!(
                    "the {}",
                    join_and(&ds.iter().map(|d| ordinal(*d)).collect::<Vec<_>>())
                )
            };
            Some(match &months {
                None => Days {
                    before_time: format!("on {days_of_month} of every month"),
                    after_repeat: format!("on {days_of_month} of every month"),
                },
                Some(ms) => Days {
                    before_time: format!("every year on {days_of_month} of {}", month_names(ms)),
                    after_repeat: format!("on {days_of_month} of {}", month_names(ms)),
                },
            })
        }
        // Both restricted: cron runs on either, which a sentence would only blur.
        _ => None,
    }
}

/// (before a time, after a repetition) for a set of weekdays 0–6, Monday first.
fn weekday_phrases(days: &[u32]) -> (String, String) {
    let name = |d: &u32| WEEKDAY_WORDS[*d as usize];
    match days {
        [1, 2, 3, 4, 5] => ("on weekdays".into(), "on weekdays".into()),
        [6, 0] => ("on weekends".into(), "on weekends".into()),
        [d] => (format!("every {}", name(d)), format!("on {}s", name(d))),
        _ => {
            let list = join_and(&days.iter().map(|d| name(d).to_owned()).collect::<Vec<_>>());
            (format!("on {list}"), format!("on {list}"))
        }
    }
}

const WEEKDAY_WORDS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

const MONTH_WORDS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// 1st, 2nd, 3rd, 4th, 11th, 21st …
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "a", "a and b", "a, b and c".
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
