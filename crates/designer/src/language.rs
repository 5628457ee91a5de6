//! The step language as the designer's prompt describes it: one line per step type — its
//! parameters (`?` when optional, with their choices or ranges) and what it does — then the
//! selector, the fields every step takes and the task's own fields. Generated from the task
//! schema, which is generated from the step types (`deft_tasks::schema`), so the prompt cannot
//! drift from what the validator accepts.

use serde_json::{Map, Value};

/// The summary, one line per item (about 600 tokens).
pub fn summary() -> String {
    let schema = deft_tasks::schema::task_schema();
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let reader = Reader { defs: &defs };
    let mut out = String::new();
    let step = defs.get("Step").cloned().unwrap_or(Value::Null);
    for entry in step["oneOf"].as_array().into_iter().flatten() {
        let Some(name) = entry["properties"]["type"]["const"].as_str() else {
            continue;
        };
        let params = match entry
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| reader.def(r))
        {
            Some(def) => reader.shape(def),
            None => "{}".to_owned(),
        };
        out.push_str(&format!(
            "- {name} {params} — {}\n",
            first_line(entry["description"].as_str().unwrap_or(""))
        ));
    }
    if let Some(selector) = defs.get("Selector") {
        out.push_str(&format!(
            "- selector = {} — {}\n",
            reader.shape(selector),
            first_line(selector["description"].as_str().unwrap_or(""))
        ));
    }
    out.push_str(&format!(
        "- every step also takes {}\n",
        reader.properties(&step, false)
    ));
    let retrying: Vec<&str> = step["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["properties"].get("retry").is_some())
        .filter_map(|e| e["properties"]["type"]["const"].as_str())
        .collect();
    if let Some(retry) = step["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|e| e["properties"].get("retry"))
    {
        out.push_str(&format!(
            "- retry?: {} — {} ({})\n",
            reader.shape(retry),
            first_line(retry["description"].as_str().unwrap_or("")),
            retrying.join(", ")
        ));
    }
    out.push_str(&format!(
        "- the task: {}\n",
        reader.properties(&schema, true)
    ));
    out
}

/// Reads shapes out of the schema's definitions.
struct Reader<'a> {
    defs: &'a Map<String, Value>,
}

impl Reader<'_> {
    fn def(&self, reference: &str) -> Option<&Value> {
        self.defs.get(reference.strip_prefix("#/$defs/")?)
    }

    /// A definition's parameters: `{a, b?: kind}`, alternatives joined by `|`, shared
    /// properties before the alternatives (`loop`).
    fn shape(&self, def: &Value) -> String {
        let alternatives: Vec<String> = def["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|alt| self.properties(alt, false))
            .collect();
        let own = def.get("properties").map(|_| self.properties(def, false));
        match (own, alternatives.is_empty()) {
            (Some(own), true) => own,
            (None, false) => alternatives.join(" | "),
            (Some(own), false) => format!("{own} + one of {}", alternatives.join(" | ")),
            (None, true) => "{}".to_owned(),
        }
    }

    /// `{name, other?: kind}` of an object schema's properties (`$schema` left out); `all`
    /// also gives required ones their kind.
    fn properties(&self, object: &Value, all: bool) -> String {
        let required: Vec<&str> = object["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut fields: Vec<(bool, String)> = object["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(name, _)| !name.starts_with('$'))
            .map(|(name, prop)| {
                let kind = self.kind(prop);
                let optional = !required.contains(&name.as_str());
                let text = match (optional, all || kind != *name) {
                    (true, _) => format!("{name}?: {kind}"),
                    (false, true) => format!("{name}: {kind}"),
                    (false, false) => name.clone(),
                };
                (optional, text)
            })
            .collect();
        // Required fields first; the sort is stable, so each group keeps the schema's order.
        fields.sort_by_key(|(optional, _)| *optional);
        let fields: Vec<String> = fields.into_iter().map(|(_, f)| f).collect();
        format!("{{{}}}", fields.join(", "))
    }

    /// A property's kind in a word or two: `bool`, `text`, `0–300`, `left|right|middle`,
    /// `selector`, `[step]`.
    fn kind(&self, prop: &Value) -> String {
        if let Some(r) = prop.get("$ref").and_then(Value::as_str) {
            return self.named(r);
        }
        if let Some(any) = prop["anyOf"].as_array() {
            let kinds: Vec<String> = any
                .iter()
                .filter(|p| p["type"] != "null")
                .map(|p| self.kind(p))
                .collect();
            return kinds.join("|");
        }
        let ty = match &prop["type"] {
            Value::Array(types) => types.iter().find(|t| *t != "null").cloned(),
            other => Some(other.clone()),
        };
        match ty.as_ref().and_then(Value::as_str) {
            Some("boolean") => "bool".to_owned(),
            Some("string") => "text".to_owned(),
            Some("number") => range(prop, "number"),
            Some("integer") => range(prop, "int"),
            Some("array") => format!("[{}]", self.kind(&prop["items"])),
            Some("object") => "{name: text}".to_owned(),
            _ => "value".to_owned(),
        }
    }

    /// A definition by name: `selector`, `step`, `point` for the structured ones, the
    /// choices of an enumeration.
    fn named(&self, reference: &str) -> String {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        let choices: Vec<&str> = self
            .def(reference)
            .and_then(|d| d["oneOf"].as_array())
            .into_iter()
            .flatten()
            .filter_map(|alt| alt["const"].as_str())
            .collect();
        if choices.is_empty() {
            name.to_lowercase()
        } else {
            choices.join("|")
        }
    }
}

