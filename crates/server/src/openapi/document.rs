//! Writing the OpenAPI document: paths and operations from the catalogue, components from one
//! schemars generator whose definitions are the document's `components/schemas`.

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::catalogue::{TAGS, routes};
use super::route::{Access, Payload, Route};
use crate::api::ErrorBody;
use crate::console::token_access;

/// Where the generator's definitions live in the document.
const SCHEMAS: &str = "/components/schemas";

/// The whole document.
pub fn document() -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = SCHEMAS.into())
        .into_generator();
    let mut paths = Map::new();
    for route in routes() {
        let operation = operation(&route, &mut generator);
        let item = paths
            .entry(route.path)
            .or_insert_with(|| Value::Object(Map::new()));
        item[route.method.as_str().to_ascii_lowercase()] = operation;
    }
    let schemas = generator.take_definitions(true);
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "deft",
            "version": env!("CARGO_PKG_VERSION"),
            "description": INTRO,
        },
        "tags": TAGS.iter().map(|(name, description)| json!({"name": name, "description": description})).collect::<Vec<_>>(),
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": security_schemes(),
        },
    })
}

const INTRO: &str = "The HTTP API of `deft serve`: devices, runs, tasks, the memory libraries, \
notifications. Every route under `/api` but the login needs a caller: a console session (the \
`deft_session` cookie, and the `X-CSRF-Token` header on every change), the server's API token \
as a Bearer token, or a named API token (`deft_…`) as a Bearer token — a named token reaches \
only the routes of its scopes (`x-deft-scope`; none: the admin's alone). Errors answer \
`{\"error\": \"…\"}` with a text that says what to do.";

fn security_schemes() -> Value {
    json!({
        "session": {
            "type": "apiKey",
            "in": "cookie",
            "name": "deft_session",
            "description": "The console's login (`POST /api/auth/login`). Requests that change \
                            something also send the session's CSRF token as `X-CSRF-Token`.",
        },
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "The server's API token (the admin's), or a named API token \
                            (`deft_…`, made under Tokens) limited to its scopes.",
        },
        "deviceToken": {
            "type": "http",
            "scheme": "bearer",
            "description": "The device token `deft client` presents on `/ws`.",
        },
    })
}

/// One operation object.
fn operation(route: &Route, generator: &mut SchemaGenerator) -> Value {
    let mut op = json!({
        "operationId": route.operation_id,
        "summary": route.summary,
        "tags": [route.tag],
    });
    let (security, description, scope) = access(route);
    op["security"] = security;
    op["description"] = description.into();
    if let Some(scope) = scope {
        op["x-deft-scope"] = scope;
    }
    let parameters = parameters(route, generator);
    if !parameters.is_empty() {
        op["parameters"] = parameters.into();
    }
    if let Some(body) = route.body {
        op["requestBody"] = json!({"required": true, "content": content(body, generator)});
    }
    op["responses"] = responses(route, generator);
    op
}

/// Its security, the sentence that says who may call it, and its `x-deft-scope`.
fn access(route: &Route) -> (Value, String, Option<Value>) {
    let api = json!([{"session": []}, {"bearer": []}]);
    match route.access {
        Access::Open => (json!([]), "Open: no login needed.".to_owned(), None),
        Access::Device => (
            json!([{"deviceToken": []}]),
            "For devices: the device token, checked at the upgrade (close code 1008 when it is \
             wrong)."
                .to_owned(),
            None,
        ),
        Access::AnyCaller => (
            api,
            "Any caller: a session, the server's API token or any named token.".to_owned(),
            Some(json!("any")),
        ),
        Access::Api => {
            let within = route.sample_path("x");
            let within = within.strip_prefix("/api").unwrap_or(&within);
            match token_access::required(&route.method, within) {
                Some(scope) => (
                    api,
                    format!(
                        "A session, the server's API token, or a named token with the \
                         `{}` scope.",
                        scope.name()
                    ),
                    Some(json!(scope.name())),
                ),
                None => (
                    api,
                    "Admin only: a session or the server's API token; no named token.".to_owned(),
                    Some(Value::Null),
                ),
            }
        }
    }
}

