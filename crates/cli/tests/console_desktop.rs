//! The console on a fresh headless machine: `deft serve` with no display starts the managed
//! virtual desktop, `local` gets the desktop tools, the live view streams real JPEG frames of
//! it, a run's screenshot step is served as an image, and stopping the server leaves no desktop
//! process behind.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::time::Duration;

use deft_test_support::TempDataDir;
use deft_test_support::model::{Reply, ScriptedModel};
use deft_test_support::proc::{Signal, signal_process, wait_group_gone};
use serde_json::json;
use support::{API_TOKEN, Serve, ServeOptions, mjpeg_frames};

/// `deft serve` on `dir` with the managed desktop (no display), its model at `model_url`; and
/// the desktop's process group.
fn serve_with_desktop(dir: &TempDataDir, model_url: &str) -> (Serve, i32) {
    let mut opts = ServeOptions::shell(model_url, dir.path());
    opts.tools = None;
    opts.desktop = true;
    let serve = Serve::start(dir.path(), &opts);
    let state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("desktop.json")).expect("the managed desktop's state"),
    )
    .unwrap();
    let pgid = state["pgid"].as_i64().unwrap() as i32;
    (serve, pgid)
}

/// Asserts that the desktop's processes are gone and then its state file (whoever stops it
/// removes the file after the processes).
async fn assert_desktop_gone(dir: &TempDataDir, pgid: i32) {
    assert!(
        wait_group_gone(pgid, Duration::from_secs(15)),
        "desktop processes left behind"
    );
    let state_file = dir.path().join("desktop.json");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while state_file.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!state_file.exists(), "the state file was left behind");
}

#[tokio::test]
async fn a_headless_server_starts_its_desktop_shows_it_live_and_cleans_up() {
    let m = ScriptedModel::start(vec![
        Reply::tool_call("capture_desktop_screenshot", json!({})).into(),
        Reply::text("I see the desktop.").into(),
        Reply::text(&"still typing ".repeat(100))
            .with_delay(Duration::from_millis(100))
            .into(),
    ])
    .await;
    let dir = TempDataDir::new().unwrap();
    let (serve, pgid) = serve_with_desktop(&dir, &m.base_url());
    assert!(
        serve.printed().contains("started the managed desktop") || {
            tokio::time::sleep(Duration::from_millis(300)).await;
            serve.printed().contains("started the managed desktop")
        },
        "{}",
        serve.printed()
    );
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
    assert_eq!(local["profile"], "desktop");
    assert_eq!(local["has_screen"], true);

    // The live view: real JPEG frames of the managed desktop.
    let frames = mjpeg_frames(&format!("{}/api/devices/local/live", serve.url), 2).await;
    for f in &frames {
        assert_eq!(&f[..2], &[0xFF, 0xD8], "a JPEG");
        assert!(f.len() > 500);
    }

    // A run whose step returns a screenshot: the card's image is served by id.
    let (run_id, _) = api
        .run(json!({"prompt": "look at the screen", "device": "local"}))
        .await;
    let events = api.events(&run_id).await;
    let step = events.iter().find(|e| e.event == "step").expect("a step");
    assert_eq!(step.data["result"]["status"], "success", "{}", step.data);
    let image = step.data["image_ids"][0].as_str().expect("an image id");
    let img = reqwest::Client::new()
        .get(format!("{}/api/runs/{run_id}/images/{image}", serve.url))
        .bearer_auth(API_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(img.status(), 200);
    assert_eq!(img.headers()["content-type"], "image/png");
    let bytes = img.bytes().await.unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(
        !step.data.to_string().contains("base64"),
        "events carry no bytes"
    );
    let missing = api.get(&format!("/api/runs/{run_id}/images/img-999")).await;
    assert_eq!(missing.status, 404);
    let traversal = api
        .get(&format!("/api/runs/{run_id}/images/..%2Fdeft.db"))
        .await;
    assert_eq!(traversal.status, 404);

    // Ctrl-C with a run going, its stream and a live view open: the run is stopped (its watcher
    // sees `done`), the streams end, the server stops its desktop, and nothing of it is left.
    let (slow, _) = api
        .run(json!({"prompt": "talk slowly", "device": "local"}))
        .await;
    let mut watcher = api.stream(&slow, None).await;
    watcher.next_of("delta").await;
    let live = reqwest::Client::new()
        .get(format!("{}/api/devices/local/live", serve.url))
        .bearer_auth(API_TOKEN)
        .send()
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let stopper = std::thread::spawn(move || serve.interrupt());
    let done = watcher.next_of("done").await;
    assert_eq!(done.data["status"], "stopped");
    let status = stopper.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    drop(live);
    assert!(status.success(), "{status:?}");
    assert_desktop_gone(&dir, pgid).await;
}

#[tokio::test]
async fn sigterm_stops_a_headless_server_and_its_desktop() {
    let dir = TempDataDir::new().unwrap();
    let (serve, pgid) = serve_with_desktop(&dir, "http://127.0.0.1:9/v1");
    // As `kill`, systemd, `docker stop` or `timeout` stop it.
    let status = tokio::task::spawn_blocking(move || serve.stop_with(Signal::TERM))
        .await
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert_desktop_gone(&dir, pgid).await;
}

#[tokio::test]
async fn a_killed_server_leaves_no_desktop_behind() {
    let dir = TempDataDir::new().unwrap();
    let (serve, pgid) = serve_with_desktop(&dir, "http://127.0.0.1:9/v1");
    // SIGKILL (the OOM killer, `kill -9`): no handler runs; the watchdog stops the desktop.
    signal_process(serve.child.pid(), Signal::KILL);
    drop(serve);
    assert_desktop_gone(&dir, pgid).await;
}
