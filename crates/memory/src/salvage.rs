//! Reading a model's JSON answer, truncation tolerant (seed 001 §4.1): code fences and prose
//! around the JSON are passed over; an answer that parses is taken whole; one that was cut off
//! (the output limit, our own size cap) yields the complete objects in it — the outermost
//! complete ones at the shallowest depth, so a cut list of actions gives its whole actions and
//! not the steps of the one that was cut.

use serde_json::Value;

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

/// Reads `answer` (see the module docs). `None`: no JSON object or list in it at all.
pub fn salvage(answer: &str) -> Option<Salvaged> {
    let start = answer.find(['{', '['])?;
    let text = &answer[start..];
    let mut de = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    if let Some(Ok(v)) = de.next() {
        return Some(Salvaged::Whole(v));
    }
    let pieces = complete_objects(text);
    Some(Salvaged::Pieces(pieces))
}

/// The outermost complete `{…}` objects at the shallowest depth where any completes, parsed.
fn complete_objects(text: &str) -> Vec<Value> {
    let bytes = text.as_bytes();
    // Open brackets: (byte, position).
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    // Complete objects as (depth at their start, start, end).
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => stack.push((b, i)),
            b'}' | b']' => {
                let want = if b == b'}' { b'{' } else { b'[' };
                match stack.pop() {
                    Some((open, at)) if open == want => {
                        if b == b'}' {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
