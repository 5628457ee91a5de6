//! Named API tokens through the console API of a real server on loopback (SQLite file): made
//! with checked names, scopes and expiry, shown once and stored only as a hash; each reaches
//! exactly what its scopes name (403 naming the scope otherwise, admin routes never); every
//! call it makes is logged with its last use; a revoked or expired token is refused at once.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

mod common;

use std::time::Duration;

use common::console_hub::{Answer, ConsoleHub};
use deft_server::console::secrets::sha256_hex;
use deft_store::NewApiToken;
use serde_json::{Value, json};

/// `method path` with `token` as the Bearer.
async fn call(
    h: &ConsoleHub,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Answer {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = reqwest::Client::new()
        .request(method, format!("{}{path}", h.url))
        .bearer_auth(token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let bytes = r.bytes().await.unwrap();
    Answer {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

/// The calls `GET /api/tokens/{name}` shows once at least `n` are logged.
async fn calls_once_logged(h: &ConsoleHub, name: &str, n: usize) -> Value {
    answer_once(h, &format!("/api/tokens/{name}"), |body| {
        body["calls"].as_array().is_some_and(|c| c.len() >= n)
    })
    .await
}

/// `GET path`'s body once `ready` holds for it.
async fn answer_once(h: &ConsoleHub, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let got = h.get(path).await;
            if ready(&got.body) {
                return got.body;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the calls are logged")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_token_requests_are_refused_at_their_field() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![]).await;
    let cases = [
        (
            json!({"name": "a/b", "scopes": ["runs"]}),
            400,
            "\"a/b\" is not a token name: use 1 to 64 letters, digits, spaces, '-', '_' or '.', e.g. nightly-erp",
        ),
        (
            json!({"name": "ci", "scopes": []}),
            400,
            "give the token at least one scope: devices:read, devices:exec, runs, tasks:read, tasks:write, tasks:run, memory:read, memory:write, notifications",
        ),
        (
            json!({"name": "ci", "scopes": ["runs", "admin"]}),
            400,
            "unknown scope \"admin\": use some of devices:read, devices:exec, runs, tasks:read, tasks:write, tasks:run, memory:read, memory:write, notifications",
        ),
        (
            json!({"name": "ci", "scopes": ["runs"], "expires_in_days": 0}),
            400,
            "expires_in_days 0 is out of range: give 1 to 3650 days, or leave it out for a token that does not expire",
        ),
    ];
    for (body, status, text) in cases {
        let got = h.post("/api/tokens", &body).await;
        assert_eq!(
            (got.status, got.body["error"].as_str()),
            (status, Some(text)),
            "{body}"
        );
    }
    let unknown_field = h
        .post(
            "/api/tokens",
            &json!({"name": "ci", "scopes": ["runs"], "admin": true}),
        )
        .await;
    assert_eq!(unknown_field.status, 400, "{}", unknown_field.body);
    let reserved = h
        .post(
            "/api/tokens",
            &json!({"name": "api-token", "scopes": ["runs"]}),
        )
        .await;
    assert_eq!(
        (reserved.status, reserved.body["error"].as_str()),
        (
            400,
            Some(
                "\"api-token\" is reserved: it names the server's own API token, whose calls GET /api/tokens/api-token/calls lists; pick another name"
            )
        )
    );
    for (method, path) in [
        ("GET", "/api/tokens/nobody"),
        ("GET", "/api/tokens/nobody/calls"),
        ("DELETE", "/api/tokens/nobody"),
    ] {
        let got = h.send(method, path, &Value::Null).await;
        assert_eq!(
            (got.status, got.body["error"].as_str()),
            (
                404,
                Some("no API token named \"nobody\": GET /api/tokens lists them")
            ),
            "{method} {path}"
        );
    }
    assert!(
        h.get("/api/tokens").await.body["items"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    h.shutdown().await;
}

/// The token `value` ("ci": tasks:read and runs) reaches what its scopes name and nothing else.
async fn reaches_only_its_scopes(h: &ConsoleHub, value: &str) {
    assert_eq!(call(h, value, "GET", "/api/tasks", None).await.status, 200);
    assert_eq!(
        call(h, value, "GET", "/api/conversations", None)
            .await
            .status,
        200
    );
    let write = call(h, value, "POST", "/api/tasks", Some(json!({"name": "x"}))).await;
    assert_eq!(
        (write.status, write.body["error"].as_str()),
        (
            403,
            Some(
                "the API token \"ci\" lacks the scope tasks:write: make a token that has it (`deft token create NAME --scope tasks:write`)"
            )
        )
    );
    for path in ["/api/secrets", "/api/tokens", "/api/settings"] {
        let admin = call(h, value, "GET", path, None).await;
        assert_eq!(
            (admin.status, admin.body["error"].as_str()),
            (
                403,
                Some(
                    "the API token \"ci\" cannot call this route: settings, secrets and tokens take a console login or the server's API token"
                )
            ),
            "{path}"
        );
    }
    let me = call(h, value, "GET", "/api/auth/me", None).await;
    assert_eq!(me.status, 403, "an admin route too: {}", me.body);
    let wrong = call(h, "deft_not-a-token", "GET", "/api/tasks", None).await;
    assert_eq!(wrong.status, 401);
}

/// The calls this test made with the server's own API token, under `api-token`, apart from
/// "ci"'s.
async fn the_server_tokens_calls_are_logged(h: &ConsoleHub) {
    let made = [
        ("POST", "/api/tokens", 201),
        ("POST", "/api/tokens", 409),
        ("GET", "/api/tokens", 200),
        ("GET", "/api/tokens/ci", 200),
    ];
    let shown = answer_once(h, "/api/tokens/api-token/calls", |body| {
        let calls = body["items"].as_array().cloned().unwrap_or_default();
        made.iter().all(|(method, path, status)| {
            calls
                .iter()
                .any(|c| c["method"] == *method && c["path"] == *path && c["status"] == *status)
        })
    })
    .await;
    let items = shown["items"].as_array().unwrap();
    assert!(items.iter().all(|c| c["at"].is_string()), "{shown}");
    assert!(
        !items.iter().any(|c| c["path"] == "/api/secrets"),
        "ci's calls are not the server token's: {shown}"
    );
}

/// Every call "ci" made, with its answer, and its last use.
async fn its_calls_are_logged(h: &ConsoleHub) {
    let shown = calls_once_logged(h, "ci", 7).await;
    let calls: Vec<(String, String, u64)> = shown["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["method"].as_str().unwrap().to_owned(),
                c["path"].as_str().unwrap().to_owned(),
                c["status"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(calls.len(), 7, "{calls:?}");
    for want in [
        ("GET", "/api/tasks", 200),
        ("GET", "/api/conversations", 200),
        ("POST", "/api/tasks", 403),
        ("GET", "/api/secrets", 403),
        ("GET", "/api/auth/me", 403),
    ] {
        let want = (want.0.to_owned(), want.1.to_owned(), want.2);
        assert!(calls.contains(&want), "{want:?} in {calls:?}");
    }
    assert!(
        shown["token"]["last_used_at"].is_string(),
        "{}",
        shown["token"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_reaches_its_scopes_is_logged_and_stops_at_revocation() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![]).await;
    let made = h
        .post(
            "/api/tokens",
            &json!({"name": "ci", "scopes": ["tasks:read", "runs", "tasks:read"], "expires_in_days": 30}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let value = made.body["value"].as_str().unwrap().to_owned();
    assert!(value.starts_with("deft_") && value.len() > 40, "{value}");
    let token = &made.body["token"];
    assert_eq!(token["name"], "ci");
    assert_eq!(
        token["scopes"],
        json!(["runs", "tasks:read"]),
        "once each, in order"
    );
    assert_eq!(token["prefix"].as_str(), Some(&value[..12]));
    assert_eq!(
        (token["state"].as_str(), token["created_by"].as_str()),
        (Some("active"), Some("api token"))
    );
    assert!(token["expires_at"].is_string() && token["last_used_at"].is_null());
    let again = h
        .post("/api/tokens", &json!({"name": "ci", "scopes": ["runs"]}))
        .await;
    assert_eq!(again.status, 409, "{}", again.body);

    // Shown once: neither the list nor the database holds the value.
    let listed = h.get("/api/tokens").await;
    assert!(
        !listed.body.to_string().contains(&value[12..]),
        "{}",
        listed.body
    );
    assert_eq!(listed.body["items"][0]["name"], "ci");
    let db = std::fs::read(dir.path().join("deft.db")).unwrap();
    assert!(
        !db.windows(value.len()).any(|w| w == value.as_bytes()),
        "the value is not stored"
    );

    reaches_only_its_scopes(&h, &value).await;
    its_calls_are_logged(&h).await;
    the_server_tokens_calls_are_logged(&h).await;

    // Revoked: refused at its next call.
    let revoked = h.delete("/api/tokens/ci").await;
    assert_eq!(
        (revoked.status, revoked.body["token"]["state"].as_str()),
        (200, Some("revoked"))
    );
    let after = call(&h, &value, "GET", "/api/tasks", None).await;
    assert_eq!(
        (after.status, after.body["error"].as_str()),
        (
            401,
            Some(
                "the API token \"ci\" was revoked: make a new one in the console's settings or with `deft token create`"
            )
        )
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refused_and_listed_as_expired() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![]).await;
    let value = "deft_expired-token-value-for-the-test";
    h.console
        .store()
        .create_api_token(&NewApiToken {
            name: "old".into(),
            token_hash: sha256_hex(value),
            prefix: value[..12].into(),
            scopes: vec!["tasks:read".into()],
            created_by: "admin".into(),
            created_at_ms: 1_000,
            expires_at_ms: Some(2_000),
        })
        .await
        .unwrap();
    let refused = call(&h, value, "GET", "/api/tasks", None).await;
    assert_eq!(
        (refused.status, refused.body["error"].as_str()),
        (
            401,
            Some(
                "the API token \"old\" expired at 1970-01-01T00:00:02.000Z: make a new one in the console's settings or with `deft token create`"
            )
        )
    );
    assert_eq!(
        h.get("/api/tokens").await.body["items"][0]["state"],
        "expired"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_tokens_open_streams_end() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![]).await;
    let made = h
        .post(
            "/api/tokens",
            &json!({"name": "watcher", "scopes": ["notifications"]}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let value = made.body["value"].as_str().unwrap().to_owned();
    let open = || async {
        let r = reqwest::Client::new()
            .get(format!("{}/api/notifications/stream", h.url))
            .bearer_auth(&value)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        r
    };
    // Drains `stream` until it ends; `None` when it is still open after `within`.
    async fn ends_within(stream: &mut reqwest::Response, within: Duration) -> Option<()> {
        tokio::time::timeout(within, async {
            while stream.chunk().await.unwrap().is_some() {}
        })
        .await
        .ok()
    }
    let mut first = open().await;
    let mut second = open().await;
    // Open while the token is good (three looks at it).
    assert!(
        ends_within(&mut first, token_streams_check() * 3)
            .await
            .is_none(),
        "a good token's stream stays open"
    );
    let revoked = h.delete("/api/tokens/watcher").await;
    assert_eq!(revoked.status, 200, "{}", revoked.body);
    for stream in [&mut first, &mut second] {
        assert!(
            ends_within(stream, Duration::from_secs(20)).await.is_some(),
            "a revoked token's stream ends"
        );
    }
    h.shutdown().await;
}

/// How often an open stream's token is looked up again.
fn token_streams_check() -> Duration {
    deft_server::console::token_streams::CHECK_EVERY
}
