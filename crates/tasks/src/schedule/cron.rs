//! Cron expressions: the five standard fields (minute hour day-of-month month day-of-week,
//! Vixie semantics: a restricted day-of-month and day-of-week match either), the usual
//! nicknames (`@daily` …), and a check of each field that says which field is wrong and how,
//! before croner parses the whole.

use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

use super::ScheduleError;

/// The five fields, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CronField {
    /// 0–59.
    Minute,
    /// 0–23.
    Hour,
    /// 1–31, `L` (last), `W` (nearest weekday).
    DayOfMonth,
    /// 1–12 or JAN–DEC.
    Month,
    /// 0–7 (0 and 7 are Sunday) or SUN–SAT, `L` (last), `#` (nth).
    DayOfWeek,
}

impl CronField {
    /// Every field, in expression order.
    pub const ALL: [CronField; 5] = [
        CronField::Minute,
        CronField::Hour,
        CronField::DayOfMonth,
        CronField::Month,
        CronField::DayOfWeek,
    ];

    /// The field's name in texts.
    pub const fn name(self) -> &'static str {
        match self {
            CronField::Minute => "minute",
            CronField::Hour => "hour",
            CronField::DayOfMonth => "day-of-month",
            CronField::Month => "month",
            CronField::DayOfWeek => "day-of-week",
        }
    }

    /// The smallest and largest number it takes.
    pub const fn range(self) -> (u32, u32) {
        match self {
            CronField::Minute => (0, 59),
            CronField::Hour => (0, 23),
            CronField::DayOfMonth => (1, 31),
            CronField::Month => (1, 12),
            CronField::DayOfWeek => (0, 7),
        }
    }

    /// What the numbers count, for "… are 0–59".
    const fn plural(self) -> &'static str {
        match self {
            CronField::Minute => "minutes",
            CronField::Hour => "hours",
            CronField::DayOfMonth => "days of the month",
            CronField::Month => "months",
            CronField::DayOfWeek => "days of the week (0 and 7 are Sunday)",
        }
    }

    /// The names it takes instead of numbers (index + first number).
    fn names(self) -> &'static [&'static str] {
        match self {
            CronField::Month => &MONTHS,
            CronField::DayOfWeek => &WEEKDAYS,
            _ => &[],
        }
    }
}

/// Month names as cron writes them; index 0 is month 1.
pub(crate) const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

/// Weekday names as cron writes them; index 0 is day 0 (Sunday).
pub(crate) const WEEKDAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// The nicknames and the fields they stand for.
const NICKNAMES: [(&str, &str); 7] = [
    ("@yearly", "0 0 1 1 *"),
    ("@annually", "0 0 1 1 *"),
    ("@monthly", "0 0 1 * *"),
    ("@weekly", "0 0 * * 0"),
    ("@daily", "0 0 * * *"),
    ("@midnight", "0 0 * * *"),
    ("@hourly", "0 * * * *"),
];

/// A parsed expression: the fields as written (upper-cased, nicknames expanded) and croner's
/// pattern.
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    /// The five fields.
    pub fields: [String; 5],
    /// croner's pattern of them.
    pub cron: Cron,
}

/// Parses a 5-field expression or a nickname; every error names the field and what is wrong.
pub(crate) fn parse(expr: &str) -> Result<Parsed, ScheduleError> {
    let trimmed = expr.trim();
    if trimmed.is_empty() {
        return Err(ScheduleError::EmptyCron);
    }
    let expanded = if trimmed.starts_with('@') {
        let lower = trimmed.to_ascii_lowercase();
        NICKNAMES
            .iter()
            .find(|(nick, _)| *nick == lower)
            .map(|(_, fields)| (*fields).to_owned())
            .ok_or_else(|| ScheduleError::UnknownNickname {
                expr: trimmed.to_owned(),
            })?
    } else {
        trimmed.to_owned()
    };
    let parts: Vec<&str> = expanded.split_whitespace().collect();
    let Ok(fields) = <[&str; 5]>::try_from(parts.as_slice()) else {
        return Err(ScheduleError::FieldCount {
            expr: trimmed.to_owned(),
            count: parts.len(),
        });
    };
    for (field, text) in CronField::ALL.into_iter().zip(fields) {
        check_field(field, text).map_err(|problem| ScheduleError::CronField {
            expr: trimmed.to_owned(),
            field,
            value: text.to_owned(),
            problem,
        })?;
        // What the light check above lets through, croner judges, still for this one field.
        let alone = alone_in_pattern(field, &text.to_ascii_uppercase());
        parser()
            .parse(&alone)
            .map_err(|e| ScheduleError::CronField {
                expr: trimmed.to_owned(),
                field,
                value: text.to_owned(),
                problem: croner_problem(&e),
            })?;
    }
    let cron = parser()
        .parse(&expanded.to_ascii_uppercase())
        .map_err(|e| ScheduleError::Cron {
            expr: trimmed.to_owned(),
            problem: croner_problem(&e),
        })?;
    Ok(Parsed {
        fields: fields.map(str::to_ascii_uppercase),
        cron,
    })
}

