//! The walk cache brought up to date from AT-SPI events on a real GTK app (the appear app): when
//! a button appears after a click and goes again, `wait_for_control` answers from looks that
//! read only what changed (the window's child list, the new button) instead of walking the
//! window again, and the listing they give is exactly the one a new walk of the window gives —
//! controls, names, values, reading order and depth.

mod common;

use std::time::Duration;

use common::{Harness, text_of};
use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy};
use deft_test_support::desktop::AppProcess;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

const T: Duration = Duration::from_secs(10);

/// A listing's control lines without ids, new markers and footers: what two sessions (whose
/// ids differ) must agree on.
fn without_ids(listing: &str) -> Vec<String> {
    listing
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('…'))
        .map(|l| {
            let l = l.trim_start_matches('*');
            let indent = l.len() - l.trim_start().len();
            let rest = l.trim_start().split_once(' ').map_or("", |(_, r)| r);
            format!("{}{rest}", " ".repeat(indent))
        })
        .collect()
}

/// Calls `tool` on `client`; its text, which must not be an error.
async fn call_text(client: &Client, tool: &str, args: Value) -> (String, Value) {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let r = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .expect("the call answers");
    assert_ne!(r.is_error, Some(true), "{tool}: {}", text_of(&r));
    (text_of(&r), r.structured_content.unwrap_or(Value::Null))
}

/// The listing of the appear app as a new session (another server on the same desktop) walks
/// it.
async fn fresh_listing(h: &Harness) -> Vec<String> {
    let server = DesktopServer::new(DesktopTarget::from_state(&h.state), LaunchPolicy::default());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let s = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = s.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client: Client = ().serve(client_io).await.expect("client connects");
    let (_, windows) = call_text(&client, "get_desktop_app_info", json!({})).await;
    let window = windows["windows"]
        .as_array()
        .and_then(|ws| ws.iter().find(|w| w["app"] == "appear_app.py"))
        .expect("the appear app's window")
        .clone();
    call_text(
        &client,
        "select_application_window",
        json!({"id": window["id"], "name": window["name"]}),
    )
    .await;
    let (walked, _) = server.looks();
    let (listing, _) = call_text(&client, "get_app_window_controls_info", json!({})).await;
    assert_eq!(
        server.looks().0,
        walked + 1,
        "a new session walks the window"
    );
    let _ = client.cancel().await;
    without_ids(&listing)
}

async fn click(h: &Harness, name: &str) {
    let listing = h.listing(json!({})).await;
    let id = common::find_id(&listing, "button", name).expect("the button");
    h.ok("click_input", json!({"id": id, "name": name})).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_button_that_appears_and_goes_patches_the_walk_to_what_a_new_walk_lists() {
    let h = Harness::new().await;
    // Long enough for the click's own look at its effect to be over first.
    let app = AppProcess::appear_app(&h.env(), 800).expect("appear app starts");
    assert!(app.wait_record(T, |r| r["event"] == "ready").is_some());
    h.select_app("appear_app.py").await;
    let before = without_ids(&h.listing(json!({})).await);
    assert!(!before.iter().any(|l| l.contains("Details ready")));

    let sel = json!({"text": "Details ready", "match": "exact", "type": "button"});
    for (button, gone) in [("Show later", false), ("Hide later", true)] {
        click(&h, button).await;
        let (walked, patched) = h.server.looks();
        let answer = h
            .ok(
                "wait_for_control",
                json!({"selector": sel, "timeout_s": 10, "gone": gone}),
            )
            .await;
        assert_eq!(
            answer[if gone { "gone" } else { "appeared" }],
            true,
            "{answer}"
        );
        let listing = without_ids(&h.listing(json!({})).await);
        let (walked_now, patched_now) = h.server.looks();
        assert!(
            walked_now == walked && patched_now > patched,
            "{button}: the wait's looks read only what changed, no walk: {:?} → {:?}",
            (walked, patched),
            (walked_now, patched_now)
        );
        assert_eq!(
            listing,
            fresh_listing(&h).await,
            "{button}: the patched walk lists what a new walk does"
        );
        let shows = listing
            .iter()
            .any(|l| l.contains("button \"Details ready\""));
        assert_eq!(shows, !gone, "{listing:#?}");
    }
    drop(app);
}
