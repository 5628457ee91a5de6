//! Schedules, pure: next fire times (cron in time zones across daylight-saving changes,
//! intervals, once), the errors for bad specs (which field, what is wrong), and the words the
//! console shows.

use chrono::{DateTime, TimeZone, Utc};
use deft_protocol::schedule::ScheduleKind;
use deft_tasks::schedule::{CronField, ScheduleError, ScheduleSpec, describe};

/// ms of an RFC 3339 time.
fn ms(rfc3339: &str) -> i64 {
    DateTime::parse_from_rfc3339(rfc3339)
        .unwrap_or_else(|e| panic!("{rfc3339}: {e}"))
        .timestamp_millis()
}

fn utc(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn cron(expr: &str, tz: &str) -> ScheduleKind {
    ScheduleKind::Cron {
        expr: expr.into(),
        tz: tz.into(),
    }
}

fn spec(kind: &ScheduleKind) -> ScheduleSpec {
    ScheduleSpec::parse(kind).unwrap_or_else(|e| panic!("{kind:?}: {e}"))
}

/// The fires after `after`, one after another.
fn fires(kind: &ScheduleKind, after: &str, n: usize) -> Vec<String> {
    let spec = spec(kind);
    let mut t = ms(after);
    (0..n)
        .map(|_| {
            t = spec.next_after(t).expect("a next fire");
            utc(t)
        })
        .collect()
}

#[test]
fn cron_next_fires_in_time_zones() {
    // (expression, zone, after, the next fires in UTC)
    let table: &[(&str, &str, &str, &[&str])] = &[
        (
            "0 3 * * *",
            "UTC",
            "2026-12-02T15:21:00Z",
            &["2026-12-03T03:00:00.000Z", "2026-12-04T03:00:00.000Z"],
        ),
        // Berlin is UTC+1 in winter.
        (
            "47 3 * * *",
            "Europe/Berlin",
            "2026-12-02T15:21:00Z",
            &["2026-12-03T02:47:00.000Z", "2026-12-04T02:47:00.000Z"],
        ),
        (
            "*/5 * * * *",
            "UTC",
            "2026-12-02T12:01:30Z",
            &["2026-12-02T12:05:00.000Z", "2026-12-02T12:10:00.000Z"],
        ),
        // Friday 10:00 in New York (UTC-5): the next weekday 09:00 is Monday.
        (
            "0 9 * * 1-5",
            "America/New_York",
            "2026-12-04T15:00:00Z",
            &["2026-12-07T14:00:00.000Z", "2026-12-08T14:00:00.000Z"],
        ),
        (
            "0 9 * * mon-fri",
            "America/New_York",
            "2026-12-04T15:00:00Z",
            &["2026-12-07T14:00:00.000Z"],
        ),
        // Kolkata is UTC+5:30: midnight on the 1st is 18:30 the day before in UTC.
        (
            "0 0 1 * *",
            "Asia/Kolkata",
            "2026-12-02T00:00:00Z",
            &["2026-12-31T18:30:00.000Z", "2027-01-31T18:30:00.000Z"],
        ),
        (
            "0 0 29 2 *",
            "UTC",
            "2026-03-01T00:00:00Z",
            &["2028-02-29T00:00:00.000Z", "2032-02-29T00:00:00.000Z"],
        ),
        (
            "@daily",
            "UTC",
            "2026-12-02T15:21:00Z",
            &["2026-12-03T00:00:00.000Z"],
        ),
        // Vixie semantics: a restricted day-of-month and day-of-week match either (the 13th, or
        // a Friday).
        (
            "0 0 13 * 5",
            "UTC",
            "2026-11-01T00:00:00Z",
            &[
                "2026-11-06T00:00:00.000Z",
                "2026-11-13T00:00:00.000Z",
                "2026-11-20T00:00:00.000Z",
            ],
        ),
    ];
    for (expr, tz, after, expected) in table {
        assert_eq!(
            fires(&cron(expr, tz), after, expected.len()),
            *expected,
            "{expr} in {tz} after {after}"
        );
    }
}

#[test]
fn cron_across_daylight_saving_changes() {
    // Spring forward in Berlin, 2026-03-29: 02:00 CET becomes 03:00 CEST. A fixed 02:30 falls
    // into the gap and runs at the first moment after it, 03:00 CEST (01:00Z); the next day it
    // is 02:30 CEST again.
    assert_eq!(
        fires(
            &cron("30 2 * * *", "Europe/Berlin"),
            "2026-03-28T12:00:00Z",
            2
        ),
        ["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]
    );
    // A repeating job skips the missing hour: 01:30 CET, then 03:00 CEST.
    assert_eq!(
        fires(
            &cron("*/30 * * * *", "Europe/Berlin"),
            "2026-03-29T00:00:00Z",
            3
        ),
        [
            "2026-03-29T00:30:00.000Z",
            "2026-03-29T01:00:00.000Z",
            "2026-03-29T01:30:00.000Z"
        ]
    );
    // Fall back, 2026-10-25: 03:00 CEST becomes 02:00 CET, so 02:30 happens twice. A fixed
    // 02:30 runs once, at the first (00:30Z); the next day at 02:30 CET (01:30Z).
    assert_eq!(
        fires(
            &cron("30 2 * * *", "Europe/Berlin"),
            "2026-10-24T12:00:00Z",
            2
        ),
        ["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]
    );
    // A repeating job runs on the real clock, in both halves of the repeated hour.
    assert_eq!(
        fires(
            &cron("*/30 * * * *", "Europe/Berlin"),
            "2026-10-24T23:00:00Z",
            6
        ),
        [
            "2026-10-24T23:30:00.000Z",
            "2026-10-25T00:00:00.000Z",
            "2026-10-25T00:30:00.000Z",
            "2026-10-25T01:00:00.000Z",
            "2026-10-25T01:30:00.000Z",
            "2026-10-25T02:00:00.000Z"
        ]
    );
    // New York springs forward at 02:00 on 2026-03-08: a 02:00 job runs at 03:00 EDT (07:00Z).
    assert_eq!(
        fires(
            &cron("0 2 * * *", "America/New_York"),
            "2026-03-07T12:00:00Z",
            2
        ),
        ["2026-03-08T07:00:00.000Z", "2026-03-09T06:00:00.000Z"]
    );
}

#[test]
fn next_after_is_strictly_after_to_the_millisecond() {
    let daily = spec(&cron("47 3 * * *", "UTC"));
    let at = ms("2026-12-03T03:47:00Z");
    assert_eq!(daily.next_after(at - 1), Some(at));
    assert_eq!(daily.next_after(at), Some(at + 86_400_000));
    assert_eq!(daily.next_after(at + 500), Some(at + 86_400_000));
}

#[test]
fn a_late_scheduler_drops_the_fires_in_between() {
    let t = ms("2026-12-02T12:00:00Z");
    let every10 = spec(&ScheduleKind::Every { seconds: 10 });
    assert_eq!(every10.next_fire(t, t + 3_000), Some(t + 10_000), "on time");
    assert_eq!(
        every10.next_fire(t, t + 25_000),
        Some(t + 30_000),
        "late by 2.5 periods: 10 s and 20 s are dropped, the phase is kept"
    );
    assert_eq!(
        every10.next_fire(t, t + 30_000),
        Some(t + 40_000),
        "strictly after now"
    );
    let daily = spec(&cron("0 3 * * *", "UTC"));
    let fire = ms("2026-12-01T03:00:00Z");
    assert_eq!(
        daily.next_fire(fire, ms("2026-12-05T12:00:00Z")).map(utc),
        Some("2026-12-06T03:00:00.000Z".to_owned())
    );
    let once = spec(&ScheduleKind::Once { at_ms: t });
    assert_eq!(once.next_fire(t, t + 1), None);
}

#[test]
fn intervals_and_once() {
    let t = ms("2026-12-02T12:00:00Z");
    let every = spec(&ScheduleKind::Every { seconds: 1 });
    assert_eq!(every.next_after(t), Some(t + 1_000));
    let hourly = spec(&ScheduleKind::Every { seconds: 3_600 });
    assert_eq!(hourly.next_after(t + 7), Some(t + 7 + 3_600_000));
    assert_eq!(hourly.first_fire(t), Ok(t + 3_600_000));
    assert_eq!(hourly.next_after(i64::MAX - 5), None, "no overflow");

    let at = ms("2026-12-05T09:00:00Z");
    let once = spec(&ScheduleKind::Once { at_ms: at });
    assert_eq!(once.next_after(at - 1), Some(at));
    assert_eq!(once.next_after(at), None);
    assert_eq!(once.first_fire(t), Ok(at));
    let err = once.first_fire(at + 1).unwrap_err();
    assert_eq!(err, ScheduleError::OncePassed { at_ms: at });
    assert_eq!(
        err.to_string(),
        "the moment 2026-12-05 09:00 UTC has passed: a once schedule needs a time in the future"
    );
    assert_eq!(err.input(), "at_ms");

    for seconds in [0, 366 * 86_400 + 1, u64::MAX] {
        let err = ScheduleSpec::parse(&ScheduleKind::Every { seconds }).unwrap_err();
        assert_eq!(err, ScheduleError::Interval { seconds });
        assert_eq!(err.input(), "seconds");
        assert_eq!(
            err.to_string(),
            format!(
                "an interval of {seconds} s is out of range: intervals are 1 s to 31622400 s \
                 (366 days); for longer periods use a cron schedule"
            )
        );
    }
    assert!(
        ScheduleSpec::parse(&ScheduleKind::Every {
            seconds: 366 * 86_400
        })
        .is_ok()
    );
}

#[test]
#[allow(clippy::too_many_lines)] // one table: every bad expression with its exact text
fn bad_cron_expressions_say_which_field_and_what_is_wrong() {
    let field = |expr: &str, value: &str, problem: &str, f: CronField| {
        format!(
            "the {} field of the cron expression {expr:?} is {value:?}: {problem}",
            f.name()
        )
    };
    let table: Vec<(&str, String)> = vec![
        (
            "",
            "the cron expression is empty: give 5 fields (minute hour day-of-month month \
             day-of-week), e.g. \"47 3 * * *\" for every day at 03:47"
                .into(),
        ),
        (
            "* * * *",
            "the cron expression \"* * * *\" has 4 fields; cron takes 5: minute hour \
             day-of-month month day-of-week, e.g. \"47 3 * * *\""
                .into(),
        ),
        (
            "0 47 3 * * *",
            "the cron expression \"0 47 3 * * *\" has 6 fields; cron takes 5: minute hour \
             day-of-month month day-of-week, e.g. \"47 3 * * *\" (there is no seconds or year \
             field: for periods under a minute use an interval schedule)"
                .into(),
        ),
        (
            "@reboot",
            "\"@reboot\" is not a cron nickname: use @yearly, @annually, @monthly, @weekly, \
             @daily, @midnight or @hourly, or 5 fields"
                .into(),
        ),
        (
            "61 3 * * *",
            field(
                "61 3 * * *",
                "61",
                "61 is out of range: minutes are 0–59",
                CronField::Minute,
            ),
        ),
        (
            "0 24 * * *",
            field(
                "0 24 * * *",
                "24",
                "24 is out of range: hours are 0–23",
                CronField::Hour,
            ),
        ),
        (
            "0 0 0 * *",
            field(
                "0 0 0 * *",
                "0",
                "0 is out of range: days of the month are 1–31",
                CronField::DayOfMonth,
            ),
        ),
        (
            "0 0 * 13 *",
            field(
                "0 0 * 13 *",
                "13",
                "13 is out of range: months are 1–12",
                CronField::Month,
            ),
        ),
        (
            "0 0 * Januar *",
            field(
                "0 0 * Januar *",
                "Januar",
                "\"Januar\" is not a month: use 1–12 or JAN–DEC",
                CronField::Month,
            ),
        ),
        (
            "0 0 * * 8",
            field(
                "0 0 * * 8",
                "8",
                "8 is out of range: days of the week (0 and 7 are Sunday) are 0–7",
                CronField::DayOfWeek,
            ),
        ),
        (
            "0 9 * * mon-frx",
            field(
                "0 9 * * mon-frx",
                "mon-frx",
                "\"frx\" is not a day of the week: use 0–7 or SUN–SAT",
                CronField::DayOfWeek,
            ),
        ),
        (
            "x * * * *",
            field(
                "x * * * *",
                "x",
                "\"x\" is not a number (minutes are 0–59)",
                CronField::Minute,
            ),
        ),
        (
            "*/0 * * * *",
            field(
                "*/0 * * * *",
                "*/0",
                "the step in \"*/0\" is 0; a step is at least 1",
                CronField::Minute,
            ),
        ),
        (
            "*/x * * * *",
            field(
                "*/x * * * *",
                "*/x",
                "the step \"x\" in \"*/x\" is not a whole number",
                CronField::Minute,
            ),
        ),
        (
            "5-2 * * * *",
            field(
                "5-2 * * * *",
                "5-2",
                "the range 5-2 runs backwards: write the smaller number first",
                CronField::Minute,
            ),
        ),
        (
            "0 0 * * FRI-MON",
            field(
                "0 0 * * FRI-MON",
                "FRI-MON",
                "the range FRI-MON runs backwards: write the smaller value first",
                CronField::DayOfWeek,
            ),
        ),
        (
            "1,,2 * * * *",
            field(
                "1,,2 * * * *",
                "1,,2",
                "the list has an empty item (two commas in a row, or one at an end)",
                CronField::Minute,
            ),
        ),
        (
            "1/5 * * * *",
            field(
                "1/5 * * * *",
                "1/5",
                "\"1/5\" steps from a single value: write \"1-59/5\" (from 1 on) or \"*/5\"",
                CronField::Minute,
            ),
        ),
        (
            "/5 * * * *",
            field(
                "/5 * * * *",
                "/5",
                "\"/5\" has no start: write \"*/5\"",
                CronField::Minute,
            ),
        ),
        (
            "? * * * *",
            field(
                "? * * * *",
                "?",
                "\"?\" is for day-of-month and day-of-week only; write \"*\"",
                CronField::Minute,
            ),
        ),
        (
            "0 3- * * *",
            field(
                "0 3- * * *",
                "3-",
                "a range is missing a number on one side of its '-'",
                CronField::Hour,
            ),
        ),
    ];
    for (expr, expected) in &table {
        let err = ScheduleSpec::parse(&cron(expr, "UTC")).unwrap_err();
        assert_eq!(err.to_string(), *expected, "{expr:?}");
        assert_eq!(err.input(), "expr");
    }
    // croner judges what the light check lets through, still naming the field.
    let err = ScheduleSpec::parse(&cron("0 0 5X * *", "UTC")).unwrap_err();
    assert!(
        matches!(
            &err,
            ScheduleError::CronField {
                field: CronField::DayOfMonth,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with(
            "the day-of-month field of the cron expression \"0 0 5X * *\" is \"5X\": "
        ),
        "{err}"
    );
    // The special characters croner supports pass.
    for ok in [
        "0 0 L * *",
        "0 0 15W * *",
        "0 0 * * 5#3",
        "0 0 * * 5L",
        "0 0 ? * 1",
    ] {
        spec(&cron(ok, "UTC"));
    }
}

#[test]
fn a_cron_that_never_fires_is_refused_when_armed() {
    let feb30 = spec(&cron("0 0 30 2 *", "UTC"));
    let now = ms("2026-12-02T00:00:00Z");
    assert_eq!(feb30.next_after(now), None);
    let err = feb30.first_fire(now).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the cron expression \"0 0 30 2 *\" never fires: no date matches it (check the \
         day-of-month against the month)"
    );
}

#[test]
fn unknown_time_zones_suggest_the_nearest() {
    let table = [
        ("Europe/Berln", Some("Europe/Berlin")),
        ("europe/berlin", Some("Europe/Berlin")),
        ("America/New York", Some("America/New_York")),
        ("Mars/Olympus_Mons", None),
    ];
    for (tz, suggestion) in table {
        let err = ScheduleSpec::parse(&cron("0 3 * * *", tz)).unwrap_err();
        assert_eq!(
            err,
            ScheduleError::UnknownTimeZone {
                tz: tz.into(),
                suggestion: suggestion.map(str::to_owned),
            },
            "{tz}"
        );
        assert_eq!(err.input(), "tz");
    }
    let err = ScheduleSpec::parse(&cron("0 3 * * *", "Europe/Berln")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown time zone \"Europe/Berln\": use an IANA name such as Europe/Berlin, \
         America/New_York or UTC (did you mean \"Europe/Berlin\"?)"
    );
    for ok in [
        "UTC",
        "Etc/UTC",
        "Asia/Kolkata",
        "America/Argentina/Buenos_Aires",
    ] {
        spec(&cron("0 3 * * *", ok));
    }
}

#[test]
#[allow(clippy::too_many_lines)] // one table: every shape with its words
fn schedules_in_words() {
    let table: Vec<(ScheduleKind, &str)> = vec![
        (
            cron("47 3 * * *", "Europe/Berlin"),
            "every day at 03:47 (Europe/Berlin)",
        ),
        (ScheduleKind::Every { seconds: 300 }, "every 5 minutes"),
        (
            ScheduleKind::Once {
                at_ms: ms("2026-12-05T09:00:00Z"),
            },
            "once on 2026-12-05 09:00 UTC",
        ),
        (
            ScheduleKind::Once {
                at_ms: ms("2026-12-05T09:00:30Z"),
            },
            "once on 2026-12-05 09:00:30 UTC",
        ),
        (ScheduleKind::Every { seconds: 1 }, "every second"),
        (ScheduleKind::Every { seconds: 90 }, "every 90 seconds"),
        (ScheduleKind::Every { seconds: 3_600 }, "every hour"),
        (ScheduleKind::Every { seconds: 172_800 }, "every 2 days"),
        (cron("* * * * *", "UTC"), "every minute (UTC)"),
        (cron("*/5 * * * *", "UTC"), "every 5 minutes (UTC)"),
        (cron("*/30 * * * *", "UTC"), "every 30 minutes (UTC)"),
        (cron("5 * * * *", "UTC"), "every hour at :05 (UTC)"),
        (
            cron("0,30 * * * *", "UTC"),
            "every hour at :00 and :30 (UTC)",
        ),
        (cron("0 */2 * * *", "UTC"), "every 2 hours at :00 (UTC)"),
        (
            cron("0 9-17 * * 1-5", "UTC"),
            "every hour from 09:00 to 17:00 on weekdays (UTC)",
        ),
        (cron("0 9 * * 1-5", "UTC"), "on weekdays at 09:00 (UTC)"),
        (cron("0 9 * * MON-FRI", "UTC"), "on weekdays at 09:00 (UTC)"),
        (
            cron("0 9,17 * * *", "UTC"),
            "every day at 09:00 and 17:00 (UTC)",
        ),
        (cron("30 8 * * mon", "UTC"), "every Monday at 08:30 (UTC)"),
        (cron("0 10 * * 0,6", "UTC"), "on weekends at 10:00 (UTC)"),
        (cron("0 10 * * 6-7", "UTC"), "on weekends at 10:00 (UTC)"),
        (
            cron("0 8 * * 1,3,5", "UTC"),
            "on Monday, Wednesday and Friday at 08:00 (UTC)",
        ),
        (cron("0 0 * * 7", "UTC"), "every Sunday at 00:00 (UTC)"),
        (
            cron("0 0 1 * *", "UTC"),
            "on the 1st of every month at 00:00 (UTC)",
        ),
        (
            cron("0 6 1,15 * *", "UTC"),
            "on the 1st and 15th of every month at 06:00 (UTC)",
        ),
        (
            cron("0 0 L * *", "UTC"),
            "on the last day of every month at 00:00 (UTC)",
        ),
        (
            cron("0 12 25 12 *", "UTC"),
            "every year on the 25th of December at 12:00 (UTC)",
        ),
        (
            cron("0 7 * 1,7 *", "UTC"),
            "every day in January and July at 07:00 (UTC)",
        ),
        (
            cron("*/15 * * 12 *", "UTC"),
            "every 15 minutes in December (UTC)",
        ),
        (
            cron("*/10 * * * 1", "UTC"),
            "every 10 minutes on Mondays (UTC)",
        ),
        (cron("@daily", "UTC"), "every day at 00:00 (UTC)"),
        (cron("@hourly", "UTC"), "every hour at :00 (UTC)"),
        // Shapes without a sentence fall back to the expression.
        (cron("*/7 * * * *", "UTC"), "cron \"*/7 * * * *\" (UTC)"),
        (cron("0 0 1 * 1", "UTC"), "cron \"0 0 1 * 1\" (UTC)"),
        (cron("0 0 * * 5#3", "UTC"), "cron \"0 0 * * 5#3\" (UTC)"),
        (
            cron("0,15,30,45 8,12 * * *", "UTC"),
            "cron \"0,15,30,45 8,12 * * *\" (UTC)",
        ),
        // A stored spec that no longer parses is shown as written.
        (cron("bogus", "UTC"), "cron \"bogus\" (UTC)"),
        (
            cron("0 3 * * *", "Nowhere/Town"),
            "cron \"0 3 * * *\" (Nowhere/Town)",
        ),
    ];
    for (kind, expected) in &table {
        assert_eq!(describe(kind), *expected, "{kind:?}");
    }
}
