//! Desktop benchmark (`cargo bench -p deft-backend-desktop`): prints p50/p90 for
//! - the first control list of a window (a fresh server session) and a repeat list, for
//!   gnome-calculator (GTK4) and mousepad (GTK3);
//! - a 1280×1024 desktop screenshot to PNG;
//! - click_input on a calculator button, effect detection included: after a pause standing for
//!   the model's turn (the listing it acted on is current), and back to back.
//!
//! Everything goes through the MCP tools over an in-process duplex, on a private managed desktop.

// A benchmark's output is its figures: it prints them (the workspace denies printing elsewhere).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::{Duration, Instant};

use deft_backend_desktop::vdesktop;
use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

async fn client(target: &DesktopTarget) -> Client {
    let server = DesktopServer::new(target.clone(), LaunchPolicy::default());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("client")
}

async fn call(c: &Client, tool: &str, args: Value) -> CallToolResult {
    let mut p = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(m) = args {
        p = p.with_arguments(m);
    }
    let r = c.call_tool(p).await.expect("call");
    assert_ne!(r.is_error, Some(true), "{tool}: {r:?}");
    r
}

async fn select(c: &Client, app: &str) {
    for _ in 0..200 {
        let r = call(c, "get_desktop_app_info", json!({})).await;
        let s = r.structured_content.unwrap_or_default();
        if let Some(w) = s["windows"]
            .as_array()
            .and_then(|ws| ws.iter().find(|w| w["app"] == app))
        {
            call(
                c,
                "select_application_window",
                json!({"id": w["id"], "name": w["name"]}),
            )
            .await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no window of {app}");
}

fn report(what: &str, mut samples: Vec<Duration>, target_ms: f64) {
    samples.sort();
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what:44} p50 {:8.2} ms   p90 {:8.2} ms   (n={}, target ≤ {target_ms} ms)",
        ms(p(0.5)),
        ms(p(0.9)),
        samples.len()
    );
}

fn listing_text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state_file = vdesktop::state_path(tmp.path());
    let (state, _) = vdesktop::start(&state_file, &tmp.path().join(vdesktop::WORK_DIR))
        .await
        .expect("managed desktop");
    let target = DesktopTarget::from_state(&state);
    let setup = client(&target).await;
    call(&setup, "launch_app", json!({"app": "gnome-calculator"})).await;
    call(&setup, "launch_app", json!({"app": "mousepad"})).await;
    const N: usize = 15;

    for app in ["gnome-calculator", "mousepad"] {
        let mut first = Vec::new();
        let mut repeat = Vec::new();
        let mut lines = 0;
        for _ in 0..N {
            let c = client(&target).await;
            select(&c, app).await;
            let t = Instant::now();
            let r = call(&c, "get_app_window_controls_info", json!({})).await;
            first.push(t.elapsed());
            lines = listing_text(&r).lines().count();
            for _ in 0..3 {
                let t = Instant::now();
                call(&c, "get_app_window_controls_info", json!({})).await;
                repeat.push(t.elapsed());
            }
        }
        report(
            &format!("{app}: first control list ({lines} lines)"),
            first,
            250.0,
        );
        report(&format!("{app}: repeat control list"), repeat, 50.0);
    }

    let mut shots = Vec::new();
    for _ in 0..N {
        let t = Instant::now();
        call(&setup, "capture_desktop_screenshot", json!({})).await;
        shots.push(t.elapsed());
    }
    report("1280x1024 desktop screenshot to PNG", shots, 60.0);

    select(&setup, "gnome-calculator").await;
    let listing = listing_text(&call(&setup, "get_app_window_controls_info", json!({})).await);
    let one = listing
        .lines()
        .find(|l| l.ends_with("button \"1\"") || l.contains(" button \"1\""))
        .and_then(|l| l.split(' ').next())
        .expect("button 1")
        .to_owned();
    // As an agent clicks: after the model's turn (here 300 ms), when the listing it acted on
    // is current; and back to back, while the previous click's refresh may still run.
    for (label, pause) in [
        ("after the model's turn", Duration::from_millis(300)),
        ("back to back", Duration::ZERO),
    ] {
        let mut clicks = Vec::new();
        let mut changed = 0;
        for _ in 0..N {
            tokio::time::sleep(pause).await;
            let t = Instant::now();
            let r = call(&setup, "click_input", json!({"id": one, "name": "1"})).await;
            clicks.push(t.elapsed());
            if r.structured_content.unwrap_or_default()["effect"] == "changed" {
                changed += 1;
            }
        }
        report(
            &format!("click_input with effect, {label} ({changed}/{N} changed)"),
            clicks,
            100.0,
        );
    }
    drop(setup);
    vdesktop::stop(&state_file).expect("stop");
}
