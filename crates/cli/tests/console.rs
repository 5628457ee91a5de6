//! The console's API against a real `deft serve` process (SQLite in a temporary data folder),
//! the scripted model over HTTP and real devices (`local` with the shell tools and the fixture
//! MCP server as a stdio child; a `deft client` process for the remote case).

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::time::Duration;

use deft_test_support::TempDataDir;
use deft_test_support::model::{ModelOptions, Reply, ScriptedModel, Turn};
use serde_json::{Value, json};
use support::{API_TOKEN, Api, Auth, Serve, ServeOptions, kinds};

async fn model(turns: Vec<Turn>) -> ScriptedModel {
    ScriptedModel::start(turns).await
}

fn seqs(events: &[support::SseEvent]) -> Vec<u64> {
    events.iter().map(|e| e.id).collect()
}

#[tokio::test]
async fn a_full_run_streams_every_event_and_keeps_the_answer() {
    let m = model(vec![
        Reply::tool_call("get_system_info", json!({}))
            .with_reasoning("I should look at the machine first.")
            .into(),
        Reply::text("It is **Linux**.\n\n| a | b |\n|---|---|\n| 1 | 2 |")
            .with_reasoning("Now I know.")
            .into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.login().await;
    let (run_id, conversation) = api
        .run(json!({"prompt": "what machine is this?", "device": "local"}))
        .await;
    let events = api.events(&run_id).await;
    assert_eq!(
        seqs(&events),
        (1..=events.len() as u64).collect::<Vec<_>>(),
        "seq numbers from 1 without gaps: {:?}",
        kinds(&events)
    );
    let k = kinds(&events);
    for kind in ["delta", "step_start", "step", "usage", "done"] {
        assert!(k.contains(&kind), "no {kind} in {k:?}");
    }
    assert_eq!(k.iter().filter(|x| **x == "done").count(), 1);
    assert_eq!(*k.last().unwrap(), "done");
    let done = &events.last().unwrap().data;
    assert_eq!(done["status"], "completed");
    assert!(done["answer"].as_str().unwrap().contains("**Linux**"));
    assert_eq!(done["usage"]["calls"], 2);
    let step = events.iter().find(|e| e.event == "step").unwrap();
    assert_eq!(step.data["tool"], "get_system_info");
    assert_eq!(step.data["result"]["status"], "success");
    assert!(
        events
            .iter()
            .any(|e| e.event == "delta" && e.data["kind"] == "reasoning")
    );

    // The run slot is free as soon as `done` is out, and the conversation holds both messages.
    let current = api.get("/api/agent/run").await;
    assert_eq!(current.body, json!({"run": null}));
    let conv = api.get(&format!("/api/conversations/{conversation}")).await;
    assert_eq!(conv.status, 200);
    let msgs = conv.body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert_eq!(msgs[0]["role"], "user");
    assert_eq!(msgs[0]["content"], "what machine is this?");
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[1]["status"], "completed");
    assert_eq!(msgs[1]["usage"]["total_tokens"], 240);
    assert_eq!(
        msgs[1]["reasoning"], "I should look at the machine first.\n\nNow I know.",
        "each model call's reasoning is a paragraph of its own"
    );
    assert_eq!(msgs[1]["steps"][0]["tool"], "get_system_info");
    assert_eq!(conv.body["usage"]["total_tokens"], 240);
    let run = api.get(&format!("/api/agent/runs/{run_id}")).await;
    assert_eq!(run.body["status"], "completed");
    assert_eq!(run.body["last_seq"], events.len() as u64);
    // The conversation was titled from the prompt and is listed.
    let list = api.get("/api/conversations").await;
    assert_eq!(list.body[0]["id"], conversation.as_str());
    assert_eq!(list.body[0]["title"], "what machine is this?");
}

#[tokio::test]
async fn one_run_at_a_time_and_busy_devices_get_409() {
    let slow = Reply::text(&"slow answer ".repeat(30)).with_delay(Duration::from_millis(40));
    let m = model(vec![slow.into(), Reply::text("second").into()]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.api();
    let (run_id, _) = api.run(json!({"prompt": "first", "device": "local"})).await;
    let second = api
        .post(
            "/api/agent/run",
            &json!({"prompt": "second", "device": "local"}),
        )
        .await;
    assert_eq!(second.status, 409);
    assert!(
        second.body["error"]
            .as_str()
            .unwrap()
            .starts_with("another run is active"),
        "{}",
        second.text
    );
    let current = api.get("/api/agent/run").await;
    assert_eq!(current.body["run"]["run_id"], run_id.as_str());
    assert_eq!(current.body["run"]["status"], "running");
    // While the run holds it, the device is listed busy.
    let devices = api.get("/api/devices").await;
    let local = devices
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == "local")
        .unwrap();
    assert_eq!(local["busy"], true);
    api.events(&run_id).await;

    // An exec batch holding the device (a long `sleep`) makes a run for it 409 "the device is busy".
    let exec_api = api.clone();
    let exec = tokio::spawn(async move {
        exec_api
            .post(
                "/api/devices/local/exec",
                &json!({"commands": [{"tool_name": "sleep", "parameters": {"ms": 3000}}]}),
            )
            .await
    });
    let mut held = false;
    for _ in 0..200 {
        let devices = api.get("/api/devices").await;
        let local = devices
            .body
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == "local")
            .cloned();
        if local.is_some_and(|d| d["busy"] == true) {
            held = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(held, "the exec batch never held the device");
    let conversations_before = api.get("/api/conversations").await.body;
    let busy = api
        .post(
            "/api/agent/run",
            &json!({"prompt": "second", "device": "local"}),
        )
        .await;
    assert_eq!(busy.status, 409, "{}", busy.text);
    assert!(
        busy.body["error"]
            .as_str()
            .unwrap()
            .contains("the device 'local' is busy"),
        "{}",
        busy.text
    );
    assert_eq!(
        api.get("/api/conversations").await.body,
        conversations_before,
        "a refused run leaves no conversation behind"
    );
    assert_eq!(exec.await.unwrap().status, 200);
    assert_eq!(api.get("/api/agent/run").await.body, json!({"run": null}));
}

#[tokio::test]
async fn bad_run_requests_say_what_to_do() {
    let m = model(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.api();
    let cases = [
        (json!({"prompt": "x"}), 400, "choose a device"),
        (
            json!({"prompt": "  ", "device": "local"}),
            400,
            "the prompt is empty",
        ),
        (
            json!({"prompt": "x", "device": "nope"}),
            404,
            "the device 'nope' is not connected (connected devices: local)",
        ),
        (
            json!({"prompt": "x", "device": "local", "conversation": "missing"}),
            404,
            "unknown conversation 'missing'",
        ),
        (
            json!({"prompt": "x", "device": "local", "extra": 1}),
            400,
            "unknown field `extra`",
        ),
        (json!({"device": "local"}), 400, "missing field `prompt`"),
    ];
    for (body, status, text) in cases {
        let r = api.post("/api/agent/run", &body).await;
        assert_eq!(r.status, status, "{body}: {}", r.text);
        assert!(
            r.body["error"].as_str().unwrap().contains(text),
            "{body}: {}",
            r.text
        );
    }
    let r = api.send("POST", "/api/agent/run", None).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = api.post("/api/agent/stop", &json!({})).await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (409, Some("no run is active"))
    );
    let r = api
        .post(
            "/api/agent/confirm",
            &json!({"run_id": "x", "call_id": "c", "approve": true}),
        )
        .await;
    assert_eq!(r.status, 404);
    let r = api.get("/api/agent/stream?run_id=nope").await;
    assert_eq!(
        (r.status, r.body["error"].as_str()),
        (404, Some("unknown run 'nope'"))
    );
    // A default device makes `device` optional.
    let r = api
        .send(
            "PUT",
            "/api/settings",
            Some(&json!({"default_device": "local", "model": ""})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // With the model cleared in the store, the flag's model still applies.
    assert_eq!(r.body["model"], "scripted");
}

// Every route and every way in, in one table of checks: long because the table is.
#[allow(clippy::too_many_lines)]
#[tokio::test]
async fn login_is_required_everywhere_and_sessions_are_csrf_safe() {
    let m = model(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let anon = Api::new(&serve.url, Auth::None);
    let routes = [
        ("GET", "/api/devices"),
        ("GET", "/api/devices/local"),
        ("POST", "/api/devices/local/exec"),
        ("GET", "/api/devices/local/live"),
        ("GET", "/api/settings"),
        ("PUT", "/api/settings"),
        ("GET", "/api/conversations"),
        ("POST", "/api/conversations"),
        ("GET", "/api/conversations/x"),
        ("PATCH", "/api/conversations/x"),
        ("DELETE", "/api/conversations/x"),
        ("GET", "/api/agent/run"),
        ("POST", "/api/agent/run"),
        ("GET", "/api/agent/runs/x"),
        ("POST", "/api/agent/stop"),
        ("POST", "/api/agent/confirm"),
        ("GET", "/api/agent/stream?run_id=x"),
        ("GET", "/api/runs/x/images/img-1"),
        ("GET", "/api/auth/me"),
        ("POST", "/api/auth/logout"),
    ];
    for (method, path) in routes {
        let r = anon.send(method, path, Some(&json!({}))).await;
        assert_eq!(r.status, 401, "{method} {path}: {}", r.text);
        assert!(
            r.body["error"].as_str().unwrap().contains("log in"),
            "{method} {path}"
        );
        let wrong = anon.with(Auth::Token("wrong".into()));
        assert_eq!(wrong.send(method, path, Some(&json!({}))).await.status, 401);
    }
    // Open routes.
    assert_eq!(anon.get("/health").await.status, 200);
    let state = anon.get("/api/auth/state").await;
    assert_eq!(
        state.body,
        json!({"setup_required": false, "logged_in": false})
    );

    // Login: cookie flags, CSRF on writes, logout.
    let bad = anon
        .post(
            "/api/auth/login",
            &json!({"username": "admin", "password": "nope"}),
        )
        .await;
    assert_eq!(
        (bad.status, bad.body["error"].as_str()),
        (401, Some("wrong username or password"))
    );
    let api = serve.login().await;
    let Auth::Session { cookie, csrf } = api.auth.clone() else {
        unreachable!()
    };
    let login = anon
        .post(
            "/api/auth/login",
            &json!({"username": "admin", "password": support::ADMIN_PASSWORD}),
        )
        .await;
    let set_cookie = login.set_cookie.unwrap();
    for flag in ["HttpOnly", "SameSite=Strict", "Secure", "Path=/"] {
        assert!(set_cookie.contains(flag), "{flag} missing: {set_cookie}");
    }
    assert_eq!(api.get("/api/settings").await.status, 200);
    let me = api.get("/api/auth/me").await;
    assert_eq!(me.body, json!({"username": "admin", "csrf_token": csrf}));
    let no_csrf = api.with(Auth::CookieOnly(cookie.clone()));
    assert_eq!(no_csrf.get("/api/conversations").await.status, 200);
    let r = no_csrf
        .post("/api/conversations", &json!({"title": "t"}))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert!(r.body["error"].as_str().unwrap().contains("X-CSRF-Token"));
    let wrong_csrf = api.with(Auth::Session {
        cookie: cookie.clone(),
        csrf: "x".into(),
    });
    assert_eq!(
        wrong_csrf
            .post("/api/conversations", &json!({}))
            .await
            .status,
        403
    );
    assert_eq!(
        api.post("/api/conversations", &json!({"title": "t"}))
            .await
            .status,
        201
    );
    // The API token needs no CSRF header.
    assert_eq!(
        serve
            .api()
            .post("/api/conversations", &json!({}))
            .await
            .status,
        201
    );
    assert_eq!(api.post("/api/auth/logout", &json!({})).await.status, 204);
    assert_eq!(api.get("/api/settings").await.status, 401);

    // Failed logins are limited per address.
    let mut last = None;
    for _ in 0..6 {
        last = Some(
            anon.post(
                "/api/auth/login",
                &json!({"username": "admin", "password": "guess"}),
            )
            .await,
        );
    }
    let last = last.unwrap();
    assert_eq!(last.status, 429, "{}", last.text);
    assert!(last.retry_after.is_some());
    assert!(
        last.body["error"]
            .as_str()
            .unwrap()
            .starts_with("too many failed logins")
    );
    // The web UI is served to anyone (it asks for a login itself) with a strict CSP.
    let page = reqwest::get(format!("{}/", serve.url)).await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let _ = API_TOKEN;
}

#[tokio::test]
async fn first_start_without_a_password_prints_a_one_time_setup_link() {
    let m = model(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let mut opts = ServeOptions::shell(&m.base_url(), dir.path());
    opts.admin_password = false;
    let serve = Serve::start(dir.path(), &opts);
    let mut printed = serve.printed();
    for _ in 0..250 {
        if printed.contains("#setup=") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        printed = serve.printed();
    }
    let token = printed
        .lines()
        .find_map(|l| l.split("#setup=").nth(1))
        .unwrap_or_else(|| panic!("no setup link in:\n{printed}"))
        .trim()
        .to_owned();
    let anon = Api::new(&serve.url, Auth::None);
    assert_eq!(
        anon.get("/api/auth/state").await.body["setup_required"],
        true
    );
    let short = anon
        .post(
            "/api/auth/setup",
            &json!({"token": token, "username": "ops", "password": "short"}),
        )
        .await;
    assert_eq!(short.status, 400);
    let wrong = anon
        .post(
            "/api/auth/setup",
            &json!({"token": "nope", "username": "ops", "password": "long enough pw"}),
        )
        .await;
    assert_eq!(wrong.status, 403);
    let ok = anon
        .post(
            "/api/auth/setup",
            &json!({"token": token, "username": "ops", "password": "long enough pw"}),
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    assert_eq!(ok.body["username"], "ops");
    let again = anon
        .post(
            "/api/auth/setup",
            &json!({"token": token, "username": "x", "password": "long enough pw"}),
        )
        .await;
    assert_eq!(again.status, 400);
    assert_eq!(
        anon.get("/api/auth/state").await.body["setup_required"],
        false
    );
    let login = anon
        .post(
            "/api/auth/login",
            &json!({"username": "ops", "password": "long enough pw"}),
        )
        .await;
    assert_eq!(login.status, 200);
}

#[tokio::test]
async fn the_api_key_is_never_returned_and_not_stored_in_plain_text() {
    const KEY: &str = "sk-test-4f1c2b9a7e6d5c3b1a09";
    let m = ScriptedModel::start_with(
        vec![Reply::text("ok").into()],
        ModelOptions {
            api_key: Some(KEY.to_owned()),
            ..Default::default()
        },
    )
    .await;
    let dir = TempDataDir::new().unwrap();
    let opts = ServeOptions::shell(&m.base_url(), dir.path());
    let serve = Serve::start(dir.path(), &opts);
    let api = serve.login().await;
    let put = api
        .send(
            "PUT",
            "/api/settings",
            Some(&json!({"api_key": KEY, "max_steps": 0, "default_device": "local"})),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.text);
    assert!(
        !put.text.contains(KEY) && !put.text.contains("4f1c2b9a7e6d"),
        "{}",
        put.text
    );
    assert_eq!(put.body["api_key_set"], true);
    assert_eq!(put.body["api_key_masked"], "sk-…1a09");
    assert_eq!(put.body["max_steps"], 1);
    let r = api
        .send("PUT", "/api/settings", Some(&json!({"max_steps": 999})))
        .await;
    assert_eq!(r.body["max_steps"], 200);
    let r = api
        .send(
            "PUT",
            "/api/settings",
            Some(&json!({"api_base": "ftp://x"})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(
        r.body["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid api_base")
    );
    let r = api
        .send("PUT", "/api/settings", Some(&json!({"apikey": "x"})))
        .await;
    assert_eq!(r.status, 400, "unknown field: {}", r.text);
    let got = api.get("/api/settings").await;
    assert!(!got.text.contains(KEY));

    // Restart: the key still works (the model requires it), and no file holds it in clear.
    drop(serve);
    let serve = Serve::start(dir.path(), &opts);
    let api = serve.api();
    let (run_id, _) = api.run(json!({"prompt": "hi"})).await;
    let events = api.events(&run_id).await;
    assert_eq!(
        events.last().unwrap().data["status"],
        "completed",
        "{:?}",
        events.last()
    );
    assert_eq!(
        m.requests()[0].authorization.as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    for entry in walk(dir.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        let found = bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes());
        assert!(
            !found,
            "{} holds the API key in plain text",
            entry.display()
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test]
async fn stop_ends_the_run_within_two_seconds() {
    let m = model(vec![
        Reply::tool_call("sleep", json!({"ms": 60000})).into(),
        Reply::text("never").into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.login().await;
    let (run_id, _) = api.run(json!({"prompt": "sleep", "device": "local"})).await;
    let mut s = api.stream(&run_id, None).await;
    s.next_of("step_start").await;
    let started = std::time::Instant::now();
    let r = api
        .post("/api/agent/stop", &json!({"run_id": run_id}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let done = s.next_of("done").await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(done.data["status"], "stopped");
    assert_eq!(api.get("/api/agent/run").await.body, json!({"run": null}));
    let run = api.get(&format!("/api/agent/runs/{run_id}")).await;
    assert_eq!(run.body["status"], "stopped");
}

#[tokio::test]
async fn approve_and_deny_are_seen_by_every_page() {
    let m = model(vec![
        Reply::tool_call("run_shell", json!({"command": "uname -s"})).into(),
        Reply::text("approved one done").into(),
        Reply::tool_call("run_shell", json!({"command": "uname -s"})).into(),
        Reply::text("denied one done").into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.login().await;
    for approve in [true, false] {
        let (run_id, _) = api.run(json!({"prompt": "uname", "device": "local"})).await;
        let mut page1 = api.stream(&run_id, None).await;
        let mut page2 = serve.api().stream(&run_id, None).await;
        let ask = page1.next_of("confirm").await;
        assert_eq!(page2.next_of("confirm").await.data, ask.data);
        assert_eq!(ask.data["tool"], "run_shell");
        let call_id = ask.data["call_id"].as_str().unwrap().to_owned();
        let current = api.get("/api/agent/run").await;
        assert_eq!(
            current.body["run"]["pending_confirm"]["call_id"],
            call_id.as_str()
        );
        let r = api
            .post(
                "/api/agent/confirm",
                &json!({"run_id": run_id, "call_id": call_id, "approve": approve}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let again = api
            .post(
                "/api/agent/confirm",
                &json!({"run_id": run_id, "call_id": call_id, "approve": approve}),
            )
            .await;
        assert_eq!(again.status, 404, "answered already");
        for page in [&mut page1, &mut page2] {
            let confirmed = page.next_of("confirmed").await;
            assert_eq!(confirmed.data["approve"], approve);
            let rest = page.until_done(Duration::from_secs(30)).await;
            let ran = rest.iter().any(|e| e.event == "step");
            assert_eq!(
                ran,
                approve,
                "the step runs only when approved: {:?}",
                kinds(&rest)
            );
            assert_eq!(rest.last().unwrap().data["status"], "completed");
        }
    }
    // The model was told about the denial.
    let last = m
        .requests()
        .last()
        .unwrap()
        .last_tool_output()
        .unwrap_or("")
        .to_owned();
    assert!(last.contains("did not approve"), "{last}");
}

/// The notifications about run `run_id`.
async fn notices_of(api: &Api, run_id: &str) -> Vec<Value> {
    let list = api.get("/api/notifications?limit=200").await;
    assert_eq!(list.status, 200, "{}", list.text);
    list.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["run_id"] == run_id)
        .cloned()
        .collect()
}

/// Waits until run `run_id`'s one notification has the title `title` (it is rewritten when
/// the wait ends), then answers it.
async fn notice_titled(api: &Api, run_id: &str, title: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let notes = notices_of(api, run_id).await;
        // The notification is stored beside the `confirm` event, not before it: none yet is
        // no failure until the deadline.
        if notes.is_empty() && std::time::Instant::now() <= deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        assert_eq!(notes.len(), 1, "one notification per wait: {notes:?}");
        if notes[0]["title"] == title || std::time::Instant::now() > deadline {
            assert_eq!(notes[0]["title"], title, "{notes:?}");
            return notes[0].clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_wait_for_approval_notifies_once_and_its_answer_resolves_it() {
    let m = model(vec![
        Reply::tool_call("run_shell", json!({"command": "uname -s"})).into(),
        Reply::text("approved one done").into(),
        Reply::tool_call("run_shell", json!({"command": "uname -s"})).into(),
        Reply::text("denied one done").into(),
        Reply::tool_call("run_shell", json!({"command": "uname -s"})).into(),
        Reply::text("never").into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.login().await;
    let waits = "A run waits for your approval of run_shell";
    for answer in [Some(true), Some(false), None] {
        let (run_id, conversation) = api.run(json!({"prompt": "uname", "device": "local"})).await;
        let mut page = api.stream(&run_id, None).await;
        let ask = page.next_of("confirm").await;
        let waiting = notice_titled(&api, &run_id, waits).await;
        assert_eq!(
            (&waiting["kind"], &waiting["level"], &waiting["read"]),
            (&json!("approval_waiting"), &json!("warning"), &json!(false))
        );
        assert_eq!(waiting["link"], format!("/c/{conversation}"));
        assert_eq!(waiting["conversation_id"], conversation.as_str());
        assert_eq!(waiting["body"], ask.data["reason"]);
        let r = match answer {
            Some(approve) => {
                let call_id = ask.data["call_id"].as_str().unwrap();
                let body = json!({"run_id": run_id, "call_id": call_id, "approve": approve});
                api.post("/api/agent/confirm", &body).await
            }
            None => {
                api.post("/api/agent/stop", &json!({"run_id": run_id}))
                    .await
            }
        };
        assert_eq!(r.status, 200, "{}", r.text);
        page.until_done(Duration::from_secs(30)).await;
        let title = match answer {
            Some(true) => "Approved: run_shell (the run went on)",
            Some(false) => "Denied: run_shell (the run was told)",
            None => "No longer waits: run_shell (the run ended before an answer)",
        };
        let answered = notice_titled(&api, &run_id, title).await;
        assert_eq!(
            (&answered["id"], &answered["level"]),
            (&waiting["id"], &json!("info"))
        );
    }
}

#[tokio::test]
async fn history_is_capped_and_the_model_sees_twelve_rounds() {
    let turns: Vec<Turn> = (0..32)
        .map(|i| Reply::text(&format!("answer {i}")).into())
        .collect();
    let m = model(turns).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.api();
    let conv = api
        .post("/api/conversations", &json!({"title": "long"}))
        .await;
    let conv = conv.body["id"].as_str().unwrap().to_owned();
    for i in 0..32 {
        let (run_id, _) = api
            .run(
                json!({"prompt": format!("question {i}"), "device": "local", "conversation": conv}),
            )
            .await;
        api.events(&run_id).await;
    }
    let c = api.get(&format!("/api/conversations/{conv}")).await;
    let msgs = c.body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 60, "at most 60 messages are kept");
    assert_eq!(msgs[0]["content"], "question 2");
    assert_eq!(msgs[59]["content"], "answer 31");
    assert_eq!(
        c.body["usage"]["calls"], 32,
        "dropped messages' tokens still count"
    );
    let last = m.requests().last().unwrap().messages().to_vec();
    let history: Vec<&Value> = last
        .iter()
        .filter(|m| m["role"] == "user" || m["role"] == "assistant")
        .collect();
    // 12 rounds of history + the new goal.
    assert_eq!(history.len(), 25, "{history:?}");
    assert_eq!(history[0]["content"], "question 19");
    assert!(
        last.iter()
            .all(|m| m.get("usage").is_none() && m.get("reasoning").is_none())
    );
}

#[tokio::test]
async fn events_replay_after_reconnect_and_after_a_restart() {
    let m = model(vec![
        Reply::tool_call("echo", json!({"text": "hello"})).into(),
        Reply::text("first run done").into(),
        Reply::text(&"slow ".repeat(200))
            .with_delay(Duration::from_millis(30))
            .into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let opts = ServeOptions::shell(&m.base_url(), dir.path());
    let serve = Serve::start(dir.path(), &opts);
    let api = serve.api();
    let (run_id, _) = api.run(json!({"prompt": "echo", "device": "local"})).await;
    let all = api.events(&run_id).await;
    let n = all.len() as u64;
    assert!(n > 5);
    // Reconnect with Last-Event-ID: the rest, nothing twice.
    let mut s = api.stream(&run_id, Some(3)).await;
    let rest = s.until_done(Duration::from_secs(10)).await;
    assert_eq!(seqs(&rest), (4..=n).collect::<Vec<_>>());
    // After done, a reconnect gets 204 (EventSource stops retrying).
    assert_eq!(api.stream(&run_id, Some(n)).await.status, 204);

    // A run cut off by a crash: restart ends it with error + done(failed).
    let (cut, cut_conv) = api.run(json!({"prompt": "slow", "device": "local"})).await;
    let mut s = api.stream(&cut, None).await;
    s.next_of("delta").await;
    drop(s);
    drop(serve); // SIGKILL: no chance to clean up
    let serve = Serve::start(dir.path(), &opts);
    let api = serve.api();
    let replay = api.events(&run_id).await;
    assert_eq!(seqs(&replay), seqs(&all));
    assert_eq!(
        replay.iter().map(|e| e.data.clone()).collect::<Vec<_>>(),
        all.iter().map(|e| e.data.clone()).collect::<Vec<_>>()
    );
    let cut_events = api.events(&cut).await;
    let k = kinds(&cut_events);
    assert_eq!(&k[k.len() - 2..], ["error", "done"], "{k:?}");
    assert_eq!(cut_events.last().unwrap().data["status"], "failed");
    assert_eq!(
        seqs(&cut_events),
        (1..=cut_events.len() as u64).collect::<Vec<_>>()
    );
    let conv = api.get(&format!("/api/conversations/{cut_conv}")).await;
    let msgs = conv.body["messages"].as_array().unwrap();
    assert_eq!(msgs.last().unwrap()["status"], "failed");
    assert_eq!(
        api.get(&format!("/api/agent/runs/{cut}")).await.body["status"],
        "failed"
    );
}

#[tokio::test]
async fn a_stalled_subscriber_slows_nothing_and_every_other_gets_everything() {
    use tokio::io::AsyncWriteExt;
    let long: String = (0..20_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let mut reply = Reply::text(&long);
    if let Reply::Stream(s) = &mut reply {
        s.chunk_chars = 1;
    }
    let m = model(vec![reply.into()]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.api();
    let (run_id, _) = api.run(json!({"prompt": "long", "device": "local"})).await;
    // A subscriber that connects and never reads.
    let addr = serve.url.trim_start_matches("http://").to_owned();
    let mut stalled = tokio::net::TcpStream::connect(&addr).await.unwrap();
    stalled
        .write_all(
            format!("GET /api/agent/stream?run_id={run_id} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {API_TOKEN}\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    let a = api.clone();
    let b = api.clone();
    let (ra, rb) = (a.events(&run_id), b.events(&run_id));
    let (ea, eb) = tokio::join!(ra, rb);
    assert_eq!(ea.len(), eb.len());
    let text: String = ea
        .iter()
        .filter(|e| e.event == "delta")
        .map(|e| e.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, long, "every delta, in order");
    assert_eq!(ea.last().unwrap().data["status"], "completed");
    assert_eq!(api.get("/api/agent/run").await.body, json!({"run": null}));
    drop(stalled);
}

#[tokio::test]
async fn conversations_can_be_renamed_and_deleted() {
    let m = model(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.login().await;
    let c = api.post("/api/conversations", &json!({})).await;
    assert_eq!(c.status, 201);
    assert_eq!(c.body["title"], "New conversation");
    let id = c.body["id"].as_str().unwrap().to_owned();
    let r = api
        .send(
            "PATCH",
            &format!("/api/conversations/{id}"),
            Some(&json!({"title": "  Renamed\nnow "})),
        )
        .await;
    assert_eq!(r.body["title"], "Renamed now");
    let r = api
        .send(
            "PATCH",
            &format!("/api/conversations/{id}"),
            Some(&json!({"title": ""})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        api.send("DELETE", &format!("/api/conversations/{id}"), None)
            .await
            .status,
        204
    );
    assert_eq!(
        api.send("DELETE", &format!("/api/conversations/{id}"), None)
            .await
            .status,
        404
    );
    assert_eq!(
        api.get(&format!("/api/conversations/{id}")).await.status,
        404
    );
}

#[tokio::test]
async fn a_run_on_a_remote_client_uses_the_same_tools_as_local() {
    let m = model(vec![
        Reply::tool_call("echo", json!({"text": "from afar"})).into(),
        Reply::text("remote done").into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let client_dir = TempDataDir::new().unwrap();
    let tools = support::tools_config(client_dir.path());
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_deft"));
    cmd.env_remove("DISPLAY")
        .env("DEFT_LOG", "warn")
        .arg("--data-dir")
        .arg(client_dir.path())
        .arg("--tools-config")
        .arg(&tools)
        .args([
            "client",
            "--server",
            &serve.url,
            "--id",
            "pc1",
            "--profile",
            "shell",
        ])
        .env("DEFT_DEVICE_TOKEN", support::DEVICE_TOKEN)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _client = deft_test_support::proc::GroupChild::spawn(cmd).unwrap();
    let api = serve.api();
    let mut listed = false;
    for _ in 0..200 {
        let d = api.get("/api/devices").await;
        if d.body.as_array().unwrap().iter().any(|d| d["id"] == "pc1") {
            listed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(listed, "the client never registered");
    let (run_id, _) = api
        .run(json!({"prompt": "echo remotely", "device": "pc1"}))
        .await;
    let events = api.events(&run_id).await;
    let step = events.iter().find(|e| e.event == "step").expect("a step");
    assert_eq!(step.data["tool"], "echo");
    assert_eq!(step.data["result"]["status"], "success", "{}", step.data);
    assert_eq!(events.last().unwrap().data["status"], "completed");
    // The model was offered the same tools as on `local`.
    let tools: Vec<String> = m.requests()[0].tool_names();
    for t in ["get_system_info", "run_shell", "echo", "sleep"] {
        assert!(tools.contains(&t.to_owned()), "{t} missing from {tools:?}");
    }
}

#[tokio::test]
async fn model_errors_are_specific() {
    let m = model(vec![
        Reply::status(401, "Incorrect API key provided").into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.api();
    let (run_id, _) = api.run(json!({"prompt": "x", "device": "local"})).await;
    let events = api.events(&run_id).await;
    let error = events
        .iter()
        .find(|e| e.event == "error")
        .expect("an error event");
    let text = error.data["message"].as_str().unwrap();
    assert!(
        text.contains("401") || text.to_lowercase().contains("api key"),
        "{text}"
    );
    assert_eq!(events.last().unwrap().data["status"], "failed");
}

#[tokio::test]
async fn a_device_without_a_screen_has_no_live_view() {
    let m = model(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.api();
    let devices = api.get("/api/devices").await;
    let local = devices
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == "local")
        .cloned()
        .unwrap();
    assert_eq!(
        (local["profile"].as_str(), local["has_screen"].as_bool()),
        (Some("shell"), Some(false))
    );
    let r = api.get("/api/devices/local/live").await;
    assert_eq!(r.status, 409);
    assert_eq!(
        r.body["error"],
        "the device 'local' has no screen to show (profile 'shell')"
    );
    let r = api.get("/api/devices/nope/live").await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn a_burst_of_runs_from_idle_hears_another_run_is_active() {
    let slow = Reply::text(&"slow answer ".repeat(30)).with_delay(Duration::from_millis(40));
    let m = model(vec![slow.into()]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let api = serve.api();
    let body = json!({"prompt": "race", "device": "local"});
    let answers =
        futures::future::join_all((0..30).map(|_| api.post("/api/agent/run", &body))).await;
    let won: Vec<_> = answers.iter().filter(|a| a.status == 202).collect();
    assert_eq!(won.len(), 1, "exactly one run starts");
    for lost in answers.iter().filter(|a| a.status != 202) {
        assert_eq!(lost.status, 409, "{}", lost.text);
        assert!(
            lost.body["error"]
                .as_str()
                .unwrap()
                .starts_with("another run is active"),
            "a loser was told something else: {}",
            lost.text
        );
    }
    // The losers left no conversation behind: only the winner's is listed.
    let list = api.get("/api/conversations").await;
    assert_eq!(list.body.as_array().unwrap().len(), 1, "{}", list.text);
}

#[tokio::test]
async fn a_parallel_burst_of_wrong_passwords_gets_only_the_allowed_tries() {
    let m = model(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let anon = Api::new(&serve.url, Auth::None);
    let guess = json!({"username": "admin", "password": "guess"});
    let answers =
        futures::future::join_all((0..30).map(|_| anon.post("/api/auth/login", &guess))).await;
    let tried = answers.iter().filter(|a| a.status == 401).count();
    let refused = answers.iter().filter(|a| a.status == 429).count();
    // Five tries a minute per address, however many arrive at once: the rest never reach the
    // password hash.
    assert_eq!(
        tried,
        5,
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );
    assert_eq!(refused, 25);
    // A right password is refused too while the address is limited.
    let right = json!({"username": "admin", "password": support::ADMIN_PASSWORD});
    assert_eq!(anon.post("/api/auth/login", &right).await.status, 429);
}

#[tokio::test]
async fn a_run_cut_off_by_kill_9_keeps_its_steps_reasoning_and_partial_answer() {
    let answer = "The machine runs Linux on two cores, and the disk is mostly free. ".repeat(8);
    let m = model(vec![
        Reply::tool_call("get_system_info", json!({}))
            .with_reasoning("I should look at the machine first.")
            .into(),
        Reply::text(&answer)
            .with_reasoning("Now I know.")
            .with_delay(Duration::from_millis(40))
            .into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let opts = ServeOptions::shell(&m.base_url(), dir.path());
    let serve = Serve::start(dir.path(), &opts);
    let api = serve.api();
    let (run_id, conversation) = api
        .run(json!({"prompt": "what machine is this?", "device": "local"}))
        .await;
    // Watch until the step is done and the answer has begun to stream.
    let mut stream = api.stream(&run_id, None).await;
    let mut after_step = 0;
    while after_step < 3 {
        let e = stream.next().await.expect("the stream goes on");
        if e.event == "step" {
            after_step = 1;
        } else if after_step > 0 && e.event == "delta" && e.data["kind"] == "content" {
            after_step += 1;
        }
    }
    // Kill it once the store holds part of the answer (what a restart can know of it).
    let store = deft_store::Store::open(dir.path(), None).await.unwrap();
    for _ in 0..500 {
        let stored = store.events(&run_id, 0).await.unwrap();
        let kinds: Vec<Value> = stored
            .iter()
            .map(|(_, json)| serde_json::from_str::<Value>(json).unwrap())
            .collect();
        let step_at = kinds.iter().position(|e| e["type"] == "step");
        if step_at.is_some_and(|at| kinds[at..].iter().any(|e| e["kind"] == "content")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(store);
    deft_test_support::proc::signal_process(
        serve.child.pid(),
        deft_test_support::proc::Signal::KILL,
    );
    drop(serve);

    let serve = Serve::start(dir.path(), &opts);
    let api = serve.api();
    let conv = api.get(&format!("/api/conversations/{conversation}")).await;
    let msgs = conv.body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    let kept = &msgs[1];
    assert_eq!(kept["status"], "failed");
    assert_eq!(kept["steps"][0]["tool"], "get_system_info", "{kept}");
    assert_eq!(kept["steps"][0]["status"], "success");
    assert!(
        kept["reasoning"]
            .as_str()
            .unwrap()
            .starts_with("I should look at the machine first."),
        "{kept}"
    );
    let content = kept["content"].as_str().unwrap();
    let (partial, note) = content
        .split_once("\n\n*")
        .expect("the partial answer, then the note");
    assert!(
        !partial.is_empty() && answer.starts_with(partial),
        "{content}"
    );
    assert!(
        note.starts_with("The server stopped during this run"),
        "{content}"
    );
    // The run's record and its replayed stream end the same way.
    let run = api.get(&format!("/api/agent/runs/{run_id}")).await;
    assert_eq!(run.body["status"], "failed");
    let events = api.events(&run_id).await;
    assert_eq!(events.last().unwrap().data["answer"], content);
}

#[tokio::test]
async fn what_a_watcher_saw_keeps_its_seq_after_a_crash_with_the_database_locked() {
    let answer =
        "Streaming while the database is locked must not show what it cannot keep. ".repeat(6);
    let m = model(vec![
        Reply::tool_call("get_system_info", json!({})).into(),
        Reply::text(&answer)
            .with_delay(Duration::from_millis(40))
            .into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let opts = ServeOptions::shell(&m.base_url(), dir.path());
    let serve = Serve::start(dir.path(), &opts);
    let api = serve.api();
    let (run_id, _) = api
        .run(json!({"prompt": "what machine is this?", "device": "local"}))
        .await;
    let mut stream = api.stream(&run_id, None).await;
    let mut seen = std::collections::BTreeMap::new();
    let mut deltas = 0;
    while deltas < 3 {
        let e = stream.next().await.expect("the stream goes on");
        if e.event == "delta" {
            deltas += 1;
        }
        seen.insert(e.id, e.data);
    }
    // Another process takes the database's write lock (as a stalled disk or a backup would).
    let mut locker = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import sqlite3, sys, time\n\
             c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)\n\
             c.execute('BEGIN EXCLUSIVE')\n\
             print('locked', flush=True)\n\
             time.sleep(120)",
        )
        .arg(dir.path().join("deft.db"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 with sqlite3");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(locker.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "locked");
    // Whatever reaches the watcher while the lock is held (the run keeps streaming).
    let _ = tokio::time::timeout(Duration::from_millis(1500), async {
        while let Some(e) = stream.next().await {
            seen.insert(e.id, e.data);
        }
    })
    .await;
    deft_test_support::proc::signal_process(
        serve.child.pid(),
        deft_test_support::proc::Signal::KILL,
    );
    drop(serve);
    let _ = locker.kill();
    let _ = locker.wait();

    let serve = Serve::start(dir.path(), &opts);
    let api = serve.api();
    let replay = api.events(&run_id).await;
    let by_seq: std::collections::BTreeMap<u64, Value> =
        replay.iter().map(|e| (e.id, e.data.clone())).collect();
    for (seq, data) in &seen {
        assert_eq!(
            by_seq.get(seq),
            Some(data),
            "seq {seq} named another event after the restart"
        );
    }
    assert_eq!(replay.last().unwrap().event, "done");
    // A page that had seen the newest seq resumes and gets the end of the run.
    let last_seen = *seen.keys().last().unwrap();
    let mut resumed = api.stream(&run_id, Some(last_seen)).await;
    let rest = resumed.until_done(Duration::from_secs(20)).await;
    assert_eq!(
        rest.last().map(|e| e.event.as_str()),
        Some("done"),
        "{rest:?}"
    );
}
