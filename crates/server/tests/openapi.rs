//! The OpenAPI document against the real server: every route the router serves is in the
//! catalogue and every catalogued route is served (same methods); real answers — made with
//! real data on a real server over loopback — validate against the schemas the document
//! declares for them; `openapi-spec-validator` accepts the served document as OpenAPI 3.1; and
//! reading it needs a caller, any named token will do.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

mod common;

#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::console_hub::ConsoleHub;
use common::{API_TOKEN, DEVICE_TOKEN};
use deft_server::openapi::catalogue;
use deft_server::{AppState, ServerConfig};
use serde_json::{Value, json};

const CATALOGUE: &str = "crates/server/src/openapi/catalogue.rs";

/// The path templates the router holds, read from its `Debug` form (axum lists every route's
/// path there; nested routers are flattened into it).
fn served_paths(router: &axum::Router) -> BTreeSet<String> {
    let text = format!("{router:?}");
    // The fallback's own paths (the web bundle's catch-all) follow `fallback_router`.
    let text = text.split("fallback_router").next().unwrap();
    let mut paths = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("RouteId(") {
        rest = &rest[at..];
        let Some(quote) = rest.find(": \"") else {
            break;
        };
        let after = &rest[quote + 3..];
        let end = after.find('"').unwrap();
        let path = &after[..end];
        if !path.contains("__private__axum") {
            paths.insert(path.to_owned());
        }
        rest = &after[end..];
    }
    paths
}

/// The methods the server serves on `path` (parameters filled in): a method no route takes
/// (`TRACE`) is answered 405 with the `Allow` list.
async fn served_methods(hub: &ConsoleHub, path: &str) -> BTreeSet<String> {
    let r = reqwest::Client::new()
        .request(reqwest::Method::TRACE, format!("{}{path}", hub.url))
        .bearer_auth(API_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        405,
        "TRACE {path} should be refused with the methods it takes"
    );
    let allow = r
        .headers()
        .get("allow")
        .unwrap_or_else(|| panic!("TRACE {path}: 405 without an Allow header"))
        .to_str()
        .unwrap()
        .to_owned();
    let methods: BTreeSet<String> = allow.split(',').map(|m| m.trim().to_owned()).collect();
    // axum answers HEAD wherever it answers GET.
    methods
        .iter()
        .filter(|m| *m != "HEAD" || !methods.contains("GET"))
        .cloned()
        .collect()
}

/// The catalogue as path → methods.
fn catalogued() -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in catalogue::routes() {
        out.entry(r.path.to_owned())
            .or_default()
            .insert(r.method.to_string());
    }
    out
}

