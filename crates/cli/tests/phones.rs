//! Phones in `deft serve`: the real adb server (a private one, on the harness's port) with
//! simulated phones connected; `deft serve` follows its device list into the console's devices —
//! a ready phone with its model and Android version, an unauthorized one with what to do, a phone
//! unplugged leaves (and tells the notifications once until someone reads it) — and a chat run with the scripted model drives a phone through the routed
//! Android tools while its live view shows frames.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::time::{Duration, Instant};

use deft_test_support::TempDataDir;
use deft_test_support::adb_double::{AdbDouble, AdbHarness, DoubleConfig};
use deft_test_support::model::{Reply, ScriptedModel};
use serde_json::{Value, json};
use support::{Api, Serve, ServeOptions, mjpeg_frames};

/// `deft serve` following the phones of `harness`'s adb server.
fn serve_with_phones(dir: &std::path::Path, model_url: &str, harness: &AdbHarness) -> Serve {
    let mut opts = ServeOptions::shell(model_url, dir);
    // The built-in routing table: it has the phones' `android` profile.
    opts.tools = None;
    opts.env = vec![
        ("DEFT_NO_PHONES".into(), "false".into()),
        ("ANDROID_ADB_SERVER_PORT".into(), harness.port().to_string()),
    ];
    Serve::start(dir, &opts)
}

