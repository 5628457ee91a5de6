//! Reading JSON out of a model's answer, tolerantly — the one reader of every part that asks a
//! model for JSON (the dataflow's stages, the memory's distilling and audit).
//!
//! What is passed over: code fences (```` ```json ```` or bare), prose around the JSON, raw line
//! breaks and tabs inside strings (which models write and JSON forbids) and trailing commas
//! before a `}` or `]`. An answer that was cut off (the output limit, a size cap) still yields
//! its complete objects: the outermost complete ones at the shallowest depth, so a cut list of
//! actions gives its whole actions and not the steps of the one that was cut.
//!
//! - [`json_object`]: the one JSON object an answer holds (the answer alone, a fenced block, or
//!   the first balanced `{…}` amid chatter).
//! - [`salvage`]: the value an answer holds whole, or the complete objects of a cut one.
//!
//! ```
//! use deft_agent::answer::{json_object, salvage, Salvaged};
//! let v = json_object("Sure! Here it is:\n```json\n{\"judge\": true,}\n```\nAnything else?").unwrap();
//! assert_eq!(v["judge"], true);
//! assert!(json_object("I cannot help with that.").is_none());
//! let cut = salvage(r#"[{"n": 1}, {"n": 2, "verd"#).unwrap();
//! assert!(matches!(cut, Salvaged::Pieces(ref p) if p.len() == 1));
//! ```

use serde_json::{Map, Value};

/// The JSON object in `answer`, or `None` when it holds none.
pub fn json_object(answer: &str) -> Option<Map<String, Value>> {
    candidates(answer).iter().find_map(|c| object(c))
}

/// What an answer held.
#[derive(Debug, Clone, PartialEq)]
pub enum Salvaged {
    /// The JSON value parsed whole.
    Whole(Value),
    /// The answer was cut off (or otherwise broken); these complete objects were in it.
    Pieces(Vec<Value>),
}

impl Salvaged {
    /// The objects the answer holds: the whole value's items under `list_key` (or the value
    /// itself when it is a list, or the one object), else the pieces.
    pub fn objects(&self, list_key: &str) -> Vec<Value> {
        match self {
            Salvaged::Whole(Value::Array(items)) => items.clone(),
            Salvaged::Whole(v @ Value::Object(m)) => match m.get(list_key) {
                Some(Value::Array(items)) => items.clone(),
                _ => vec![v.clone()],
            },
            Salvaged::Whole(_) => Vec::new(),
            Salvaged::Pieces(p) => p.clone(),
        }
    }
}

/// The value `answer` holds from its first `{` or `[` on: whole when it parses (repaired if need
/// be), else the complete objects in it. `None`: no JSON object or list in it at all.
pub fn salvage(answer: &str) -> Option<Salvaged> {
    let start = answer.find(['{', '['])?;
    let text = &answer[start..];
    if let Some(v) = first_value(text).or_else(|| first_value(&repaired(text))) {
        return Some(Salvaged::Whole(v));
    }
    Some(Salvaged::Pieces(complete_objects(&repaired(text))))
}

/// The first JSON value at the start of `text` (anything after it is ignored).
fn first_value(text: &str) -> Option<Value> {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    values.next()?.ok()
}

/// `text` parsed as one object, as written or repaired.
fn object(text: &str) -> Option<Map<String, Value>> {
    let text = text.trim();
    let parsed = serde_json::from_str::<Value>(text)
        .ok()
        .or_else(|| serde_json::from_str::<Value>(&repaired(text)).ok());
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

/// Follows string literals through a text: which characters are inside one.
#[derive(Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Takes the next character; true when it belongs to a string literal (its quotes included).
    fn step(&mut self, c: char) -> bool {
        if self.inside {
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => self.inside = false,
                _ => {}
            }
            return true;
        }
        if c == '"' {
            self.inside = true;
            return true;
        }
        false
    }
}