fn fill(path: &str) -> String {
    path.split('/')
        .map(|s| if s.starts_with('{') { "x" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_served_route_is_catalogued_and_every_catalogued_route_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let hub = ConsoleHub::start(dir.path(), None, vec![]).await;
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), DEVICE_TOKEN, API_TOKEN);
    config.console = Some(hub.console.clone());
    let router = deft_server::router(AppState::new(&config));
    let served = served_paths(&router);
    assert!(
        served.len() > 50 && served.contains("/api/tasks"),
        "the router's routes could not be read from its Debug form (did axum change it?): {served:?}"
    );
    let catalogued = catalogued();
    let mut problems = Vec::new();
    for path in &served {
        let methods = served_methods(&hub, &fill(path)).await;
        let listed = catalogued.get(path).cloned().unwrap_or_default();
        for m in methods.difference(&listed) {
            problems.push(format!(
                "{m} {path} is served but not catalogued: add it to {CATALOGUE}, in the \
                 function of its tag"
            ));
        }
        for m in listed.difference(&methods) {
            problems.push(format!(
                "{m} {path} is catalogued but not served: take it out of {CATALOGUE}, or \
                 route it"
            ));
        }
    }
    for path in catalogued.keys().filter(|p| !served.contains(*p)) {
        problems.push(format!(
            "{path} is catalogued but the router has no such path: fix it in {CATALOGUE}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The served document.
async fn document(hub: &ConsoleHub) -> Value {
    let got = hub.get("/api/openapi.json").await;
    assert_eq!(got.status, 200, "{}", got.body);
    got.body
}

/// The schema the document declares for `method path` answering `status` as `media`.
fn declared(doc: &Value, method: &str, path: &str, status: u16, media: &str) -> Value {
    let op = &doc["paths"][path][method.to_ascii_lowercase()];
    assert!(op.is_object(), "{method} {path} is not in the document");
    let content = &op["responses"][status.to_string()]["content"][media];
    assert!(
        content.is_object(),
        "{method} {path} declares no {status} answer as {media}: {}",
        op["responses"]
    );
    if media == "text/event-stream" {
        content["x-deft-event-data"].clone()
    } else {
        content["schema"].clone()
    }
}

/// `schema` with every object closed: a property no schema declares is an error. The
/// document leaves objects open (clients should ignore fields they do not know); the test
/// does not, so an answer with a field its type does not declare fails. A branch of
/// `oneOf`/`anyOf`/`allOf` stays open: the object around it closes over what its branches
/// declare (`unevaluatedProperties` sees into them), and so does a component such a branch
/// refers to (an enum variant's payload type).
fn closed(schema: &Value) -> Value {
    close(schema, false)
}

/// The document's components, closed as [`closed`] says.
fn closed_components(doc: &Value) -> Value {
    let mut branches = BTreeSet::new();
    branch_refs(doc, &mut branches);
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let closed: serde_json::Map<String, Value> = schemas
        .iter()
        .map(|(name, s)| (name.clone(), close(s, branches.contains(name))))
        .collect();
    json!({"schemas": closed})
}

/// The components that `oneOf`/`anyOf`/`allOf` branches refer to directly.
fn branch_refs(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if matches!(k.as_str(), "oneOf" | "anyOf" | "allOf") {
                    for branch in v.as_array().into_iter().flatten() {
                        if let Some(name) =
                            branch["$ref"].as_str().and_then(|r| r.rsplit('/').next())
                        {
                            out.insert(name.to_owned());
                        }
                    }
                }
                branch_refs(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| branch_refs(i, out)),
        _ => {}
    }
}

fn close(schema: &Value, branch: bool) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let in_branch = matches!(k.as_str(), "oneOf" | "anyOf" | "allOf");
                out.insert(k.clone(), close(v, in_branch));
            }
            let composed = ["oneOf", "anyOf", "allOf"]
                .iter()
                .any(|k| map.contains_key(*k));
            let object = map.contains_key("properties") || composed;
            let open = ["additionalProperties", "unevaluatedProperties", "$ref"]
                .iter()
                .any(|k| map.contains_key(*k));
            if object && !open && !branch && map.get("type").is_none_or(|t| t == "object") {
                out.insert("unevaluatedProperties".into(), Value::Bool(false));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| close(i, branch)).collect()),
        other => other.clone(),
    }
}

/// The problems `body` has against `schema` (resolved in `doc`), closed.
fn problems(doc: &Value, schema: &Value, body: &Value) -> Vec<String> {
    let rooted = json!({"allOf": [closed(schema)], "components": closed_components(doc)});
    let validator = jsonschema::validator_for(&rooted).unwrap();
    validator
        .iter_errors(body)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Fails when `body` (an answer of `method path` with `status`) does not match its schema.
fn check_as(doc: &Value, method: &str, path: &str, status: u16, media: &str, body: &Value) {
    let schema = declared(doc, method, path, status, media);
    let errors = problems(doc, &schema, body);
    assert!(
        errors.is_empty(),
        "{method} {path} answered {status} with a body its schema refuses:\n{}\nbody: {body}",
        errors.join("\n")
    );
}

fn check(doc: &Value, method: &str, path: &str, status: u16, body: &Value) {
    check_as(doc, method, path, status, "application/json", body);
}

/// Calls a real server and checks each answer against the document it serves.
struct Checked<'a> {
    hub: &'a ConsoleHub,
    doc: Value,
}

impl Checked<'_> {
    /// GETs `concrete` (an instance of `template`): 200, and the body its schema declares.
    async fn get(&self, template: &str, concrete: &str) -> Value {
        self.send("GET", template, concrete, None, 200).await
    }

    /// Sends `body` to `concrete`: `status`, and the body its schema declares.
    async fn send(
        &self,
        method: &str,
        template: &str,
        concrete: &str,
        body: Option<Value>,
        status: u16,
    ) -> Value {
        let got = match body {
            Some(body) => self.hub.send(method, concrete, &body).await,
            None if method == "GET" => self.hub.get(concrete).await,
            None => self.hub.send(method, concrete, &json!({})).await,
        };
        assert_eq!(got.status, status, "{method} {concrete}: {}", got.body);
        check(&self.doc, method, template, status, &got.body);
        got.body
    }
}