/// The path parameters (strings) and the query's fields.
fn parameters(route: &Route, generator: &mut SchemaGenerator) -> Vec<Value> {
    let mut out: Vec<Value> = route
        .path_params()
        .into_iter()
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    let Some(query) = route.query else {
        return out;
    };
    let schema = query(generator).to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = schema["properties"].as_object() {
        for (name, field) in properties {
            let mut field = field.clone();
            let description = field
                .as_object_mut()
                .and_then(|f| f.remove("description"))
                .unwrap_or_else(|| "".into());
            not_null(&mut field);
            out.push(json!({
                "name": name,
                "in": "query",
                "required": required.contains(&name.as_str()),
                "description": description,
                "schema": field,
            }));
        }
    }
    out
}

/// A query parameter's schema without the `null` an `Option` field adds (a parameter left
/// out is the `None`; there is no way to send a null).
fn not_null(field: &mut Value) {
    let Some(object) = field.as_object_mut() else {
        return;
    };
    if object.get("default") == Some(&Value::Null) {
        object.remove("default");
    }
    if let Some(Value::Array(types)) = object.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let single = match kept.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(kept),
        };
        object.insert("type".into(), single);
    }
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        branches.retain(|b| b.get("type") != Some(&json!("null")));
    }
}

/// The responses object: the route's answers, its error statuses, and 401/403 for a route that
/// needs a caller.
fn responses(route: &Route, generator: &mut SchemaGenerator) -> Value {
    let mut out = Map::new();
    for answer in &route.answers {
        let mut response = json!({"description": answer.description});
        if !matches!(answer.payload, Payload::Empty) {
            response["content"] = content(answer.payload, generator);
        }
        out.insert(answer.status.to_string(), response);
    }
    let mut errors = route.errors.clone();
    if matches!(route.access, Access::Api | Access::AnyCaller) {
        errors.extend([401, 403]);
    }
    let error = generator.subschema_for::<ErrorBody>();
    for status in errors {
        out.entry(status.to_string()).or_insert_with(|| {
            json!({
                "description": error_description(status),
                "content": {"application/json": {"schema": error}},
            })
        });
    }
    Value::Object(out)
}

/// What an error status means on this API.
fn error_description(status: u16) -> &'static str {
    match status {
        400 => "Bad input: the text names the field and what it takes.",
        401 => "No valid session or token.",
        403 => {
            "Not allowed: a named token without the scope, a missing CSRF token, or a wrong setup token."
        }
        404 => "Not found: the text names what was looked for.",
        409 => "Conflict: busy device, name taken, or the state does not allow it.",
        413 => "The body is too large.",
        429 => "Too many attempts: wait and try again.",
        _ => "An error.",
    }
}

/// The content object of a payload.
fn content(payload: Payload, generator: &mut SchemaGenerator) -> Value {
    match payload {
        Payload::Json(schema) => json!({"application/json": {"schema": schema(generator)}}),
        Payload::Sse(schema) => json!({
            "text/event-stream": {
                "schema": {"type": "string"},
                "x-deft-event-data": schema(generator),
            },
        }),
        Payload::Export => json!({
            "text/csv": {"schema": {"type": "string"}},
            "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
        }),
        Payload::Binary(types) => types
            .iter()
            .map(|t| {
                (
                    (*t).to_owned(),
                    json!({"schema": {"type": "string", "contentMediaType": t}}),
                )
            })
            .collect::<Map<_, _>>()
            .into(),
        Payload::Mjpeg => json!({"multipart/x-mixed-replace": {"schema": {"type": "string"}}}),
        Payload::Empty => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `$ref` string anywhere in `value`.
    fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    out.push(r);
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_resolves_and_the_document_is_the_same_each_time() {
        let started = std::time::Instant::now();
        let doc = document();
        let took = started.elapsed();
        assert_eq!(
            doc,
            document(),
            "the document depends on nothing but the code"
        );
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(!found.is_empty());
        for r in found {
            let pointer = r.strip_prefix('#').expect("only local references");
            assert!(doc.pointer(pointer).is_some(), "{r} points at nothing");
        }
        let operations: usize = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|item| item.as_object().unwrap().len())
            .sum();
        assert_eq!(operations, routes().len());
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        let doubled: Vec<&String> = schemas
            .keys()
            .filter(|name| name.ends_with(|c: char| c.is_ascii_digit()))
            .collect();
        assert!(
            doubled.is_empty(),
            "two types share a schema name (schemars numbered them): {doubled:?}; give one a \
             #[schemars(rename)]"
        );
        // What it weighs (shown, not asserted).
        println!(
            "{operations} operations, {} paths, {} schemas, {} bytes, built in {took:?}",
            doc["paths"].as_object().unwrap().len(),
            doc["components"]["schemas"].as_object().unwrap().len(),
            doc.to_string().len()
        );
    }
}