/// croner's parser for the standard 5 fields: no seconds, no year, Vixie day matching.
fn parser() -> CronParser {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
}

/// A pattern with `text` in `field` and `*` in every other field.
fn alone_in_pattern(field: CronField, text: &str) -> String {
    CronField::ALL
        .iter()
        .map(|f| if *f == field { text } else { "*" })
        .collect::<Vec<_>>()
        .join(" ")
}

/// croner's message without its error-kind prefix.
fn croner_problem(e: &croner::errors::CronError) -> String {
    use croner::errors::CronError;
    match e {
        CronError::InvalidPattern(m)
        | CronError::IllegalCharacters(m)
        | CronError::ComponentError(m) => m.trim_end_matches('.').to_owned(),
        other => other.to_string().trim_end_matches('.').to_owned(),
    }
}

/// The mistakes people make most, said plainly: numbers out of range, unknown names,
/// backwards ranges, zero or missing steps, empty list items, `?` where it has no meaning.
/// Items with `L`, `W` or `#` are left to croner.
fn check_field(field: CronField, text: &str) -> Result<(), String> {
    for item in text.split(',') {
        if item.is_empty() {
            return Err(
                "the list has an empty item (two commas in a row, or one at an end)".into(),
            );
        }
        if !is_special(field, item) {
            check_item(field, item)?;
        }
    }
    Ok(())
}

/// An item with `L`, `W` or `#` (last, nearest weekday, nth weekday): croner's to judge.
fn is_special(field: CronField, item: &str) -> bool {
    let upper = item.to_ascii_uppercase();
    match field {
        CronField::DayOfMonth => upper.contains(['L', 'W']),
        CronField::DayOfWeek => {
            upper.contains('#')
                || upper == "L"
                || upper
                    .strip_suffix('L')
                    .is_some_and(|day| value(field, day).is_ok())
        }
        _ => false,
    }
}

fn check_item(field: CronField, item: &str) -> Result<(), String> {
    let (range, step) = match item.split_once('/') {
        Some((range, step)) => (range, Some(step)),
        None => (item, None),
    };
    if let Some(step) = step {
        let n: u32 = step
            .parse()
            .map_err(|_| format!("the step {step:?} in {item:?} is not a whole number"))?;
        if n == 0 {
            return Err(format!("the step in {item:?} is 0; a step is at least 1"));
        }
        if range.is_empty() {
            return Err(format!("{item:?} has no start: write \"*/{step}\""));
        }
    }
    match range {
        "*" => Ok(()),
        "?" if matches!(field, CronField::DayOfMonth | CronField::DayOfWeek) => Ok(()),
        "?" => Err("\"?\" is for day-of-month and day-of-week only; write \"*\"".into()),
        _ => match range.split_once('-') {
            Some((from, to)) => {
                let a = value(field, from)?;
                let b = value(field, to)?;
                if a > b {
                    return Err(format!(
                        "the range {range} runs backwards: write the smaller {} first",
                        if field.names().is_empty() {
                            "number"
                        } else {
                            "value"
                        }
                    ));
                }
                Ok(())
            }
            None => {
                value(field, range)?;
                if let Some(step) = step {
                    let (_, max) = field.range();
                    return Err(format!(
                        "{item:?} steps from a single value: write \"{range}-{max}/{step}\" \
                         (from {range} on) or \"*/{step}\""
                    ));
                }
                Ok(())
            }
        },
    }
}

/// A number or name of `field`, checked against its range.
fn value(field: CronField, text: &str) -> Result<u32, String> {
    let (min, max) = field.range();
    if let Some(i) = field
        .names()
        .iter()
        .position(|n| n.eq_ignore_ascii_case(text))
    {
        return Ok(u32::try_from(i).expect("at most 12 names")
            + if field == CronField::Month { 1 } else { 0 });
    }
    if text.is_empty() {
        return Err("a range is missing a number on one side of its '-'".into());
    }
    let n: u32 = text.parse().map_err(|_| match field {
        CronField::Month => format!("{text:?} is not a month: use 1–12 or JAN–DEC"),
        CronField::DayOfWeek => format!("{text:?} is not a day of the week: use 0–7 or SUN–SAT"),
        _ => format!(
            "{text:?} is not a number ({} are {min}–{max})",
            field.plural()
        ),
    })?;
    if n < min || n > max {
        return Err(format!(
            "{n} is out of range: {} are {min}–{max}",
            field.plural()
        ));
    }
    Ok(n)
}
