//! Webhooks through the console API of a real server on loopback (SQLite file, the fixture
//! device, the scripted model over HTTP) delivering to a real receiver on loopback, which
//! checks each signature with its own HMAC-SHA256: a ping, a task run's end, an agent run's
//! end, an audit's suggestions and a device going offline arrive signed; a 500 is retried under the same delivery id; a receiver that always
//! fails, or a host that does not resolve, ends failed and marks the webhook failing (and
//! tells the console) while the run that caused it succeeds; private addresses are refused at
//! save and at delivery; a pending delivery resumes after a restart; the secret is shown once;
//! bad input is refused field by field; the README's verification code in Python and Node.js
//! accepts a real delivery and nothing else.

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use common::console_hub::ConsoleHub;
use deft_app::webhooks::WebhookConfig;
use deft_server::console::{ConsoleConfig, ModelDefaults};
use deft_test_support::model::{Reply, ScriptedModel};
use parking_lot::Mutex;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

/// One POST the receiver got.
#[derive(Debug, Clone)]
struct Received {
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

#[derive(Default)]
struct ReceiverState {
    got: Mutex<Vec<Received>>,
    /// The statuses of the next answers, in order; 200 when none is left.
    answers: Mutex<VecDeque<u16>>,
    /// Answer every request with this status instead (a receiver that is down).
    always: Mutex<Option<u16>>,
    arrived: Notify,
}

/// A webhook receiver on a free loopback port.
struct Receiver {
    url: String,
    state: Arc<ReceiverState>,
}

impl Receiver {
    async fn start() -> Receiver {
        let state = Arc::new(ReceiverState::default());
        let shared = state.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: HeaderMap, body: axum::body::Bytes| {
                let state = shared.clone();
                async move {
                    state.got.lock().push(Received {
                        headers,
                        body: body.to_vec(),
                    });
                    state.arrived.notify_waiters();
                    let code = match *state.always.lock() {
                        Some(code) => code,
                        None => state.answers.lock().pop_front().unwrap_or(200),
                    };
                    (
                        StatusCode::from_u16(code).unwrap(),
                        format!("answered {code}"),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, state }
    }

    /// Waits until `n` requests have arrived: all of them.
    async fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let arrived = self.state.arrived.notified();
            {
                let got = self.state.got.lock();
                if got.len() >= n {
                    return got.clone();
                }
            }
            assert!(
                tokio::time::timeout_at(deadline, arrived).await.is_ok(),
                "{n} deliveries never arrived; got {:?}",
                self.state.got.lock().len()
            );
        }
    }

