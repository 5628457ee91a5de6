//! Desktop benchmark (`cargo bench -p deft-backend-desktop`): prints p50/p90 for
//! - the first control list of a window (a fresh server session) and a repeat list, for
//!   gnome-calculator (GTK4) and mousepad (GTK3);
//! - a 1280×1024 desktop screenshot to PNG;
//! - click_input on a calculator button, effect detection included: after a pause standing for
//!   the model's turn (the listing it acted on is current), and back to back;
//! - find_controls on both windows: the first on a fresh session (the walk included) and
//!   repeats;
//! - wait_for_control on the appear app: from the moment the app shows a button (its own
//!   timestamp, after its delay), and from the frame that lays it out, to the answer in the
//!   client; and from destroying it to the answer of a `gone` wait.
//!
//! Everything goes through the MCP tools over an in-process duplex, on a private managed desktop.

// A benchmark's output is its figures: it prints them (the workspace denies printing elsewhere).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::{Duration, Instant, SystemTime};

use deft_backend_desktop::vdesktop;
use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy};
use deft_test_support::desktop::AppProcess;
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
    if samples.is_empty() {
        println!("{what:44} no samples");
        return;
    }
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
    for (app, selector) in [
        (
            "gnome-calculator",
            json!({"text": "7", "type": "button", "match": "exact"}),
        ),
        ("mousepad", json!({"text": "Serch", "match": "fuzzy"})),
    ] {
        find_figures(&target, app, &selector).await;
    }
    drop(setup);
    wait_figures(&target, &state.env()).await;
    vdesktop::stop(&state_file).expect("stop");
}

/// find_controls on `app`'s window: the first call of a fresh session (it walks the window)
/// and repeats (the cached walk).
async fn find_figures(target: &DesktopTarget, app: &str, selector: &Value) {
    const N: usize = 15;
    let mut first = Vec::new();
    let mut repeat = Vec::new();
    let mut header = String::new();
    for _ in 0..N {
        let c = client(target).await;
        select(&c, app).await;
        let args = json!({"selector": selector});
        let t = Instant::now();
        let r = call(&c, "find_controls", args.clone()).await;
        first.push(t.elapsed());
        header = listing_text(&r)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        for _ in 0..3 {
            let t = Instant::now();
            call(&c, "find_controls", args.clone()).await;
            repeat.push(t.elapsed());
        }
    }
    let matches = header
        .split(' ')
        .find(|w| w.starts_with("matches="))
        .unwrap_or("matches=?");
    report(
        &format!("{app}: first find_controls ({matches})"),
        first,
        250.0,
    );
    report(&format!("{app}: repeat find_controls"), repeat, 50.0);
}

/// Seconds since the epoch now (the appear app stamps its records with the same clock).
fn wall_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs_f64()
}

/// The `t` of the `n`-th record of `event` the app printed.
fn stamp(app: &AppProcess, event: &str, n: usize) -> f64 {
    let rec = app
        .wait_record(Duration::from_secs(10), |_| {
            app.records().iter().filter(|r| r["event"] == event).count() > n
        })
        .and_then(|_| {
            app.records()
                .into_iter()
                .filter(|r| r["event"] == event)
                .nth(n)
        })
        .unwrap_or_else(|| panic!("no {event} #{n}: {:?}", app.lines()));
    rec["t"].as_f64().expect("a time stamp")
}

/// wait_for_control latency on the appear app: a click starts the app's delay (800 ms, so the
/// click's own effect detection is over first), the wait is called at once, and the figure is
/// the time from the app showing (or destroying) the button to the answer reaching the client.
async fn wait_figures(target: &DesktopTarget, env: &[(String, String)]) {
    const N: usize = 15;
    let app = AppProcess::appear_app(env, 800).expect("appear app");
    assert!(
        app.wait_record(Duration::from_secs(10), |r| r["event"] == "ready")
            .is_some()
    );
    let c = client(target).await;
    select(&c, "appear_app.py").await;
    let id_of = async |name: &str| -> String {
        let r = call(
            &c,
            "find_controls",
            json!({"selector": {"text": name, "match": "exact"}, "format": "json"}),
        )
        .await;
        r.structured_content.unwrap_or_default()["chosen"]
            .as_str()
            .expect("found")
            .to_owned()
    };
    let show = id_of("Show later").await;
    let hide = id_of("Hide later").await;
    let sel = json!({"text": "Details ready", "match": "exact", "type": "button"});
    let (mut appear, mut laid, mut gone, mut early) = (Vec::new(), Vec::new(), Vec::new(), 0);
    for n in 0..N {
        for (button, name, event, gone_too, out) in [
            (&show, "Show later", "shown", false, &mut appear),
            (&hide, "Hide later", "hidden", true, &mut gone),
        ] {
            call(&c, "click_input", json!({"id": button, "name": name})).await;
            let asked = wall_now();
            call(
                &c,
                "wait_for_control",
                json!({"selector": sel, "timeout_s": 10, "gone": gone_too}),
            )
            .await;
            let answered = wall_now();
            let at = stamp(&app, event, n);
            if at < asked {
                // The app was faster than the click's own effect detection: no wait to time.
                early += 1;
                continue;
            }
            out.push(Duration::from_secs_f64(answered - at));
            if !gone_too {
                // From the frame that lays the button out: on screen, as a person sees it.
                let laid_out = stamp(&app, "laid_out", n);
                laid.push(Duration::from_secs_f64((answered - laid_out).max(0.0)));
            }
        }
    }
    report(
        &format!("wait_for_control: button shown → answer ({early} early)"),
        appear,
        30.0,
    );
    report("wait_for_control: button laid out → answer", laid, 30.0);
    report(
        "wait_for_control gone: button destroyed → answer",
        gone,
        30.0,
    );
}
