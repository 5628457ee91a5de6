//! Conversions between Rust values and columns: unsigned counters in signed BIGINTs, flags in
//! BIGINT 0/1, JSON in TEXT, pages as LIMIT/OFFSET, the clock, the reasoning cap.

use std::time::{SystemTime, UNIX_EPOCH};

use deft_protocol::Usage;
use sqlx::any::AnyRow;
use sqlx::{Any, Row};

use crate::error::{Result, StoreError, db};
use crate::{MAX_PAGE, MAX_REASONING_CHARS, Page};

/// One column of a row; `action` says what the store was doing, for the error.
pub(crate) fn column<'r, T>(row: &'r AnyRow, col: &str, action: &'static str) -> Result<T>
where
    T: sqlx::Decode<'r, Any> + sqlx::Type<Any>,
{
    row.try_get(col).map_err(db(action))
}

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A counter as the database stores it.
pub(crate) fn to_db(what: &'static str, value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| StoreError::OutOfRange { what, value })
}

/// A stored counter back; a negative value is corruption.
pub(crate) fn from_db(what: &str, value: i64) -> Result<u64> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt {
        what: what.to_owned(),
        cause: format!("negative count {value}"),
    })
}

/// The usage columns (`prompt_tokens`, `completion_tokens`, `total_tokens`, `calls`) as bind
/// values, in that order.
pub(crate) fn usage_to_db(u: &Usage) -> Result<[i64; 4]> {
    Ok([
        to_db("prompt_tokens", u.prompt_tokens)?,
        to_db("completion_tokens", u.completion_tokens)?,
        to_db("total_tokens", u.total_tokens)?,
        to_db("calls", u.calls)?,
    ])
}

/// Reads the usage columns of a row.
pub(crate) fn usage_from_row(row: &AnyRow, what: &str) -> Result<Usage> {
    let get = |col: &str| -> Result<u64> {
        let v: i64 = row.try_get(col).map_err(|e| StoreError::Corrupt {
            what: format!("{what}, column {col}"),
            cause: e.to_string(),
        })?;
        from_db(&format!("{what}, column {col}"), v)
    };
    Ok(Usage {
        prompt_tokens: get("prompt_tokens")?,
        completion_tokens: get("completion_tokens")?,
        total_tokens: get("total_tokens")?,
        calls: get("calls")?,
    })
}

/// Parses a JSON column; `what` names the row and column in the error.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        what: what.to_owned(),
        cause: format!("not the expected JSON ({e})"),
    })
}

/// Serializes a value for a JSON column. Values the store takes always serialize.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

/// A flag as the database stores it (BIGINT 0/1: one type on both backends).
pub(crate) fn flag(value: bool) -> i64 {
    i64::from(value)
}

/// A stored flag back: anything but 0 is set.
pub(crate) fn flag_from(row: &AnyRow, col: &str, action: &'static str) -> Result<bool> {
    Ok(column::<i64>(row, col, action)? != 0)
}

/// `LIMIT` and `OFFSET` of a page; [`StoreError::Invalid`] for a limit outside 1 to
/// [`MAX_PAGE`].
pub(crate) fn page_bounds(page: Page) -> Result<(i64, i64)> {
    if page.limit == 0 || page.limit > MAX_PAGE {
        return Err(StoreError::Invalid(format!(
            "a page holds 1 to {MAX_PAGE} items, not {}",
            page.limit
        )));
    }
    Ok((i64::from(page.limit), to_db("a page offset", page.offset)?))
}

/// The first [`MAX_REASONING_CHARS`] characters of `text` (cut on a character boundary).
pub(crate) fn cap_reasoning(text: &str) -> &str {
    match text.char_indices().nth(MAX_REASONING_CHARS) {
        Some((byte, _)) => &text[..byte],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_keeps_whole_characters() {
        let text = "推".repeat(MAX_REASONING_CHARS + 5);
        let capped = cap_reasoning(&text);
        assert_eq!(capped.chars().count(), MAX_REASONING_CHARS);
        assert_eq!(capped.len(), MAX_REASONING_CHARS * "推".len());
        assert_eq!(cap_reasoning("short"), "short");
    }

    #[test]
    fn counters_beyond_i64_are_refused() {
        let err = to_db("total_tokens", u64::MAX).unwrap_err();
        assert!(
            err.to_string().contains("total_tokens is too large"),
            "{err}"
        );
        assert_eq!(to_db("calls", 7).unwrap(), 7);
        assert!(
            from_db("runs x", -1)
                .unwrap_err()
                .to_string()
                .contains("negative")
        );
    }
}