fn task(name: &str) -> Value {
    json!({"name": name, "device": "fixture", "steps": [{"type": "wait", "seconds": 1}]})
}

/// The ids of what [`made`] made.
struct Made {
    task: String,
    schedule: String,
    run: String,
    conversation: String,
    experience: String,
}

/// Things to read, each answer checked: a task with a second version, a schedule and a
/// finished run; a conversation; a secret; a named token; an experience.
async fn made(c: &Checked<'_>) -> Made {
    let task_made = c
        .send(
            "POST",
            "/api/tasks",
            "/api/tasks",
            Some(task("report")),
            201,
        )
        .await;
    let id = task_made["id"].as_str().unwrap().to_owned();
    let one = format!("/api/tasks/{id}");
    c.send("PUT", "/api/tasks/{id}", &one, Some(task("report")), 200)
        .await;
    let off = json!({"enabled": false});
    c.send("PATCH", "/api/tasks/{id}", &one, Some(off), 200)
        .await;
    let hourly = json!({"kind": "every", "seconds": 3600, "enabled": false});
    let schedules = format!("/api/tasks/{id}/schedules");
    let schedule = c
        .send(
            "POST",
            "/api/tasks/{id}/schedules",
            &schedules,
            Some(hourly),
            201,
        )
        .await;
    let run = c
        .send(
            "POST",
            "/api/tasks/{id}/run",
            &format!("{one}/run"),
            None,
            202,
        )
        .await;
    let run = run["id"].as_str().unwrap().to_owned();
    c.hub
        .until(&format!("/api/task-runs/{run}"), |b| {
            b["status"] != "running"
        })
        .await;
    let conversation = c
        .send(
            "POST",
            "/api/conversations",
            "/api/conversations",
            None,
            201,
        )
        .await;
    let secret = json!({"value": "s3cret"});
    c.send(
        "PUT",
        "/api/secrets/{name}",
        "/api/secrets/API_KEY",
        Some(secret),
        200,
    )
    .await;
    let token = json!({"name": "ci", "scopes": ["tasks:read"]});
    c.send("POST", "/api/tokens", "/api/tokens", Some(token), 201)
        .await;
    let entry = json!({"task": "save a file", "title": "Saving", "recipe": "press ctrl+s"});
    let experiences = "/api/memory/experiences";
    let experience = c
        .send("POST", experiences, experiences, Some(entry), 201)
        .await;
    Made {
        task: id,
        schedule: schedule["id"].as_str().unwrap().to_owned(),
        run,
        conversation: conversation["id"].as_str().unwrap().to_owned(),
        experience: experience["id"].as_str().unwrap().to_owned(),
    }
}

