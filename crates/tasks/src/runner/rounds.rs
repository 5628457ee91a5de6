//! A `for_each`'s rounds: each round's variables, from the items written in the step, a
//! variable's JSON array or lines, or a CSV file's rows (the first row the header). More
//! than [`MAX_ROUNDS`] fails the step before its first round.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::csv;
use super::outcome::StepError;
use super::texts;
use crate::step::limits::MAX_ROUNDS;
use crate::step::{Item, Source};
use crate::vars::Vars;

/// One round's variables: the item's text as `name`; an object's fields (or a row's
/// columns) as `name.field`, and the whole object as JSON text as `name`.
pub(crate) type Round = BTreeMap<String, String>;

/// The rounds of `source` (its `csv` already expanded), the item called `name`.
pub(crate) fn rounds(
    source: &Source,
    name: &str,
    vars: &Vars,
    csv_dirs: &[PathBuf],
) -> Result<Vec<Round>, StepError> {
    let items = match source {
        Source::Items { items } => items.clone(),
        Source::Variable { variable } => {
            let value = vars
                .get(variable)
                .ok_or_else(|| StepError(texts::for_each_variable_missing(variable)))?;
            variable_items(value)
        }
        Source::Csv { csv } => csv_items(csv, csv_dirs)?,
    };
    if items.len() > MAX_ROUNDS {
        return Err(StepError(texts::too_many_rounds(
            items.len(),
            MAX_ROUNDS,
            &source_name(source),
        )));
    }
    Ok(items.iter().map(|item| round_of(name, item)).collect())
}

/// The source as a person reads it: `items`, `the variable list`, `the csv file /a/b.csv`.
fn source_name(source: &Source) -> String {
    match source {
        Source::Items { .. } => "items".to_owned(),
        Source::Variable { variable } => format!("the variable {variable}"),
        Source::Csv { csv } => format!("the csv file {csv}"),
    }
}

fn round_of(name: &str, item: &Item) -> Round {
    match item {
        Item::Text(t) => [(name.to_owned(), t.clone())].into(),
        Item::Fields(fields) => {
            let whole = serde_json::to_string(fields).unwrap_or_default();
            let mut round: Round = fields
                .iter()
                .map(|(k, v)| (format!("{name}.{k}"), v.clone()))
                .collect();
            round.insert(name.to_owned(), whole);
            round
        }
    }
}

/// A variable's items: a JSON array (texts, or objects whose values are read as text), else
/// one item per non-blank line.
fn variable_items(value: &str) -> Vec<Item> {
    if value.trim_start().starts_with('[')
        && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(value)
    {
        return items.iter().map(json_item).collect();
    }
    value
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .map(|l| Item::Text(l.to_owned()))
        .collect()
}

fn json_item(v: &Value) -> Item {
    match v {
        Value::Object(obj) => {
            Item::Fields(obj.iter().map(|(k, v)| (k.clone(), text_of(v))).collect())
        }
        other => Item::Text(text_of(other)),
    }
}

/// A JSON value as a variable's text: a string as it is, `null` empty, anything else as JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A CSV file's rows as items: each column by its header (a row shorter than the header leaves
/// the rest empty; cells past the header are dropped).
fn csv_items(path: &str, dirs: &[PathBuf]) -> Result<Vec<Item>, StepError> {
    let mut rows = csv::read_rows(path, dirs)?.into_iter();
    let Some(header) = rows.next() else {
        return Ok(Vec::new());
    };
    let header: Vec<String> = header.iter().map(|h| h.trim().to_owned()).collect();
    Ok(rows
        .map(|row| {
            let fields = header
                .iter()
                .enumerate()
                .filter(|(_, h)| !h.is_empty())
                .map(|(i, h)| (h.clone(), row.get(i).cloned().unwrap_or_default()))
                .collect();
            Item::Fields(fields)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variable_is_a_json_array_or_lines() {
        let items = variable_items(r#"["a", {"name": "Zoë", "qty": 2}]"#);
        assert_eq!(items[0], Item::Text("a".into()));
        assert_eq!(
            round_of("item", &items[1]),
            Round::from([
                ("item".into(), r#"{"name":"Zoë","qty":"2"}"#.into()),
                ("item.name".into(), "Zoë".into()),
                ("item.qty".into(), "2".into()),
            ])
        );
        let lines = variable_items("one\r\n\n two \nthree");
        assert_eq!(
            lines,
            vec![
                Item::Text("one".into()),
                Item::Text(" two ".into()),
                Item::Text("three".into())
            ]
        );
        assert_eq!(
            variable_items("[not json"),
            vec![Item::Text("[not json".into())]
        );
    }
}
