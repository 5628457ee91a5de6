//! The tools' arguments (UFO's COM executors' names and defaults) and their checks:
//! whole numbers in range, sheets by name or number, columns by number or letters, colours, the
//! cells of a table. Lenient where a model is: `"3"` for 3, `"C"` for column 3, `"#FF0000"`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::texts::{self, describe};

/// `insert_table`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct InsertTableArgs {
    #[schemars(description = describe::ROWS, with = "i64")]
    pub rows: Value,
    #[schemars(description = describe::COLUMNS, with = "i64")]
    pub columns: Value,
}

/// `select_text`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SelectTextArgs {
    #[schemars(description = describe::TEXT)]
    pub text: String,
}

/// `select_table`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SelectTableArgs {
    #[schemars(description = describe::NUMBER, with = "i64")]
    pub number: Value,
}

/// `select_paragraph`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SelectParagraphArgs {
    #[schemars(description = describe::START_INDEX, with = "i64")]
    pub start_index: Value,
    #[schemars(description = describe::END_INDEX, with = "i64")]
    pub end_index: Value,
    #[serde(default)]
    #[schemars(description = describe::NON_EMPTY)]
    pub non_empty: Option<bool>,
}

/// `set_font`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SetFontArgs {
    #[serde(default)]
    #[schemars(description = describe::FONT_NAME)]
    pub font_name: Option<String>,
    #[serde(default)]
    #[schemars(description = describe::FONT_SIZE, with = "Option<f64>")]
    pub font_size: Option<Value>,
}

/// `save_as`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SaveAsArgs {
    #[serde(default)]
    #[schemars(description = describe::FILE_DIR)]
    pub file_dir: Option<String>,
    #[serde(default)]
    #[schemars(description = describe::FILE_NAME)]
    pub file_name: Option<String>,
    #[serde(default)]
    #[schemars(description = describe::FILE_EXT)]
    pub file_ext: Option<String>,
    #[serde(default)]
    #[schemars(description = describe::CURRENT_SLIDE_ONLY)]
    pub current_slide_only: Option<bool>,
}

/// `get_document_text`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct TextArgs {
    #[serde(default)]
    #[schemars(description = describe::START, with = "Option<u64>")]
    pub start: Option<Value>,
    #[serde(default)]
    #[schemars(description = describe::MAX_CHARS, with = "Option<u64>")]
    pub max_chars: Option<Value>,
}

/// A sheet: its name or its number from 1 (the schema of `sheet_name`; values are read as JSON).
#[allow(dead_code)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SheetRef {
    /// By number.
    Number(i64),
    /// By name.
    Name(String),
}

/// `table2markdown`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SheetArgs {
    #[schemars(description = describe::SHEET_NAME, with = "SheetRef")]
    pub sheet_name: Value,
}

/// `insert_excel_table`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct InsertExcelTableArgs {
    #[schemars(description = describe::TABLE, with = "Vec<Vec<Value>>")]
    pub table: Value,
    #[schemars(description = describe::SHEET_NAME, with = "SheetRef")]
    pub sheet_name: Value,
    #[schemars(description = describe::START_ROW, with = "i64")]
    pub start_row: Value,
    #[schemars(description = describe::START_COL, with = "SheetRef")]
    pub start_col: Value,
}

/// `select_table_range` and `get_range_values`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RangeArgs {
    #[schemars(description = describe::SHEET_NAME, with = "SheetRef")]
    pub sheet_name: Value,
    #[schemars(description = describe::START_ROW, with = "i64")]
    pub start_row: Value,
    #[schemars(description = describe::START_COL, with = "SheetRef")]
    pub start_col: Value,
    #[serde(default)]
    #[schemars(description = describe::END_ROW, with = "Option<i64>")]
    pub end_row: Option<Value>,
    #[serde(default)]
    #[schemars(description = describe::END_COL, with = "Option<SheetRef>")]
    pub end_col: Option<Value>,
}

/// `reorder_columns`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ReorderArgs {
    #[schemars(description = describe::SHEET_NAME, with = "SheetRef")]
    pub sheet_name: Value,
    #[schemars(description = describe::DESIRED_ORDER)]
    pub desired_order: Vec<String>,
}

/// `set_background_color`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct BackgroundArgs {
    #[schemars(description = describe::COLOR)]
    pub color: String,
    #[serde(default)]
    #[schemars(description = describe::SLIDE_INDEX, with = "Option<Vec<i64>>")]
    pub slide_index: Option<Value>,
}

/// A whole number from a JSON number or a numeric string.
pub fn whole(field: &str, v: &Value) -> Result<i64, String> {
    let n = match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.ok_or_else(|| texts::not_a_number(field, &v.to_string()))
}

/// A whole number within `min..=max`.
pub fn within(field: &str, v: &Value, min: i64, max: i64) -> Result<i64, String> {
    let n = whole(field, v)?;
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(texts::out_of_range(field, n, min, max))
    }
}

/// A sheet name or number, as the helper takes it (a JSON string or number).
pub fn sheet(v: &Value) -> Result<Value, String> {
    match v {
        Value::Number(n) if n.as_i64().is_some() => Ok(v.clone()),
        Value::String(s) if !s.trim().is_empty() => Ok(Value::String(s.trim().to_owned())),
        _ => Err(texts::bad_sheet(&v.to_string())),
    }
}