    fn count(&self) -> usize {
        self.state.got.lock().len()
    }
}

/// HMAC-SHA256 written out (RFC 2104), independent of the server's implementation.
fn hmac_sha256(key: &[u8], message: &[u8]) -> String {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner.finalize());
    outer
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Checks `r`'s `Deft-Signature` against `secret`, as the README tells a receiver to.
fn assert_signed(r: &Received, secret: &str) {
    let header = r.header("deft-signature");
    let (t, v1) = header
        .split_once(',')
        .and_then(|(t, v)| Some((t.strip_prefix("t=")?, v.strip_prefix("v1=")?)))
        .unwrap_or_else(|| panic!("malformed signature header {header:?}"));
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(&r.body);
    assert_eq!(v1, hmac_sha256(secret.as_bytes(), &signed), "signature");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let t: u64 = t.parse().unwrap();
    assert!(now.abs_diff(t) < 300, "timestamp {t} is now ({now})");
}

/// Short retry waits (the schedule is the server's configuration, not a test path).
fn quick(c: &mut ConsoleConfig, allow_private: bool, retries: usize) {
    c.admin_password = Some("correct horse battery".to_owned());
    c.cookie_secure = false;
    c.webhooks = WebhookConfig {
        allow_private,
        retry_delays: vec![Duration::from_millis(100); retries],
        timeout: Duration::from_secs(10),
        ..WebhookConfig::default()
    };
}

async fn hub(dir: &std::path::Path, allow_private: bool, retries: usize) -> ConsoleHub {
    ConsoleHub::start_with(dir, None, vec![fixture_device::fixture_device()], |c| {
        quick(c, allow_private, retries);
    })
    .await
}

/// Creates a webhook: (its id, its secret).
async fn create_hook(h: &ConsoleHub, name: &str, url: &str, events: &[&str]) -> (String, String) {
    let a = h
        .post(
            "/api/webhooks",
            &json!({"name": name, "url": url, "events": events}),
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    let secret = a.body["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{secret}");
    (a.body["webhook"]["id"].as_str().unwrap().to_owned(), secret)
}

/// Waits until hook `id`'s newest delivery is no longer pending: it.
async fn settled(h: &ConsoleHub, id: &str) -> Value {
    let page = h
        .until(&format!("/api/webhooks/{id}/deliveries"), |b| {
            b["items"][0]["state"]
                .as_str()
                .is_some_and(|s| s != "pending")
        })
        .await;
    page["items"][0].clone()
}

/// Runs a task that succeeds and waits for its end: the run's id.
async fn run_a_task(h: &ConsoleHub, name: &str) -> String {
    let task =
        json!({"name": name, "device": "fixture", "steps": [{"type": "key_event", "keys": "a"}]});
    let a = h.post("/api/tasks", &task).await;
    assert_eq!(a.status, 201, "{}", a.body);
    let id = a.body["id"].as_str().unwrap().to_owned();
    let a = h.post(&format!("/api/tasks/{id}/run"), &json!({})).await;
    assert_eq!(a.status, 202, "{}", a.body);
    let run = a.body["id"].as_str().unwrap().to_owned();
    let (_, events) = h
        .events(&format!("/api/task-runs/{run}/events"), None)
        .await;
    assert_eq!(events.last().unwrap().kind, "done");
    run
}

#[tokio::test]
async fn a_test_ping_arrives_signed_and_is_logged_and_the_secret_is_shown_once() {
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), true, 2).await;
    let (id, secret) = create_hook(&h, "ci", &receiver.url, &["run.ended"]).await;

    for path in ["/api/webhooks".to_owned(), format!("/api/webhooks/{id}")] {
        let a = h.get(&path).await;
        assert_eq!(a.status, 200, "{}", a.body);
        assert!(
            !a.body.to_string().contains(&secret),
            "{path} shows the secret"
        );
    }
    let listed = h.get("/api/webhooks").await.body;
    assert_eq!(listed["items"][0]["state"], "active");
    assert_eq!(
        listed["events"],
        json!([
            "run.ended",
            "task_run.ended",
            "audit.suggestion",
            "device.offline"
        ])
    );

    let test = h
        .post(&format!("/api/webhooks/{id}/test"), &json!({}))
        .await;
    assert_eq!(test.status, 202, "{}", test.body);
    let delivery = test.body["delivery"]["id"].as_str().unwrap().to_owned();
    let got = receiver.wait_for(1).await;
    let ping = &got[0];
    assert_signed(ping, &secret);
    assert_eq!(ping.header("deft-event"), "ping");
    assert_eq!(ping.header("deft-delivery"), delivery);
    assert_eq!(ping.header("content-type"), "application/json");
    assert!(
        ping.header("user-agent").starts_with("deft/"),
        "{:?}",
        ping.headers
    );
    let body = ping.json();
    assert_eq!(body["type"], "ping");
    assert_eq!(body["data"]["webhook_id"], id.as_str());
    assert!(body["id"].as_str().unwrap().starts_with("evt_"));

    let logged = settled(&h, &id).await;
    assert_eq!(logged["state"], "succeeded", "{logged}");
    assert_eq!(logged["response_code"], 200);
    assert_eq!(logged["attempts"], 1);
    assert_eq!(logged["response_excerpt"], "answered 200");
    assert_eq!(logged["payload"], body);

