//! Typed results: a run's output schema (a JSON Schema, draft 2020-12 unless its `$schema`
//! says another, checked against its meta-schema before any model call) and the check of the
//! final answer against it. The answer must be one JSON value — the whole answer, or a single
//! ```` ```json ```` fenced block and nothing else; anything more lenient would hand on a value
//! the model never quite wrote.

use std::sync::Arc;

use deft_protocol::{OutputError, TypedResult};
use serde_json::Value;

use crate::texts;

/// The largest output schema taken, in bytes of its JSON text.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;

/// The longest error message a check keeps (the validator quotes the instance).
const MAX_MESSAGE_CHARS: usize = 300;

/// Why an output schema was refused; its text says what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

/// A checked output schema, ready to validate answers. Cheap to clone.
#[derive(Clone)]
pub struct OutputSchema {
    schema: Arc<Value>,
    validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OutputSchema").field(&self.schema).finish()
    }
}

impl OutputSchema {
    /// The schema in `text` (a file's contents).
    pub fn parse(text: &str) -> Result<Self, SchemaError> {
        if text.len() > MAX_SCHEMA_BYTES {
            return Err(SchemaError(texts::schema_too_large(
                text.len(),
                MAX_SCHEMA_BYTES,
            )));
        }
        let schema: Value = serde_json::from_str(text)
            .map_err(|e| SchemaError(texts::schema_not_json(&e.to_string())))?;
        Self::new(schema)
    }

    /// `schema`, checked: its size, its kind and its meta-schema; remote references are
    /// refused (nothing is fetched).
    pub fn new(schema: Value) -> Result<Self, SchemaError> {
        let size = schema.to_string().len();
        if size > MAX_SCHEMA_BYTES {
            return Err(SchemaError(texts::schema_too_large(size, MAX_SCHEMA_BYTES)));
        }
        if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
            return Err(SchemaError(texts::schema_not_object(texts::json_kind(
                &schema,
            ))));
        }
        // A meta-schema error's instance is the schema: its path is where inside it the fault is.
        let validator = jsonschema::validator_for(&schema).map_err(|e| {
            SchemaError(texts::schema_invalid(
                &e.instance_path().to_string(),
                &e.to_string(),
            ))
        })?;
        Ok(OutputSchema {
            schema: Arc::new(schema),
            validator: Arc::new(validator),
        })
    }

    /// The schema.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// `answer` checked: parsed and valid, or why not (with the answer's text).
    pub fn check(&self, answer: &str) -> TypedResult {
        let value = match read_json(answer) {
            Ok(v) => v,
            Err(detail) => {
                let error = OutputError {
                    path: String::new(),
                    message: texts::answer_not_json(&detail),
                };
                return TypedResult::invalid(vec![error], answer);
            }
        };
        let errors: Vec<OutputError> = self
            .validator
            .iter_errors(&value)
            .take(TypedResult::MAX_ERRORS)
            .map(|e| OutputError {
                path: e.instance_path().to_string(),
                message: cut(&e.to_string()),
            })
            .collect();
        if errors.is_empty() {
            TypedResult::valid(value)
        } else {
            TypedResult::invalid(errors, answer)
        }
    }
}

/// The one JSON value of `answer`: the whole (trimmed) answer, or the body of a single fenced
/// block that is the whole answer (tagged `json` or not tagged).
fn read_json(answer: &str) -> Result<Value, String> {
    let text = answer.trim();
    let body = fenced_body(text).unwrap_or(text);
    serde_json::from_str(body).map_err(|e| e.to_string())
}

/// The body of `text` when it is exactly one ```` ``` ```` fence (its tag `json` or none).
fn fenced_body(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("```")?;
    let inner = rest.strip_suffix("```")?;
    let (tag, body) = inner.split_once('\n')?;
    let tag = tag.trim();
    if !(tag.is_empty() || tag.eq_ignore_ascii_case("json")) || body.contains("```") {
        return None;
    }
    Some(body)
}