/// Each top-level `{…}` whose braces balance, skipping braces inside strings.
fn balanced_objects(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let mut strings = Strings::default();
    for (i, c) in text.char_indices() {
        // Quotes outside any object are prose (an apostrophe-like `"`), not a string.
        if (depth > 0 || strings.inside) && strings.step(c) {
            continue;
        }
        match c {
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

/// The outermost complete `{…}` objects at the shallowest depth where any completes, parsed.
fn complete_objects(text: &str) -> Vec<Value> {
    // Open brackets: (bracket, position).
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut strings = Strings::default();
    // Complete objects as (depth at their start, start, end).
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (i, c) in text.char_indices() {
        if strings.step(c) {
            continue;
        }
        match c {
            '{' | '[' => stack.push((c, i)),
            '}' | ']' => {
                let want = if c == '}' { '{' } else { '[' };
                match stack.pop() {
                    Some((open, at)) if open == want => {
                        if c == '}' {
                            found.push((stack.len(), at, i + 1));
                        }
                    }
                    // Mismatched brackets: nothing after this point can be trusted.
                    _ => break,
                }
            }
            _ => {}
        }
    }
    let Some(depth) = found.iter().map(|f| f.0).min() else {
        return Vec::new();
    };
    found
        .iter()
        .filter(|f| f.0 == depth)
        .filter_map(|&(_, start, end)| serde_json::from_str::<Value>(&text[start..end]).ok())
        .filter(Value::is_object)
        .collect()
}

/// `text` with what models get wrong repaired: raw control characters inside string literals
/// written as escapes, and commas before a closing `}` or `]` dropped.
fn repaired(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut strings = Strings::default();
    // Where a comma outside strings was written, while only white space has followed it.
    let mut comma: Option<usize> = None;
    for c in text.chars() {
        let was_inside = strings.inside;
        if strings.step(c) {
            comma = None;
            if was_inside && c.is_control() {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    other => out.push_str(&format!("\\u{:04x}", other as u32)),
                }
                continue;
            }
            out.push(c);
            continue;
        }
        match c {
            '}' | ']' => {
                if let Some(at) = comma.take() {
                    out.remove(at);
                }
            }
            ',' => comma = Some(out.len()),
            c if c.is_whitespace() => {}
            _ => comma = None,
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // ── json_object (the dataflow's questions) ──

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
            let v = json_object(answer).unwrap_or_else(|| panic!("{answer:?}"));
            assert_eq!(v["a"], 1, "{answer:?}");
        }
    }

    #[test]
    fn answers_without_an_object_are_refused() {
        for answer in ["", "no", "[1, 2]", "{\"a\": ", "```json\n[1]\n```"] {
            assert_eq!(json_object(answer), None, "{answer:?}");
        }
    }

    #[test]
    fn trailing_commas_are_passed_over_outside_strings_only() {
        let v = json_object("```json\n{\"a\": [1, 2,], \"s\": \", }\",\n}\n```").unwrap();
        assert_eq!(Value::Object(v), json!({"a": [1, 2], "s": ", }"}));
        let s = salvage("Here: {\"actions\": [{\"name\": \"A\",}, ], } thanks").unwrap();
        assert_eq!(s.objects("actions"), [json!({"name": "A"})]);
    }

    // ── salvage (the memory's questions) ──

    #[test]
    fn a_whole_answer_in_a_code_fence_parses() {
        let s =
            salvage("Here you go:\n```json\n{\"title\": \"t\", \"recipe\": \"r\"}\n```").unwrap();
        assert_eq!(s, Salvaged::Whole(json!({"title": "t", "recipe": "r"})));
        assert_eq!(s.objects("actions"), [json!({"title": "t", "recipe": "r"})]);
    }

    #[test]
    fn a_cut_list_yields_its_complete_items_not_the_inner_steps() {
        let cut = r#"{"actions": [{"name": "A", "steps": [{"type": "wait", "seconds": 1}]},
            {"name": "B {x}", "steps": []}, {"name": "C", "steps": [{"type": "click", "selector": {"text": "O"#;
        let s = salvage(cut).unwrap();
        let objects = s.objects("actions");
        let names: Vec<&str> = objects
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["A", "B {x}"], "braces inside strings do not count");
    }

    #[test]
    fn a_cut_single_object_yields_nothing() {
        let s = salvage(r#"{"title": "Sum", "recipe": "Open the calcul"#).unwrap();
        assert_eq!(s, Salvaged::Pieces(vec![]));
        assert_eq!(salvage("no json here"), None);
        let s = salvage(r#"[{"n": 1, "verdict": "keep"}, {"n": 2, "verd"#).unwrap();
        assert_eq!(s.objects("reviews"), [json!({"n": 1, "verdict": "keep"})]);
    }

    #[test]
    fn escaped_quotes_and_mismatched_brackets() {
        let s = salvage(r#"[{"a": "say \"}\""}, {"b": 1] "#).unwrap();
        assert_eq!(s.objects("x"), [json!({"a": "say \"}\""})]);
    }

    #[test]
    fn a_line_break_inside_a_string_does_not_cut_the_answer() {
        let s = salvage("{\"title\": \"t\", \"recipe\": \"one\ntwo\"}").unwrap();
        assert_eq!(
            s,
            Salvaged::Whole(json!({"title": "t", "recipe": "one\ntwo"}))
        );
    }
}