    // rotating: a new secret, shown once, signs from now on
    let rotated = h
        .post(&format!("/api/webhooks/{id}/rotate"), &json!({}))
        .await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let new_secret = rotated.body["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, secret);
    h.post(&format!("/api/webhooks/{id}/test"), &json!({}))
        .await;
    let got = receiver.wait_for(2).await;
    assert_signed(&got[1], &new_secret);

    // redelivering: the same event again, under a new delivery id
    let again = h
        .post(
            &format!("/api/webhooks/{id}/deliveries/{delivery}/redeliver"),
            &json!({}),
        )
        .await;
    assert_eq!(again.status, 202, "{}", again.body);
    let got = receiver.wait_for(3).await;
    assert_eq!(got[2].json()["id"], body["id"]);
    assert_ne!(got[2].header("deft-delivery"), delivery);
    h.shutdown().await;
}

#[tokio::test]
async fn a_task_runs_end_and_an_agent_runs_end_are_delivered() {
    let model = ScriptedModel::start(vec![Reply::text("All done.").into()]).await;
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = model.base_url();
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        |c| {
            quick(c, true, 2);
            c.defaults = ModelDefaults {
                api_base: Some(base),
                model: Some("scripted".into()),
                api_key: None,
            };
        },
    )
    .await;
    let (_, secret) = create_hook(&h, "all", &receiver.url, &["run.ended", "task_run.ended"]).await;

    // a task run ends (its task reports nothing to the bell: webhooks hear of it anyway)
    let run = run_a_task(&h, "press a").await;
    let got = receiver.wait_for(1).await;
    assert_signed(&got[0], &secret);
    assert_eq!(got[0].header("deft-event"), "task_run.ended");
    let data = &got[0].json()["data"];
    assert_eq!(data["run_id"], run.as_str());
    assert_eq!(data["task_name"], "press a");
    assert_eq!(data["status"], "ok");
    assert_eq!(data["device"], "fixture");
    assert_eq!(data["link"], format!("/task-runs/{run}"));

    // an agent run ends
    let started = h
        .post(
            "/api/agent/run",
            &json!({"prompt": "finish up", "device": "fixture"}),
        )
        .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let run = started.body["run_id"].as_str().unwrap().to_owned();
    let got = receiver.wait_for(2).await;
    assert_signed(&got[1], &secret);
    assert_eq!(got[1].header("deft-event"), "run.ended");
    let data = &got[1].json()["data"];
    assert_eq!(data["run_id"], run.as_str());
    assert_eq!(data["status"], "completed");
    assert_eq!(data["mode"], "chat");
    assert_eq!(data["prompt"], "finish up");
    assert_eq!(data["answer"], "All done.");
    let conversation = data["conversation_id"].as_str().unwrap();
    assert_eq!(data["link"], format!("/c/{conversation}"));
    h.shutdown().await;
}

#[tokio::test]
async fn a_500_is_retried_under_the_same_delivery_id() {
    let receiver = Receiver::start().await;
    receiver.state.answers.lock().extend([500, 503]);
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), true, 3).await;
    let (id, secret) = create_hook(&h, "ci", &receiver.url, &["task_run.ended"]).await;
    run_a_task(&h, "press a").await;
    let got = receiver.wait_for(3).await;
    let ids: Vec<String> = got.iter().map(|r| r.header("deft-delivery")).collect();
    assert!(ids.iter().all(|d| *d == ids[0]), "{ids:?}");
    for r in &got {
        assert_signed(r, &secret);
        assert_eq!(r.body, got[0].body, "the same body each time");
    }
    let logged = settled(&h, &id).await;
    assert_eq!(logged["state"], "succeeded", "{logged}");
    assert_eq!(
        (logged["attempts"].clone(), logged["response_code"].clone()),
        (json!(3), json!(200))
    );
    assert_eq!(logged["id"], ids[0].as_str());
    h.shutdown().await;
}