/// The devices, once `ready` holds for them (the tracker reports within a moment).
async fn devices_until(api: &Api, what: &str, ready: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let t0 = Instant::now();
    loop {
        let r = api.get("/api/devices").await;
        assert_eq!(r.status, 200, "{}", r.text);
        let list = r.body.as_array().cloned().unwrap_or_default();
        if ready(&list) {
            return list;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{what} never happened: {list:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn phone<'a>(list: &'a [Value], serial: &str) -> Option<&'a Value> {
    list.iter().find(|d| d["id"] == serial)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn phones_come_and_go_with_their_state_and_a_chat_drives_one() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let unauthorized = AdbDouble::start(DoubleConfig {
        unauthorized: true,
        ..DoubleConfig::default()
    });
    let (ready, waiting) = (harness.double(0).serial(), unauthorized.serial());
    // `connect` waits for a CNXN that never comes; the server lists the phone meanwhile.
    let connecting = tokio::spawn({
        let (client, serial) = (harness.client(), waiting.clone());
        async move { client.connect(&serial).await }
    });
    let m = ScriptedModel::start(vec![
        Reply::tool_call("launch_app", json!({"app": "Calculator"})).into(),
        Reply::text("The calculator is open.").into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let serve = serve_with_phones(dir.path(), &m.base_url(), &harness);
    let api = serve.login().await;
    let list = devices_until(&api, "both phones listed", |l| {
        phone(l, &ready).is_some_and(|p| p["label"].is_string())
            && phone(l, &waiting).is_some_and(|p| p["state"] == "unauthorized")
    })
    .await;
    let p = phone(&list, &ready).unwrap();
    assert_eq!(p["kind"], "phone");
    assert_eq!(p["profile"], "android");
    assert_eq!(p["state"], "device");
    assert_eq!(p["has_screen"], true);
    let label = p["label"].as_str().unwrap();
    assert!(label.ends_with(" · Android 14"), "{label}");
    let w = phone(&list, &waiting).unwrap();
    let advice = deft_adb::parse_devices_l(&format!("{waiting} unauthorized\n"))[0]
        .state_advice()
        .unwrap();
    assert_eq!(w["note"], advice);
    assert_eq!(w["has_screen"], false);

    // A chat on the ready phone: the model opens the calculator through the routed tools.
    let (run_id, _) = api
        .run(json!({"prompt": "open the calculator", "device": ready}))
        .await;
    let events = api.events(&run_id).await;
    let done = &events.last().unwrap().data;
    assert_eq!(done["status"], "completed", "{events:#?}");
    let step = events.iter().find(|e| e.event == "step").unwrap();
    assert_eq!(step.data["tool"], "launch_app");
    assert_eq!(harness.double(0).foreground(), "com.android.calculator2");
    // Its live view: JPEG frames of the phone's screen (screencap, downscaled).
    let frames = mjpeg_frames(&format!("{}/api/devices/{ready}/live", serve.url), 2).await;
    for f in &frames {
        assert_eq!(&f[..2], &[0xFF, 0xD8], "a JPEG");
    }
    // The unauthorized phone cannot be picked.
    let refused = api
        .post(
            "/api/agent/run",
            &json!({"prompt": "hi", "device": waiting}),
        )
        .await;
    assert_eq!(refused.status, 404, "{}", refused.text);

    // A task holding the phone: a chat on it is refused with what holds it.
    let task = api
        .post(
            "/api/tasks",
            &json!({"name": "hold the phone", "device": ready, "steps": [
                {"type": "open_app", "app": "Settings"},
                {"type": "wait", "seconds": 300},
            ]}),
        )
        .await;
    assert_eq!(task.status, 201, "{}", task.text);
    let task_id = task.body["id"].as_str().unwrap().to_owned();
    let started = api
        .post(&format!("/api/tasks/{task_id}/run"), &json!({}))
        .await;
    assert_eq!(started.status, 202, "{}", started.text);
    let run = started.body["id"].as_str().unwrap().to_owned();
    let busy = api
        .post("/api/agent/run", &json!({"prompt": "hi", "device": ready}))
        .await;
    assert_eq!(busy.status, 409, "{}", busy.text);
    assert!(
        busy.text.contains("hold the phone"),
        "the refusal names the task: {}",
        busy.text
    );
    let stopped = api
        .post(&format!("/api/task-runs/{run}/stop"), &json!({}))
        .await;
    assert!(stopped.status < 300, "{}", stopped.text);

    // Unplugged (the adb server forgets it): it leaves the list.
    harness.adb_ok(&["disconnect", &ready]);
    devices_until(&api, "the phone leaving", |l| phone(l, &ready).is_none()).await;
    connecting.abort();
}

/// The `device_offline` notifications about `serial`, once `ready` holds for them.
async fn offline_notices_until(
    api: &Api,
    serial: &str,
    ready: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let t0 = Instant::now();
    loop {
        let r = api.get("/api/notifications?limit=200").await;
        assert_eq!(r.status, 200, "{}", r.text);
        let about: Vec<Value> = r.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["kind"] == "device_offline" && n["device"] == serial)
            .cloned()
            .collect();
        if ready(&about) {
            return about;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "never happened: {about:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Plugs `serial` in again and waits until it is a ready device.
async fn plug_in(api: &Api, harness: &AdbHarness, serial: &str) {
    harness.adb_ok(&["connect", serial]);
    devices_until(api, "the phone back", |l| {
        phone(l, serial).is_some_and(|p| p["state"] == "device")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ready_phone_that_leaves_notifies_once_until_someone_reads_it() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let serial = harness.double(0).serial();
    let m = ScriptedModel::start(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = serve_with_phones(dir.path(), &m.base_url(), &harness);
    let api = serve.login().await;
    devices_until(&api, "the phone ready", |l| {
        phone(l, &serial).is_some_and(|p| p["state"] == "device")
    })
    .await;

    // Unplugged: one warning, saying why.
    harness.adb_ok(&["disconnect", &serial]);
    let first = offline_notices_until(&api, &serial, |n| !n.is_empty()).await;
    assert_eq!(first.len(), 1, "{first:#?}");
    assert_eq!(
        (&first[0]["level"], &first[0]["title"], &first[0]["body"]),
        (
            &json!("warning"),
            &json!(format!("Device \"{serial}\" went offline")),
            &json!(
                "adb no longer lists it: unplugged, switched off or out of reach; plug it in again to use it"
            )
        )
    );

    // Back and away again while nobody has read it: no second one.
    plug_in(&api, &harness, &serial).await;
    harness.adb_ok(&["disconnect", &serial]);
    devices_until(&api, "the phone leaving again", |l| {
        phone(l, &serial).is_none()
    })
    .await;
    // Read, it is old news: the next time it leaves is news again.
    let id = first[0]["id"].as_str().unwrap();
    let r = api
        .post(&format!("/api/notifications/{id}/read"), &json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        offline_notices_until(&api, &serial, |_| true).await.len(),
        1,
        "the second leave while unread sent nothing"
    );
    plug_in(&api, &harness, &serial).await;
    harness.adb_ok(&["disconnect", &serial]);
    let both = offline_notices_until(&api, &serial, |n| n.len() > 1).await;
    assert_eq!(both.len(), 2, "{both:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_offers_the_phones_of_its_machine_and_lets_go_of_one_unplugged() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone(), DoubleConfig::phone()]);
    let (first, second) = (harness.double(0).serial(), harness.double(1).serial());
    let m = ScriptedModel::start(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    // The server follows no phones of its own: these hang off the client's machine.
    let serve = Serve::start(dir.path(), &ServeOptions::shell(&m.base_url(), dir.path()));
    let client_dir = TempDataDir::new().unwrap();
    let mut cmd = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"));
    cmd.arg("--data-dir")
        .arg(client_dir.path())
        .args([
            "client",
            "--server",
            &serve.url,
            "--id",
            "rack1",
            "--profile",
            "shell",
            "--phones",
        ])
        .env("DEFT_DEVICE_TOKEN", support::DEVICE_TOKEN)
        .env("ANDROID_ADB_SERVER_PORT", harness.port().to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _client = deft_test_support::proc::GroupChild::spawn(cmd).unwrap();
    let api = serve.api();
    let list = devices_until(&api, "the rack and both phones", |l| {
        ["rack1", first.as_str(), second.as_str()]
            .iter()
            .all(|id| phone(l, id).is_some())
    })
    .await;
    let p = phone(&list, &first).unwrap();
    assert_eq!(p["kind"], "remote");
    assert_eq!(p["profile"], "android");
    assert!(
        p["label"]
            .as_str()
            .is_some_and(|l| l.ends_with(" · Android 14")),
        "{p}"
    );
    // Both phones at once, each through its own connection and tool server.
    let batch = |app: &str| json!({"commands": [{"tool_name": "launch_app", "tool_type": "action", "parameters": {"app": app}}]});
    let (path_a, path_b) = (
        format!("/api/devices/{first}/exec"),
        format!("/api/devices/{second}/exec"),
    );
    let (body_a, body_b) = (batch("Calculator"), batch("Settings"));
    let (a, b) = tokio::join!(api.post(&path_a, &body_a), api.post(&path_b, &body_b));
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(b.status, 200, "{}", b.text);
    assert_eq!(harness.double(0).foreground(), "com.android.calculator2");
    assert_eq!(harness.double(1).foreground(), "com.android.settings");
    harness.adb_ok(&["disconnect", &second]);
    devices_until(&api, "the unplugged phone leaving", |l| {
        phone(l, &second).is_none() && phone(l, &first).is_some()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_adb_server_dies_phones_are_listed_offline_and_come_back_with_it() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let serial = harness.double(0).serial();
    let m = ScriptedModel::start(vec![]).await;
    let dir = TempDataDir::new().unwrap();
    let serve = serve_with_phones(dir.path(), &m.base_url(), &harness);
    let api = serve.login().await;
    devices_until(&api, "the phone ready", |l| {
        phone(l, &serial).is_some_and(|p| p["state"] == "device")
    })
    .await;
    harness.adb_ok(&["kill-server"]);
    let list = devices_until(&api, "the phone offline", |l| {
        phone(l, &serial).is_some_and(|p| p["state"] == "offline")
    })
    .await;
    let p = phone(&list, &serial).unwrap();
    assert!(
        p["note"].as_str().is_some_and(|n| n.contains("adb server")),
        "the note says why: {p}"
    );
    assert_eq!(p["has_screen"], false, "not usable while offline");
    // The server is back (deft starts it again, or someone does) and the phone reconnects.
    harness.adb_ok(&["connect", &serial]);
    devices_until(&api, "the phone back", |l| {
        phone(l, &serial).is_some_and(|p| p["state"] == "device" && p["has_screen"] == true)
    })
    .await;
}
