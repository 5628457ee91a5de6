//! What the read tools return, within budgets: a sheet as a markdown table, a document's text
//! from a character on, slides' texts — each cut with a footer that says how to read on.

use serde_json::Value;

use crate::texts;

/// A markdown table's budget in characters (about 3,000 cl100k tokens).
pub const MARKDOWN_BUDGET: usize = 12_000;

/// How many rows `table2markdown` asks the helper for.
pub const MARKDOWN_ROWS: i64 = 500;

/// `get_document_text`'s default and largest `max_chars`.
pub const TEXT_DEFAULT: usize = 8_000;
/// See [`TEXT_DEFAULT`].
pub const TEXT_MAX: usize = 100_000;

/// `get_slides_text`'s budget in characters.
pub const SLIDES_BUDGET: usize = 12_000;

/// A cell as markdown shows it: numbers as numbers, text with `|` escaped and newlines as spaces.
pub fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.replace('|', "\\|").replace(['\n', '\r'], " "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `rows` (the first is the header) as a markdown table within [`MARKDOWN_BUDGET`]; `total` is
/// how many rows the sheet has.
pub fn markdown(rows: &[Vec<Value>], total: usize) -> String {
    let Some((head, body)) = rows.split_first() else {
        return String::new();
    };
    let line = |r: &[Value]| {
        let cells: Vec<String> = (0..head.len())
            .map(|i| r.get(i).map(cell).unwrap_or_default())
            .collect();
        format!("| {} |", cells.join(" | "))
    };
    let mut out = line(head);
    out.push('\n');
    out.push_str(&format!("|{}|", vec!["---"; head.len()].join("|")));
    let mut shown = 1;
    for r in body {
        let l = line(r);
        if out.len() + l.len() + 1 > MARKDOWN_BUDGET {
            break;
        }
        out.push('\n');
        out.push_str(&l);
        shown += 1;
    }
    if shown < total {
        out.push('\n');
        out.push_str(&texts::more_rows(shown, total));
    }
    out
}

/// Characters `start..start+max` of `text` (by Unicode scalar values), with a footer when more
/// follows.
pub fn slice(text: &str, start: usize, max: usize) -> (String, usize, usize) {
    let total = text.chars().count();
    let start = start.min(total);
    let end = (start + max).min(total);
    let mut out: String = text.chars().skip(start).take(end - start).collect();
    if end < total {
        out.push('\n');
        out.push_str(&texts::more_text(end, total));
    }
    (out, end, total)
}

/// Slides' texts (the helper's `slides`) as text, slide by slide, within [`SLIDES_BUDGET`].
pub fn slides(slides: &[Value]) -> String {
    let mut out = String::new();
    for (n, s) in slides.iter().enumerate() {
        let mut block = format!("Slide {}", s["index"]);
        let texts: Vec<&str> = s["texts"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if texts.is_empty() {
            block.push_str(" (no text)");
        }
        for t in texts {
            block.push('\n');
            block.push_str(t);
        }
        if let Some(notes) = s["notes"].as_array().filter(|n| !n.is_empty()) {
            let notes: Vec<&str> = notes.iter().filter_map(Value::as_str).collect();
            block.push_str("\nNotes: ");
            block.push_str(&notes.join(" / "));
        }
        if !out.is_empty() && out.len() + block.len() + 2 > SLIDES_BUDGET {
            out.push_str("\n\n");
            out.push_str(&texts::more_slides(n, slides.len()));
            break;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&block);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_sheet_reads_as_a_markdown_table() {
        let rows = vec![
            vec![json!("Name"), json!("Qty")],
            vec![json!("a|b"), json!(3)],
            vec![json!("Grüße"), json!(1.5)],
        ];
        assert_eq!(
            markdown(&rows, 3),
            "| Name | Qty |\n|---|---|\n| a\\|b | 3 |\n| Grüße | 1.5 |"
        );
        let more = markdown(&rows[..2], 40);
        assert!(
            more.ends_with(
                "… 38 more rows not shown (rows 3–40); read them with get_range_values."
            ),
            "{more}"
        );
    }

    #[test]
    fn text_is_sliced_by_characters_with_a_way_on() {
        let (s, end, total) = slice("日本語abc", 1, 3);
        assert_eq!((end, total), (4, 6));
        assert_eq!(
            s,
            "本語a\n… 2 more characters not shown; call get_document_text with start=4 to read on."
        );
        assert_eq!(slice("abc", 0, 10).0, "abc");
        assert_eq!(slice("abc", 99, 10).0, "");
    }

    #[test]
    fn slides_read_slide_by_slide() {
        let s = slides(&[
            json!({"index": 1, "texts": ["Title", "Body"], "notes": ["Say hi"]}),
            json!({"index": 2, "texts": [], "notes": []}),
        ]);
        assert_eq!(
            s,
            "Slide 1\nTitle\nBody\nNotes: Say hi\n\nSlide 2 (no text)"
        );
    }
}