/// Every GET route with data behind it: (template, concrete path).
fn reads(m: &Made) -> Vec<(&'static str, String)> {
    let (id, sid, run) = (&m.task, &m.schedule, &m.run);
    let fixed = [
        "/health",
        "/api/auth/state",
        "/api/auth/me",
        "/api/settings",
        "/api/settings/retention",
        "/api/devices",
        "/api/conversations",
        "/api/agent/run",
        "/api/tasks",
        "/api/tasks/folders",
        "/api/tasks/tags",
        "/api/task-runs",
        "/api/memory/experiences",
        "/api/memory/actions",
        "/api/memory/audit",
        "/api/memory/audits",
        "/api/notifications",
        "/api/secrets",
        "/api/tokens",
        "/api/openapi.json",
    ];
    let mut out: Vec<(&str, String)> = fixed.iter().map(|p| (*p, (*p).to_owned())).collect();
    out.extend([
        ("/api/devices/{id}", "/api/devices/fixture".to_owned()),
        (
            "/api/conversations/{id}",
            format!("/api/conversations/{}", m.conversation),
        ),
        ("/api/tasks/{id}", format!("/api/tasks/{id}")),
        ("/api/tasks/export", "/api/tasks/export?all=true".to_owned()),
        (
            "/api/tasks/{id}/versions",
            format!("/api/tasks/{id}/versions"),
        ),
        (
            "/api/tasks/{id}/versions/{n}",
            format!("/api/tasks/{id}/versions/1"),
        ),
        (
            "/api/tasks/{id}/versions/diff",
            format!("/api/tasks/{id}/versions/diff?from=1&to=2"),
        ),
        (
            "/api/tasks/{id}/schedules",
            format!("/api/tasks/{id}/schedules"),
        ),
        (
            "/api/tasks/{id}/schedules/{schedule}",
            format!("/api/tasks/{id}/schedules/{sid}"),
        ),
        (
            "/api/task-runs",
            "/api/task-runs?limit=1&sort=started".to_owned(),
        ),
        ("/api/task-runs/{id}", format!("/api/task-runs/{run}")),
        (
            "/api/memory/experiences/{id}",
            format!("/api/memory/experiences/{}", m.experience),
        ),
        ("/api/tokens/{name}", "/api/tokens/ci".to_owned()),
    ]);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_answers_match_their_declared_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let devices = vec![fixture_device::fixture_device()];
    let hub = ConsoleHub::start_with(dir.path(), None, devices, |config| {
        config.admin_password = Some("correct horse battery".to_owned());
    })
    .await;
    let c = Checked {
        doc: document(&hub).await,
        hub: &hub,
    };
    let m = made(&c).await;
    for (template, concrete) in reads(&m) {
        c.get(template, &concrete).await;
    }

    // The check can fail: a field the type lacks, a field of the wrong type, one missing.
    let listed = c.get("/api/tasks", "/api/tasks").await;
    let schema = declared(&c.doc, "GET", "/api/tasks", 200, "application/json");
    let mut extra = listed.clone();
    extra["items"][0]["colour"] = json!("red");
    let mut wrong = listed.clone();
    wrong["total"] = json!("one");
    let mut missing = listed.clone();
    missing["items"][0].as_object_mut().unwrap().remove("name");
    for bad in [extra, wrong, missing] {
        assert!(!problems(&c.doc, &schema, &bad).is_empty(), "{bad} passed");
    }

    // A run's events, each `data` against the event schema.
    let (status, events) = hub
        .events(&format!("/api/task-runs/{}/events", m.run), None)
        .await;
    assert_eq!(status, 200);
    assert!(!events.is_empty());
    for e in &events {
        let path = "/api/task-runs/{id}/events";
        check_as(&c.doc, "GET", path, 200, "text/event-stream", &e.data);
    }
    changes_and_failures(&c, &m).await;
    devices_and_people(&c).await;
    webhooks(&c).await;
    hub.shutdown().await;
}

/// A webhook's life: made, listed, read, changed, its secret rotated, tested, its deliveries
/// listed and one redelivered, a field refused, deleted.
async fn webhooks(c: &Checked<'_>) {
    let made = c
        .send(
            "POST",
            "/api/webhooks",
            "/api/webhooks",
            Some(json!({"name": "erp", "url": "https://hooks.example.invalid/deft", "events": ["task_run.ended"]})),
            201,
        )
        .await;
    let id = made["webhook"]["id"].as_str().unwrap().to_owned();
    let one = format!("/api/webhooks/{id}");
    c.get("/api/webhooks", "/api/webhooks").await;
    c.get("/api/webhooks/{id}", &one).await;
    let renamed = Some(json!({"name": "erp-nightly"}));
    c.send("PATCH", "/api/webhooks/{id}", &one, renamed, 200)
        .await;
    let rotate = format!("{one}/rotate");
    c.send("POST", "/api/webhooks/{id}/rotate", &rotate, None, 200)
        .await;
    let test = format!("{one}/test");
    let queued = c
        .send("POST", "/api/webhooks/{id}/test", &test, None, 202)
        .await;
    let delivery = queued["delivery"]["id"].as_str().unwrap();
    let deliveries = format!("{one}/deliveries");
    c.get("/api/webhooks/{id}/deliveries", &deliveries).await;
    let again = format!("{one}/deliveries/{delivery}/redeliver");
    let template = "/api/webhooks/{id}/deliveries/{delivery}/redeliver";
    c.send("POST", template, &again, None, 202).await;
    let bad = Some(json!({"url": "ftp://hooks.example.invalid/"}));
    c.send("PATCH", "/api/webhooks/{id}", &one, bad, 400).await;
    assert_eq!(c.hub.delete(&one).await.status, 204);
}