/// `message` cut to [`MAX_MESSAGE_CHARS`] characters, an ellipsis marking the cut.
fn cut(message: &str) -> String {
    if message.chars().count() <= MAX_MESSAGE_CHARS {
        return message.to_owned();
    }
    let mut out: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn person() -> OutputSchema {
        OutputSchema::new(json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
            "required": ["name", "age"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    #[test]
    fn a_plain_and_a_fenced_answer_are_read_and_nothing_looser() {
        let s = person();
        let plain = s.check(" {\"name\": \"Ada\", \"age\": 36}\n");
        assert_eq!(plain, TypedResult::valid(json!({"name": "Ada", "age": 36})));
        let fenced = s.check("```json\n{\"name\": \"Ada\", \"age\": 36}\n```");
        assert_eq!(fenced, plain);
        let bare_fence = s.check("```\n{\"name\": \"Ada\", \"age\": 36}\n```");
        assert_eq!(bare_fence, plain);
        for loose in [
            "Here it is: {\"name\": \"Ada\", \"age\": 36}",
            "```json\n{\"name\": \"Ada\", \"age\": 36}\n```\nDone.",
            "```python\n{\"name\": \"Ada\", \"age\": 36}\n```",
            "```json\n{}\n```\n```json\n{}\n```",
        ] {
            let r = s.check(loose);
            assert!(!r.valid, "{loose}");
            assert_eq!(r.raw.as_deref(), Some(loose));
            assert!(r.value.is_none());
            assert_eq!(r.errors.len(), 1, "{loose}");
            assert!(
                r.errors[0].message.starts_with("the answer is not JSON ("),
                "{r:?}"
            );
        }
    }

    #[test]
    fn errors_name_the_instance_path() {
        let r = person().check(r#"{"name": 7, "age": -1, "extra": true}"#);
        assert!(!r.valid);
        let paths: Vec<&str> = r.errors.iter().map(|e| e.path.as_str()).collect();
        assert!(paths.contains(&"/name"), "{paths:?}");
        assert!(paths.contains(&"/age"), "{paths:?}");
        assert!(paths.contains(&""), "the extra property: {paths:?}");
    }

    #[test]
    fn errors_are_capped_and_each_message_cut() {
        let s = OutputSchema::new(json!({"type": "array", "items": {"type": "integer"}})).unwrap();
        let many = serde_json::to_string(&vec!["x".repeat(1000); 50]).unwrap();
        let r = s.check(&many);
        assert_eq!(r.errors.len(), TypedResult::MAX_ERRORS);
        assert!(
            r.errors
                .iter()
                .all(|e| e.message.chars().count() <= MAX_MESSAGE_CHARS + 1)
        );
    }

    #[test]
    fn bad_schemas_are_refused_with_what_is_wrong() {
        let not_json = OutputSchema::parse("{type: object}").unwrap_err();
        assert!(
            not_json.0.starts_with("the output schema is not JSON: "),
            "{not_json}"
        );
        let wrong_kind = OutputSchema::new(json!("object")).unwrap_err();
        assert_eq!(wrong_kind.0, texts::schema_not_object("a string"));
        let meta = OutputSchema::new(json!({"type": "objekt"})).unwrap_err();
        assert!(
            meta.0.starts_with("the output schema is not a valid JSON Schema (draft 2020-12 unless its $schema says another): at /type: "),
            "{meta}"
        );
        let deep = OutputSchema::new(json!({
            "type": "object",
            "properties": {"a": {"type": "nope"}}
        }))
        .unwrap_err();
        assert!(
            deep.0.contains(": at /properties/a/type: "),
            "the path inside the schema: {deep}"
        );
        let remote = OutputSchema::new(json!({"$ref": "https://example.com/s.json"})).unwrap_err();
        assert!(remote.0.contains("not a valid JSON Schema"), "{remote}");
        let big = format!("{{\"description\": \"{}\"}}", "x".repeat(MAX_SCHEMA_BYTES));
        assert_eq!(
            OutputSchema::parse(&big).unwrap_err().0,
            texts::schema_too_large(big.len(), MAX_SCHEMA_BYTES)
        );
    }

    #[test]
    fn the_schema_s_own_draft_is_honoured() {
        // Draft 4's exclusiveMaximum is a boolean; 2020-12 would refuse the schema.
        let d4 = OutputSchema::new(json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "number", "maximum": 5, "exclusiveMaximum": true
        }))
        .unwrap();
        assert!(d4.check("4").valid);
        assert!(!d4.check("5").valid);
        assert!(OutputSchema::new(json!({"type": "number", "exclusiveMaximum": true})).is_err());
    }

    #[test]
    fn texts_verbatim() {
        let errors = [
            OutputError {
                path: String::new(),
                message: "\"age\" is a required property".to_owned(),
            },
            OutputError {
                path: "/name".to_owned(),
                message: "7 is not of type \"string\"".to_owned(),
            },
        ];
        assert_eq!(
            texts::output_repair(&errors),
            "Your final answer is not valid against the required JSON Schema:\n\
             - (the answer): \"age\" is a required property\n\
             - /name: 7 is not of type \"string\"\n\
             Answer again with only the corrected JSON value, valid against the schema. Do not call tools."
        );
        assert_eq!(
            texts::output_schema_prompt("{\"type\":\"integer\"}"),
            "Your final answer (the message in which you call no tool) must be a single JSON value valid against this JSON Schema, and nothing else: no prose before or after it, no code fence.\n\nJSON Schema:\n{\"type\":\"integer\"}"
        );
        assert_eq!(
            texts::no_final_answer("failed"),
            "the run ended failed before a final answer, so there is no value to check"
        );
        assert_eq!(
            texts::schema_too_large(70000, 65536),
            "the output schema is 70000 bytes; at most 65536 bytes are allowed — send a smaller schema"
        );
    }
}