#[tokio::test]
async fn a_receiver_that_always_fails_marks_the_webhook_failing_and_the_run_still_succeeds() {
    let receiver = Receiver::start().await;
    *receiver.state.always.lock() = Some(500);
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), true, 2).await;
    let (id, _) = create_hook(&h, "down", &receiver.url, &["task_run.ended"]).await;
    let (gone, _) = create_hook(
        &h,
        "nowhere",
        "https://deft-webhook-test.invalid/hook",
        &["task_run.ended"],
    )
    .await;

    let run = run_a_task(&h, "press a").await;
    let stored = h.get(&format!("/api/task-runs/{run}")).await;
    assert_eq!(stored.body["status"], "ok", "{}", stored.body);

    let logged = settled(&h, &id).await;
    assert_eq!(logged["state"], "failed", "{logged}");
    assert_eq!(logged["attempts"], 3);
    assert_eq!(logged["response_code"], 500);
    assert_eq!(
        logged["error"],
        "the receiver answered HTTP 500 (only 2xx counts as delivered)"
    );
    assert_eq!(logged["response_excerpt"], "answered 500");
    assert_eq!(receiver.count(), 3);

    let unresolved = settled(&h, &gone).await;
    assert_eq!(unresolved["state"], "failed", "{unresolved}");
    assert_eq!(unresolved["attempts"], 3);
    assert_eq!(unresolved["response_code"], Value::Null);
    assert!(
        unresolved["error"].as_str().unwrap().contains("dns error"),
        "{unresolved}"
    );

    for hook in [&id, &gone] {
        let listed = h.get(&format!("/api/webhooks/{hook}")).await.body;
        assert_eq!(listed["webhook"]["state"], "failing", "{listed}");
    }
    let bell = h.get("/api/notifications?limit=50").await.body;
    let failing: Vec<&Value> = bell["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "webhook_failing")
        .collect();
    assert_eq!(failing.len(), 2, "{bell}");
    assert!(
        failing
            .iter()
            .any(|n| n["title"] == "Webhook \"down\" is failing"),
        "{bell}"
    );

    // the receiver is back: the next delivery succeeds and clears the mark
    *receiver.state.always.lock() = None;
    h.post(&format!("/api/webhooks/{id}/test"), &json!({}))
        .await;
    let ping = settled(&h, &id).await;
    assert_eq!(ping["state"], "succeeded", "{ping}");
    let listed = h.get(&format!("/api/webhooks/{id}")).await.body;
    assert_eq!(listed["webhook"]["state"], "active", "{listed}");
    h.shutdown().await;
}

#[tokio::test]
async fn private_addresses_are_refused_at_save_and_at_delivery() {
    let receiver = Receiver::start().await;
    let port = receiver
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), false, 0).await;
    for (url, text) in [
        (
            receiver.url.clone(),
            "url: 127.0.0.1 is a loopback address, which webhooks may not reach",
        ),
        (
            format!("http://localhost:{port}/hook"),
            "url: localhost is a loopback address",
        ),
        (
            "http://10.0.0.8/hook".to_owned(),
            "url: 10.0.0.8 is a private (RFC 1918) address",
        ),
        (
            "http://169.254.169.254/latest/meta-data".to_owned(),
            "url: 169.254.169.254 is a link-local address",
        ),
        (
            "http://[::1]/hook".to_owned(),
            "url: ::1 is a loopback address",
        ),
    ] {
        let a = h
            .post(
                "/api/webhooks",
                &json!({"name": "x", "url": url, "events": ["run.ended"]}),
            )
            .await;
        assert_eq!(a.status, 400, "{url}: {}", a.body);
        assert!(
            a.body["error"].as_str().unwrap().starts_with(text),
            "{url}: {}",
            a.body
        );
        assert_eq!(a.body["field"], "url");
    }
    assert!(
        h.get("/api/webhooks").await.body["items"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    h.shutdown().await;

    // saved while allowed, then delivered by a server that is not: refused on the address
    // actually connected to, by literal and by name
    let h = hub(dir.path(), true, 0).await;
    let (literal, _) = create_hook(&h, "literal", &receiver.url, &["run.ended"]).await;
    let by_name = format!("http://localhost:{port}/hook");
    let (named, _) = create_hook(&h, "named", &by_name, &["run.ended"]).await;
    h.shutdown().await;
    let h = hub(dir.path(), false, 0).await;
    for hook in [&literal, &named] {
        let a = h
            .post(&format!("/api/webhooks/{hook}/test"), &json!({}))
            .await;
        assert_eq!(a.status, 202, "{}", a.body);
    }
    let refused = settled(&h, &literal).await;
    assert_eq!(refused["state"], "failed", "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("127.0.0.1 is a loopback address"),
        "{refused}"
    );
    let refused = settled(&h, &named).await;
    assert_eq!(refused["state"], "failed", "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("localhost resolves to"),
        "{refused}"
    );
    assert_eq!(receiver.count(), 0, "nothing reached the receiver");
    h.shutdown().await;
}

#[tokio::test]
async fn a_pending_delivery_resumes_after_a_restart() {
    let receiver = Receiver::start().await;
    *receiver.state.always.lock() = Some(503);
    let dir = tempfile::tempdir().unwrap();
    // the retry is due 3 s after the first attempt: the first server stops before that, and
    // the store keeps the delivery pending with its due time for the next one
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        |c| {
            quick(c, true, 1);
            c.webhooks.retry_delays = vec![Duration::from_secs(3)];
            c.webhooks.jitter = 0.0;
        },
    )
    .await;
    let (id, secret) = create_hook(&h, "ci", &receiver.url, &["run.ended"]).await;
    let test = h
        .post(&format!("/api/webhooks/{id}/test"), &json!({}))
        .await;
    let delivery = test.body["delivery"]["id"].as_str().unwrap().to_owned();
    receiver.wait_for(1).await;
    h.until(&format!("/api/webhooks/{id}/deliveries"), |b| {
        b["items"][0]["attempts"] == 1
    })
    .await;
    h.shutdown().await;

    *receiver.state.always.lock() = None;
    let h = hub(dir.path(), true, 1).await;
    let got = receiver.wait_for(2).await;
    assert_eq!(got[1].header("deft-delivery"), delivery);
    assert_signed(&got[1], &secret);
    let logged = settled(&h, &id).await;
    assert_eq!(
        (logged["state"].clone(), logged["attempts"].clone()),
        (json!("succeeded"), json!(2))
    );
    h.shutdown().await;
}

