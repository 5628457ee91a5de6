//! MCP tool schemas → OpenAI function definitions, cleaned of what OpenAI-compatible servers reject.

use serde_json::{Map, Value, json};

/// Number formats schemars emits that JSON Schema does not define and strict servers refuse.
const NUMERIC_FORMATS: [&str; 12] = [
    "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float",
    "double", "uint128",
];

/// A tool name OpenAI accepts (`^[A-Za-z0-9_-]{1,64}$`): other characters become `_`.
pub fn sanitize_tool_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// `{"type":"function","function":{name, description, parameters}}` for a tool.
pub fn function_schema(name: &str, description: &str, input_schema: Option<&Value>) -> Value {
    let mut parameters = match input_schema {
        Some(Value::Object(m)) => Value::Object(m.clone()),
        _ => json!({"type": "object", "properties": {}}),
    };
    clean(&mut parameters, true);
    if let Value::Object(m) = &mut parameters {
        m.entry("type").or_insert_with(|| json!("object"));
        m.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    json!({
        "type": "function",
        "function": {
            "name": sanitize_tool_name(name),
            "description": description,
            "parameters": parameters,
        }
    })
}

fn clean(v: &mut Value, top: bool) {
    match v {
        Value::Object(m) => {
            m.remove("$schema");
            if top {
                m.remove("title");
            }
            if m.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| NUMERIC_FORMATS.contains(&f))
            {
                m.remove("format");
            }
            for (_, child) in m.iter_mut() {
                clean(child, false);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| clean(i, false)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_schema_and_numeric_formats_and_sanitizes_names() {
        let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Args",
            "type": "object", "properties": {"ms": {"type": "integer", "format": "uint64"},
            "when": {"type": "string", "format": "date-time"}}});
        let f = function_schema("ui.click input", "Click", Some(&schema));
        assert_eq!(f["function"]["name"], "ui_click_input");
        let p = &f["function"]["parameters"];
        assert!(p.get("$schema").is_none() && p.get("title").is_none());
        assert!(p["properties"]["ms"].get("format").is_none());
        assert_eq!(p["properties"]["when"]["format"], "date-time");
        let empty = function_schema("noop", "", None);
        assert_eq!(
            empty["function"]["parameters"],
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(sanitize_tool_name(&"x".repeat(80)).len(), 64);
    }
}
