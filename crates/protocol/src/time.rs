//! Moments as text: ISO-8601 UTC, the form every API answer and record uses.

use std::time::Duration;

/// `since_epoch` as ISO-8601 UTC with milliseconds.
pub fn iso8601(since_epoch: Duration) -> String {
    let secs = since_epoch.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since_epoch.subsec_millis()
    )
}

/// A moment in ms since the Unix epoch as ISO-8601 UTC (moments before 1970 read as 1970).
pub fn iso8601_ms(ms: i64) -> String {
    iso8601(Duration::from_millis(u64::try_from(ms).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn iso8601_dates() {
        use std::time::Duration;
        assert_eq!(super::iso8601(Duration::ZERO), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            super::iso8601(Duration::from_millis(1_709_251_199_123)),
            "2024-02-29T23:59:59.123Z"
        );
        assert_eq!(super::iso8601_ms(-5), "1970-01-01T00:00:00.000Z");
    }
}