#[tokio::test]
async fn bad_input_is_refused_field_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), false, 0).await;
    let url = "https://hooks.example.com/deft";
    for (body, field, text) in [
        (
            json!({"name": " ", "url": url, "events": ["run.ended"]}),
            "name",
            "name: a webhook needs a name",
        ),
        (
            json!({"name": "a\nb", "url": url, "events": ["run.ended"]}),
            "name",
            "name: the name may not hold line breaks or other control characters",
        ),
        (
            json!({"name": "x", "url": "", "events": ["run.ended"]}),
            "url",
            "url: a webhook needs a URL (https://…)",
        ),
        (
            json!({"name": "x", "url": "ftp://example.com/", "events": ["run.ended"]}),
            "url",
            "url: the URL's scheme is ftp: only http and https can be delivered to",
        ),
        (
            json!({"name": "x", "url": "https://u:p@example.com/", "events": ["run.ended"]}),
            "url",
            "url: the URL holds a user name or password",
        ),
        (
            json!({"name": "x", "url": "example.com", "events": ["run.ended"]}),
            "url",
            "url: not a URL",
        ),
        (
            json!({"name": "x", "url": url, "events": []}),
            "events",
            "events: choose at least one event: run.ended, task_run.ended, audit.suggestion, device.offline",
        ),
        (
            json!({"name": "x", "url": url, "events": ["run.started"]}),
            "events",
            "events: \"run.started\" is no event deft sends",
        ),
        (
            json!({"name": "x", "url": url, "events": ["ping"]}),
            "events",
            "events: \"ping\" is no event deft sends",
        ),
    ] {
        let a = h.post("/api/webhooks", &body).await;
        assert_eq!(a.status, 400, "{body}: {}", a.body);
        assert_eq!(a.body["field"], field, "{body}: {}", a.body);
        assert!(
            a.body["error"].as_str().unwrap().starts_with(text),
            "{body}: {}",
            a.body
        );
    }
    let unknown_field = h
        .post(
            "/api/webhooks",
            &json!({"name": "x", "url": url, "events": ["run.ended"], "secret": "mine"}),
        )
        .await;
    assert_eq!(unknown_field.status, 400, "{}", unknown_field.body);
    assert!(
        h.get("/api/webhooks").await.body["items"]
            .as_array()
            .unwrap()
            .is_empty(),
        "nothing saved"
    );

    h.shutdown().await;
}

