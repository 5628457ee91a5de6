//! The desktop server behind deft's tool layer with the shipped routing table: HostAgent selects
//! a window, AppAgent (another Computer of the same device session) acts on it — one shared
//! server instance, Results with call_ids, images as data URIs.

use std::sync::Arc;
use std::time::Duration;

use deft_backend_desktop::vdesktop;
use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy};
use deft_protocol::{Command, CommandResult, ResultStatus};
use deft_test_support::desktop::AppProcess;
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Dispatcher, ExecContext, LocalDispatcher};
use serde_json::json;

async fn run(
    d: &LocalDispatcher,
    agent: &str,
    root: &str,
    commands: Vec<Command>,
) -> Vec<CommandResult> {
    let mut ctx = ExecContext::new("local", "desktop");
    ctx.agent = agent.to_owned();
    ctx.root = root.to_owned();
    d.execute(&ctx, commands).await
}

// The whole host → app hand-off through the real tool layer: long because it is one story.
#[allow(clippy::too_many_lines)]
#[tokio::test(flavor = "multi_thread")]
async fn host_agent_selects_and_app_agent_acts_through_the_routing_table() {
    let tmp = tempfile::tempdir().unwrap();
    let state_file = vdesktop::state_path(tmp.path());
    let (state, _) = vdesktop::start(&state_file, &tmp.path().join(vdesktop::WORK_DIR))
        .await
        .expect("managed desktop");
    let app = AppProcess::form_app(&state.env()).expect("form app");
    assert!(
        app.wait_record(Duration::from_secs(10), |r| r["event"] == "ready")
            .is_some()
    );

    let target = DesktopTarget::from_state(&state);
    let mut registry = BuiltinRegistry::new();
    registry.register(Builtin::new("desktop", "desktop", move |_options| {
        Ok(DesktopServer::new(target.clone(), LaunchPolicy::default()))
    }));
    registry.register(Builtin::new(
        "shell",
        "shell",
        |_options| Ok(shell_server()),
    ));
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(registry));

    // The form app's window may take a moment to reach the accessibility registry.
    let mut window = None;
    for _ in 0..100 {
        let r = run(
            &d,
            "HostAgent",
            "",
            vec![Command::new("get_desktop_app_info", None, json!({})).with_call_id("w")],
        )
        .await;
        assert_eq!(r[0].call_id, "w");
        assert_eq!(r[0].status, ResultStatus::Success, "{:?}", r[0]);
        if let Some(w) = r[0].result["windows"]
            .as_array()
            .and_then(|ws| ws.iter().find(|w| w["app"] == "form_app.py"))
        {
            window = Some(w.clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let window = window.expect("the form app's window is listed");
    let r = run(
        &d,
        "HostAgent",
        "",
        vec![
            Command::new(
                "select_application_window",
                None,
                json!({"id": window["id"], "name": window["name"]}),
            )
            .with_call_id("s"),
        ],
    )
    .await;
    assert_eq!(r[0].status, ResultStatus::Success, "{:?}", r[0]);
    assert_eq!(r[0].result["root_name"], "form_app.py");
    assert_eq!(r[0].namespace.as_deref(), Some("desktop"));

    // AppAgent: a different Computer, the same server instance (the selection holds).
    let r = run(
        &d,
        "AppAgent",
        "form_app.py",
        vec![
            Command::new("get_app_window_controls_info", None, json!({})).with_call_id("l"),
            Command::new("capture_window_screenshot", None, json!({})).with_call_id("p"),
            Command::new(
                "find_controls",
                None,
                json!({"selector": {"text": "Submit", "type": "button"}}),
            )
            .with_call_id("f"),
            Command::new(
                "wait_for_control",
                None,
                json!({"selector": {"text": "Submit", "match": "exact"}, "timeout_s": 5}),
            )
            .with_call_id("wf"),
        ],
    )
    .await;
    assert_eq!(r[0].status, ResultStatus::Success, "{:?}", r[0]);
    // The matcher's tools are the AppAgent's data collection, on the same server instance.
    assert_eq!(r[2].status, ResultStatus::Success, "{:?}", r[2]);
    let found = r[2].result.as_str().expect("the compact answer is text");
    assert!(found.contains(" matches=1 chosen="), "{found}");
    assert_eq!(r[3].status, ResultStatus::Success, "{:?}", r[3]);
    assert_eq!(r[3].result["appeared"], true, "{:?}", r[3]);
    assert_eq!(r[3].result["control"]["name"], "Submit", "{:?}", r[3]);
    let listing = r[0]
        .result
        .as_str()
        .expect("the compact listing is text")
        .to_owned();
    assert!(listing.contains("button \"Submit\""), "{listing}");
    assert_eq!(r[1].status, ResultStatus::Success, "{:?}", r[1]);
    assert!(r[1].images[0].starts_with("data:image/png;base64,"));
    let submit = listing
        .lines()
        .find(|l| l.contains("button \"Submit\""))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_owned();
    let r = run(
        &d,
        "AppAgent",
        "form_app.py",
        vec![
            Command::new("click_input", None, json!({"id": submit, "name": "Submit"}))
                .with_call_id("c"),
            Command::new("click_input", None, json!({"id": "4242", "name": "x"}))
                .with_call_id("bad"),
            Command::new("summary", None, json!({"text": "never runs"})).with_call_id("skip"),
        ],
    )
    .await;
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].status, ResultStatus::Success, "{:?}", r[0]);
    assert_eq!(r[0].result["effect"], "changed");
    assert_eq!(r[1].status, ResultStatus::Failure);
    assert!(
        r[1].error
            .as_deref()
            .unwrap_or_default()
            .starts_with("Control id 4242 is not in the control list of the selected window."),
        "{:?}",
        r[1]
    );
    assert_eq!(r[2].status, ResultStatus::Skipped);
    assert!(
        app.wait_record(Duration::from_secs(10), |r| r["event"] == "submit"
            && r["via"] == "pointer")
            .is_some(),
        "{:?}",
        app.lines()
    );
    drop(app);
    vdesktop::stop(&state_file).unwrap();
}

/// The real shell server, which the shipped table routes beside the desktop.
fn shell_server() -> deft_backend_shell::ShellServer {
    deft_backend_shell::ShellServer::new(deft_backend_shell::ShellPolicy::default())
}