/// A number's range (`0–300`), or `word` when it has none.
fn range(prop: &Value, word: &str) -> String {
    let bound = |k: &str| prop.get(k).and_then(Value::as_f64);
    match (bound("minimum"), bound("maximum")) {
        (Some(lo), Some(hi)) => format!("{}–{}", num(lo), num(hi)),
        _ => word.to_owned(),
    }
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A description's first sentence (up to `: `, `; ` or `. `), on one line.
fn first_line(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = [": ", "; ", ". "]
        .iter()
        .filter_map(|sep| text.find(sep))
        .min()
        .unwrap_or(text.len());
    let first = text[..end].trim_end_matches('.');
    format!("{first}.")
}

#[cfg(test)]
mod tests {
    use deft_tasks::StepType;

    #[test]
    fn every_step_type_has_its_line_with_its_parameters() {
        let text = super::summary();
        for t in StepType::ALL {
            assert!(
                text.lines()
                    .any(|l| l.starts_with(&format!("- {} ", t.as_str()))),
                "{t} missing from:\n{text}"
            );
        }
        for line in [
            "- click {selector, button?: left|right|middle, double?: bool} — Click a control.",
            "- if_el {selector, then: [step], else?: [step], gone?: bool, wait_s?: 0–300} — Sub-steps depending on whether a control shows.",
            "- wait {seconds: 0–300} — Pause for a number of seconds.",
            "- screen_on {} — Switch the screen on (devices with a screen power).",
        ] {
            assert!(text.contains(line), "{line:?} not in:\n{text}");
        }
        assert!(
            text.contains("- open_app {app: text, args?: [text], new_instance?: bool, title?: text} | {url: text, new_tab?: bool}"),
            "{text}"
        );
        assert!(
            text.contains("- loop {steps: [step]} + one of {times: 1–1000} | "),
            "{text}"
        );
        assert!(
            text.contains("- selector = {index?: int, match?: exact|contains|fuzzy|regex, text?: text, type?: text, within?: selector} — Which control a step or tool means, by what a person sees."),
            "{text}"
        );
        assert!(text.contains("- every step also takes {"), "{text}");
        assert!(
            text.contains("- retry?: {times: 1–10, backoff?: 1–10, delay_s?: 0–600} — Try the step again after it failed."),
            "{text}"
        );
        assert!(text.contains("- for_each {"), "{text}");
        assert!(text.contains("on_error?: stop|continue"), "{text}");
        assert!(text.contains("- the task: {"), "{text}");
        assert!(text.contains("name: text"), "{text}");
    }
}