#[tokio::test]
async fn changes_ids_and_pages_are_checked_and_named_tokens_refused() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), false, 0).await;
    let url = "https://hooks.example.com/deft";
    let (id, _) = create_hook(&h, "ci", url, &["device.offline", "run.ended", "run.ended"]).await;
    let hook = h.get(&format!("/api/webhooks/{id}")).await.body;
    assert_eq!(
        hook["webhook"]["events"],
        json!(["run.ended", "device.offline"])
    );
    let clash = h
        .post(
            "/api/webhooks",
            &json!({"name": "ci", "url": url, "events": ["run.ended"]}),
        )
        .await;
    assert_eq!(clash.status, 409, "{}", clash.body);
    assert_eq!(
        clash.body["error"],
        "a webhook named \"ci\" exists; choose another name"
    );

    // a change is checked as a creation is, and loses nothing when refused
    let bad = h
        .send(
            "PATCH",
            &format!("/api/webhooks/{id}"),
            &json!({"url": "http://127.0.0.1/"}),
        )
        .await;
    assert_eq!(
        (bad.status, bad.body["field"].clone()),
        (400, json!("url")),
        "{}",
        bad.body
    );
    let off = h
        .send(
            "PATCH",
            &format!("/api/webhooks/{id}"),
            &json!({"enabled": false, "name": "ops"}),
        )
        .await;
    assert_eq!(off.status, 200, "{}", off.body);
    assert_eq!(off.body["webhook"]["state"], "disabled");
    assert_eq!(off.body["webhook"]["name"], "ops");
    assert_eq!(off.body["webhook"]["url"], url);
    let test = h
        .post(&format!("/api/webhooks/{id}/test"), &json!({}))
        .await;
    assert_eq!(test.status, 409, "{}", test.body);
    assert_eq!(
        test.body["error"],
        "the webhook \"ops\" is disabled; enable it to send to it"
    );

    let missing = h.get("/api/webhooks/nope").await;
    assert_eq!(
        (missing.status, missing.body["error"].clone()),
        (404, json!("no webhook \"nope\""))
    );
    let page = h
        .get(&format!("/api/webhooks/{id}/deliveries?limit=0"))
        .await;
    assert_eq!(page.status, 400, "{}", page.body);
    let cursor = h
        .get(&format!("/api/webhooks/{id}/deliveries?before=nope"))
        .await;
    assert_eq!(cursor.status, 404, "{}", cursor.body);
    let redeliver = h
        .post(
            &format!("/api/webhooks/{id}/deliveries/nope/redeliver"),
            &json!({}),
        )
        .await;
    assert_eq!(redeliver.status, 409, "disabled first: {}", redeliver.body);

    // a named API token cannot reach webhooks, whatever its scopes
    let token = h
        .post(
            "/api/tokens",
            &json!({"name": "ci", "scopes": ["runs", "tasks:write", "notifications"]}),
        )
        .await;
    assert_eq!(token.status, 201, "{}", token.body);
    let value = token.body["value"].as_str().unwrap();
    let refused = reqwest::Client::new()
        .get(format!("{}/api/webhooks", h.url))
        .bearer_auth(value)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);

    let deleted = h.delete(&format!("/api/webhooks/{id}")).await;
    assert_eq!(deleted.status, 204);
    assert_eq!(h.delete(&format!("/api/webhooks/{id}")).await.status, 404);
    h.shutdown().await;
}

/// The code block of `language` in the README's "Webhooks" section.
fn readme_snippet(language: &str) -> String {
    let readme = std::fs::read_to_string(deft_test_support::repo_root().join("README.md")).unwrap();
    let section = readme
        .split("### Webhooks")
        .nth(1)
        .expect("the README has a Webhooks section");
    let section = section.split("\n## ").next().unwrap();
    let fence = format!("```{language}\n");
    let start = section
        .find(&fence)
        .unwrap_or_else(|| panic!("no {language} block"))
        + fence.len();
    let end = start + section[start..].find("```").unwrap();
    section[start..end].to_owned()
}