/// A column from its number (1-based) or letters (`A` = 1, `AA` = 27); `allow_end` admits -1.
pub fn column(field: &str, v: &Value, allow_end: bool) -> Result<i64, String> {
    let bad = || texts::bad_column(field, &v.to_string());
    if let Value::String(s) = v {
        let s = s.trim();
        if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic()) {
            let n = s.chars().try_fold(0i64, |acc, c| {
                acc.checked_mul(26)?
                    .checked_add(i64::from(c.to_ascii_uppercase() as u8 - b'A' + 1))
            });
            return n.filter(|n| *n <= 16384).ok_or_else(bad);
        }
    }
    let n = whole(field, v).map_err(|_| bad())?;
    if (allow_end && n == -1) || (1..=16384).contains(&n) {
        Ok(n)
    } else {
        Err(texts::out_of_range(field, n, 1, 16384))
    }
}

/// A row (1-based); `allow_end` admits -1.
pub fn row(field: &str, v: &Value, allow_end: bool) -> Result<i64, String> {
    let n = whole(field, v)?;
    if (allow_end && n == -1) || (1..=1_048_576).contains(&n) {
        Ok(n)
    } else {
        Err(texts::out_of_range(field, n, 1, 1_048_576))
    }
}

/// A hex RGB colour (`FF8800`, `#ff8800`, `0xFF8800`) as its number and canonical text.
pub fn color(s: &str) -> Result<(i64, String), String> {
    let t = s.trim();
    let hex = t
        .strip_prefix('#')
        .or_else(|| t.strip_prefix("0x"))
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(texts::bad_color(s));
    }
    let n = i64::from_str_radix(hex, 16).map_err(|_| texts::bad_color(s))?;
    Ok((n, hex.to_ascii_uppercase()))
}

/// `slide_index`: a list of numbers, one number, or nothing (every slide).
pub fn slides(v: Option<&Value>) -> Result<Option<Vec<i64>>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) if items.is_empty() => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| whole("slide_index", i))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(one) => Ok(Some(vec![whole("slide_index", one)?])),
    }
}

/// A table of cells: rows of strings, numbers, booleans or nulls; returns it with its size.
pub fn table(v: &Value) -> Result<(Value, i64, i64), String> {
    let rows = v
        .as_array()
        .filter(|r| !r.is_empty())
        .ok_or(texts::BAD_TABLE)?;
    let mut width = 0;
    for (i, row) in rows.iter().enumerate() {
        let cells = row.as_array().ok_or(texts::BAD_TABLE)?;
        for (j, cell) in cells.iter().enumerate() {
            if matches!(cell, Value::Array(_) | Value::Object(_)) {
                return Err(texts::bad_cell(i, j));
            }
        }
        width = width.max(cells.len());
    }
    if width == 0 {
        return Err(texts::BAD_TABLE.to_owned());
    }
    Ok((v.clone(), rows.len() as i64, width as i64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_whole_and_in_range() {
        assert_eq!(whole("rows", &json!(3)), Ok(3));
        assert_eq!(whole("rows", &json!("4")), Ok(4));
        assert_eq!(whole("rows", &json!(2.0)), Ok(2));
        assert_eq!(
            whole("rows", &json!(2.5)).unwrap_err(),
            "rows must be a whole number, got 2.5."
        );
        assert_eq!(
            within("rows", &json!(0), 1, 10).unwrap_err(),
            "rows must be a whole number from 1 to 10, got 0."
        );
    }

    #[test]
    fn columns_take_numbers_or_letters() {
        assert_eq!(column("start_col", &json!("A"), false), Ok(1));
        assert_eq!(column("start_col", &json!("aa"), false), Ok(27));
        assert_eq!(column("start_col", &json!("XFD"), false), Ok(16384));
        assert!(column("start_col", &json!("XFE"), false).is_err());
        assert_eq!(column("end_col", &json!(-1), true), Ok(-1));
        assert!(column("start_col", &json!(-1), false).is_err());
        assert!(column("start_col", &json!("A1"), false).is_err());
    }

    #[test]
    fn colours_are_hex_rgb() {
        assert_eq!(color("#1e90ff"), Ok((0x1E90FF, "1E90FF".to_owned())));
        assert_eq!(color("FF8800").unwrap().0, 0xFF8800);
        assert!(color("red").is_err());
        assert!(color("#FFF").is_err());
    }

    #[test]
    fn slide_lists_and_tables_are_checked() {
        assert_eq!(slides(None), Ok(None));
        assert_eq!(slides(Some(&json!(2))), Ok(Some(vec![2])));
        assert_eq!(slides(Some(&json!([1, "3"]))), Ok(Some(vec![1, 3])));
        assert_eq!(table(&json!([["a", 1], [null, true, 2.5]])).unwrap().1, 2);
        assert_eq!(table(&json!([["a", 1], [null, true, 2.5]])).unwrap().2, 3);
        assert!(table(&json!([])).is_err());
        assert!(table(&json!([[]])).is_err());
        assert_eq!(
            table(&json!([["a", [1]]])).unwrap_err(),
            texts::bad_cell(0, 1)
        );
    }
}
