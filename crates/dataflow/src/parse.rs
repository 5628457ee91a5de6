//! Reading a JSON object out of a model's answer, tolerantly: the answer alone, a fenced block
//! (```` ```json ```` or a bare fence), or the first balanced `{…}` amid chatter; raw line breaks
//! and tabs inside strings (which models write and JSON forbids) are escaped first. Anything else
//! is an error that quotes the answer.
//!
//! ```
//! use deft_dataflow::parse::json_object;
//! let v = json_object("Sure! Here it is:\n```json\n{\"judge\": true}\n```\nAnything else?").unwrap();
//! assert_eq!(v["judge"], true);
//! assert!(json_object("I cannot help with that.").is_err());
//! ```

use serde_json::{Map, Value};

use crate::texts;

/// The JSON object in `answer`.
pub fn json_object(answer: &str) -> Result<Map<String, Value>, String> {
    for candidate in candidates(answer) {
        if let Some(m) = object(&candidate) {
            return Ok(m);
        }
    }
    Err(texts::not_json(answer))
}

fn object(text: &str) -> Option<Map<String, Value>> {
    let text = text.trim();
    let parsed = serde_json::from_str::<Value>(text)
        .ok()
        .or_else(|| serde_json::from_str::<Value>(&escape_controls_in_strings(text)).ok());
    match parsed? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// The texts that may be the object, most likely first: the whole answer, each fenced block,
/// each balanced `{…}` outside strings.
fn candidates(answer: &str) -> Vec<String> {
    let mut out = vec![answer.to_owned()];
    out.extend(fenced_blocks(answer));
    out.extend(balanced_objects(answer));
    out
}

/// The bodies of ```` ``` ```` fences (the language tag on the opening line is dropped).
fn fenced_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                blocks.push(body[..close].to_owned());
                rest = &body[close + 3..];
            }
            None => {
                blocks.push(body.to_owned());
                break;
            }
        }
    }
    blocks
}

/// Each top-level `{…}` whose braces balance, skipping braces inside strings.
fn balanced_objects(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' if depth > 0 => in_string = true,
            '{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(text[start..=i].to_owned());
                }
            }
            _ => {}
        }
    }
    out
}

/// `text` with raw control characters inside string literals written as escapes.
fn escape_controls_in_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            } else if c.is_control() {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    other => out.push_str(&format!("\\u{:04x}", other as u32)),
                }
                continue;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_fenced_and_surrounded_answers_are_read() {
        for answer in [
            r#"{"a": 1}"#,
            "```json\n{\"a\": 1}\n```",
            "```\n{\"a\": 1}\n```",
            "```JSON {\"a\": 1}```",
            "Here you go: {\"a\": 1} — hope it helps {not json}",
            "Thinking about {braces} first… then {\"a\": 1}",
            "{\"a\": 1, \"why\": \"a line\nbreak and a\ttab\"}",
            "{\"a\": 1, \"s\": \"a } inside\"}",
        ] {
            let v = json_object(answer).unwrap_or_else(|e| panic!("{answer:?}: {e}"));
            assert_eq!(v["a"], 1, "{answer:?}");
        }
    }

    #[test]
    fn answers_without_an_object_are_refused_with_a_quote() {
        for answer in ["", "no", "[1, 2]", "{\"a\": ", "```json\n[1]\n```"] {
            let err = json_object(answer).unwrap_err();
            assert!(err.contains("JSON object"), "{answer:?}: {err}");
        }
        let long = "x".repeat(5000);
        assert!(json_object(&long).unwrap_err().len() < 700);
    }
}