/// Runs the README's `verify` in `language` on a delivery: whether it says valid.
fn readme_says_valid(language: &str, secret: &str, header: &str, body: &[u8]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let body_file = dir.path().join("body");
    std::fs::write(&body_file, body).unwrap();
    let (program, file, harness) = match language {
        "python" => (
            std::env::var("DEFT_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned()),
            "verify.py",
            "\nimport sys\nsecret, header, path = sys.argv[1:4]\n\
             print('valid' if verify(secret, header, open(path, 'rb').read()) else 'invalid')\n",
        ),
        _ => (
            "node".to_owned(),
            "verify.js",
            "\nconst [secret, header, path] = process.argv.slice(2);\n\
             console.log(verify(secret, header, require('node:fs').readFileSync(path)) ? 'valid' : 'invalid');\n",
        ),
    };
    let script = dir.path().join(file);
    std::fs::write(&script, readme_snippet(language) + harness).unwrap();
    let out = std::process::Command::new(&program)
        .arg(&script)
        .args([secret, header])
        .arg(&body_file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let said = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(
        out.status.success() && (said == "valid" || said == "invalid"),
        "{language}: {said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    said == "valid"
}

#[tokio::test]
async fn the_readmes_verification_code_accepts_a_real_delivery_and_nothing_else() {
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), true, 0).await;
    let (id, secret) = create_hook(&h, "ci", &receiver.url, &["run.ended"]).await;
    h.post(&format!("/api/webhooks/{id}/test"), &json!({}))
        .await;
    let got = receiver.wait_for(1).await;
    let (header, body) = (got[0].header("deft-signature"), got[0].body.clone());
    let mut tampered = body.clone();
    tampered.extend_from_slice(b" ");
    let old = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 600;
    let mut signed_old = format!("{old}.").into_bytes();
    signed_old.extend_from_slice(&body);
    let replayed = format!("t={old},v1={}", hmac_sha256(secret.as_bytes(), &signed_old));
    for language in ["python", "js"] {
        assert!(
            readme_says_valid(language, &secret, &header, &body),
            "{language}: the real one"
        );
        assert!(
            !readme_says_valid(language, &secret, &header, &tampered),
            "{language}: tampered"
        );
        assert!(
            !readme_says_valid(language, "whsec_other", &header, &body),
            "{language}: another secret"
        );
        assert!(
            !readme_says_valid(language, &secret, &replayed, &body),
            "{language}: too old"
        );
        assert!(
            !readme_says_valid(language, &secret, "garbage", &body),
            "{language}: malformed"
        );
    }
    h.shutdown().await;
}

/// An audit answer suggesting the deletion of the experiences titled `delete`.
fn audit_answer(delete: &'static [&'static str]) -> deft_test_support::model::Turn {
    Box::new(move |req: &deft_test_support::model::Recorded| {
        let text = req.messages()[1]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let reviews: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix('['))
            .filter_map(|l| l.split_once("] "))
            .map(|(n, title)| {
                let verdict = if delete.contains(&title) { "delete" } else { "keep" };
                json!({"n": n.parse::<u64>().unwrap(), "verdict": verdict, "score": 30, "reason": verdict})
            })
            .collect();
        Reply::text(&json!({"reviews": reviews}).to_string())
    })
}

#[tokio::test]
async fn an_audits_suggestions_and_a_device_going_offline_are_delivered() {
    let model = ScriptedModel::start(vec![audit_answer(&["vague"])]).await;
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let base = model.base_url();
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        |c| {
            quick(c, true, 0);
            c.defaults = ModelDefaults {
                api_base: Some(base),
                model: Some("scripted".into()),
                api_key: None,
            };
        },
    )
    .await;
    let (_, secret) = create_hook(
        &h,
        "ops",
        &receiver.url,
        &["audit.suggestion", "device.offline"],
    )
    .await;

    for title in ["useful", "vague"] {
        let e = h
            .post(
                "/api/memory/experiences",
                &json!({"task": format!("task {title}"), "title": title, "recipe": "r"}),
            )
            .await;
        assert_eq!(e.status, 201, "{}", e.body);
    }
    let audit = h.post("/api/memory/audit", &json!({})).await;
    assert_eq!(audit.status, 202, "{}", audit.body);
    let got = receiver.wait_for(1).await;
    assert_signed(&got[0], &secret);
    assert_eq!(got[0].header("deft-event"), "audit.suggestion");
    let data = &got[0].json()["data"];
    assert_eq!(
        (data["reviewed"].clone(), data["suggested"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(data["link"], "/memory");

    // a remote device links, then leaves
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/ws", h.addr).into_client_request().unwrap();
    req.headers_mut().insert(
        "authorization",
        format!("Bearer {}", common::DEVICE_TOKEN).parse().unwrap(),
    );
    let mut ws = tokio_tungstenite::connect_async(req).await.unwrap().0;
    common::send(&mut ws, &common::register("phone-1")).await;
    let _ack = common::recv(&mut ws).await;
    ws.close(None).await.unwrap();
    let got = receiver.wait_for(2).await;
    assert_signed(&got[1], &secret);
    assert_eq!(got[1].header("deft-event"), "device.offline");
    assert_eq!(got[1].json()["data"]["device"], "phone-1");
    h.shutdown().await;
}