/// The exec route (one batch and several), the login and who a session is, and the first
/// event of the notification feed.
async fn devices_and_people(c: &Checked<'_>) {
    let exec = ("/api/devices/{id}/exec", "/api/devices/fixture/exec");
    let batch = json!({"commands": [{"tool_name": "noop"}]});
    c.send("POST", exec.0, exec.1, Some(batch.clone()), 200)
        .await;
    c.send("POST", exec.0, exec.1, Some(json!([batch, batch])), 200)
        .await;

    let login = reqwest::Client::new()
        .post(format!("{}/api/auth/login", c.hub.url))
        .json(&json!({"username": "admin", "password": "correct horse battery"}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200);
    let cookie = login.headers()["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let body: Value = login.json().await.unwrap();
    check(&c.doc, "POST", "/api/auth/login", 200, &body);
    let me: Value = reqwest::Client::new()
        .get(format!("{}/api/auth/me", c.hub.url))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(me["csrf_token"].is_string(), "{me}");
    check(&c.doc, "GET", "/api/auth/me", 200, &me);

    let mut feed = c.hub.stream("/api/notifications/stream", None).await;
    let first = feed.next().await.expect("the unread count comes first");
    assert_eq!(first.kind, "unread");
    let path = "/api/notifications/stream";
    check_as(&c.doc, "GET", path, 200, "text/event-stream", &first.data);
}

/// Changes and their answers; failures: the error body and the validator's refusal.
async fn changes_and_failures(c: &Checked<'_>, m: &Made) {
    let (id, sid) = (&m.task, &m.schedule);
    let schedule = format!("/api/tasks/{id}/schedules/{sid}");
    let valid = Some(task("checked"));
    c.send(
        "POST",
        "/api/tasks/validate",
        "/api/tasks/validate",
        valid,
        200,
    )
    .await;
    let on = Some(json!({"enabled": true}));
    c.send(
        "PATCH",
        "/api/tasks/{id}/schedules/{schedule}",
        &schedule,
        on,
        200,
    )
    .await;
    let renamed = Some(json!({"title": "renamed"}));
    let conversation = format!("/api/conversations/{}", m.conversation);
    c.send(
        "PATCH",
        "/api/conversations/{id}",
        &conversation,
        renamed,
        200,
    )
    .await;
    let read_all = "/api/notifications/read-all";
    c.send("POST", read_all, read_all, None, 200).await;
    let keep = format!("/api/memory/experiences/{}/keep", m.experience);
    c.send(
        "POST",
        "/api/memory/experiences/{id}/keep",
        &keep,
        None,
        200,
    )
    .await;
    c.send("DELETE", "/api/tokens/{name}", "/api/tokens/ci", None, 200)
        .await;

    c.send("GET", "/api/tasks/{id}", "/api/tasks/nope", None, 404)
        .await;
    c.send("POST", "/api/agent/stop", "/api/agent/stop", None, 409)
        .await;
    let bad = json!({"name": "bad", "device": "fixture", "steps": [{"type": "teleport"}]});
    c.send("POST", "/api/tasks", "/api/tasks", Some(bad), 400)
        .await;
    let never = Some(json!({"kind": "every", "seconds": 0}));
    let schedules = format!("/api/tasks/{id}/schedules");
    c.send("POST", "/api/tasks/{id}/schedules", &schedules, never, 400)
        .await;
    let bad_query = "/api/task-runs?sort=sideways";
    c.send("GET", "/api/task-runs", bad_query, None, 400).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_is_valid_openapi_3_1_and_needs_a_caller() {
    let dir = tempfile::tempdir().unwrap();
    let hub = ConsoleHub::start(dir.path(), None, vec![]).await;
    let doc = document(&hub).await;
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        doc["paths"]["/api/tasks"]["get"]["x-deft-scope"],
        "tasks:read"
    );
    assert_eq!(
        doc["paths"]["/api/settings"]["get"]["x-deft-scope"],
        Value::Null
    );
    assert_eq!(
        doc["paths"]["/api/auth/login"]["post"]["security"],
        json!([])
    );

    let file = dir.path().join("openapi.json");
    std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let out = std::process::Command::new(deft_test_support::interop_python())
        .args(["-m", "openapi_spec_validator", "--schema", "3.1.0"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openapi-spec-validator refused the document (scripts/interop/requirements.txt installs \
         it):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    // No caller: 401. A named token with an unrelated scope may read it.
    let anonymous = reqwest::get(format!("{}/api/openapi.json", hub.url))
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let made = hub
        .post(
            "/api/tokens",
            &json!({"name": "reader", "scopes": ["notifications"]}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let value = made.body["value"].as_str().unwrap();
    let r = reqwest::Client::new()
        .get(format!("{}/api/openapi.json", hub.url))
        .bearer_auth(value)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let tokened: Value = r.json().await.unwrap();
    assert_eq!(tokened, doc);
    tokio::time::timeout(Duration::from_secs(30), hub.shutdown())
        .await
        .unwrap();
}
