//! The browser server behind the tool layer, routed by the compiled-in table's `browser`
//! profile: HostAgent picks and opens tabs, AppAgent operates the page, and both Computers of
//! the device session share one browser (one id space).

mod common;

use std::sync::Arc;

use deft_protocol::{Command, CommandResult, ResultStatus, ToolInfo, ToolType};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Dispatcher, ExecContext, LocalDispatcher};
use serde_json::{Value, json};

fn registry() -> Arc<BuiltinRegistry> {
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new(deft_backend_shell::NAME, "shell", |o| {
        deft_backend_shell::ShellPolicy::from_options(o).map(deft_backend_shell::ShellServer::new)
    }));
    r.register(Builtin::new(deft_backend_browser::NAME, "browser", |o| {
        deft_backend_browser::BrowserConfig::from_options(o)
            .map(deft_backend_browser::BrowserServer::new)
    }));
    Arc::new(r)
}

fn ctx(agent: &str, root: &str) -> ExecContext {
    let mut c = ExecContext::new("browser", "browser");
    c.agent = agent.to_owned();
    c.root = root.to_owned();
    c
}

async fn run(d: &LocalDispatcher, c: &ExecContext, tool: &str, args: Value) -> CommandResult {
    let mut r = d
        .execute(c, vec![Command::new(tool, None, args.clone())])
        .await;
    let r = r.remove(0);
    assert_eq!(r.status, ResultStatus::Success, "{tool}({args}): {r:?}");
    r
}

async fn tool_names(d: &LocalDispatcher, c: &ExecContext, t: ToolType) -> Vec<String> {
    let r = d
        .execute(
            c,
            vec![Command::new("list_tools", Some(t), json!({"tool_type": t}))],
        )
        .await;
    let infos: Vec<ToolInfo> = serde_json::from_value(r[0].result.clone()).expect("tool infos");
    let mut names: Vec<String> = infos.into_iter().map(|t| t.tool_name).collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_profile_routes_host_and_app_tools_to_one_browser() {
    common::require_chromium();
    let pages = deft_test_support::web::PageServer::start()
        .await
        .expect("page server");
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), registry());
    let host = ctx("HostAgent", "");
    assert_eq!(
        tool_names(&d, &host, ToolType::DataCollection).await,
        [
            "capture_desktop_screenshot",
            "get_clipboard",
            "get_desktop_app_info",
            "get_system_info"
        ]
    );
    assert_eq!(
        tool_names(&d, &host, ToolType::Action).await,
        [
            "close_tab",
            "navigate",
            "new_tab",
            "run_shell",
            "select_application_window",
            "set_clipboard"
        ]
    );
    let opened = run(&d, &host, "new_tab", json!({"url": pages.url("form.html")})).await;
    assert_eq!(opened.result["root_name"], "127.0.0.1", "{opened:?}");

    let app = ctx("AppAgent", "127.0.0.1");
    let observe = tool_names(&d, &app, ToolType::DataCollection).await;
    for t in [
        "get_app_window_controls_info",
        "find_controls",
        "wait_for_control",
    ] {
        assert!(observe.contains(&t.to_owned()), "{t} missing: {observe:?}");
    }
    let act = tool_names(&d, &app, ToolType::Action).await;
    for t in [
        "click_input",
        "set_edit_text",
        "select_option",
        "handle_dialog",
        "navigate",
        "wait",
    ] {
        assert!(act.contains(&t.to_owned()), "{t} missing: {act:?}");
    }
    // The AppAgent's Computer sees the tab the HostAgent's opened and selected.
    let listing = run(&d, &app, "get_app_window_controls_info", json!({})).await;
    let text = listing
        .result
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| listing.result.to_string());
    assert!(text.contains("\"Order form\" app=\"127.0.0.1\""), "{text}");
    let submit = common::Harness::id_of(&text, "button", "Submit");
    // find_controls through the tool layer gives the listing's id.
    let found = run(
        &d,
        &app,
        "find_controls",
        json!({"selector": {"text": "submit", "type": "button", "match": "exact"}}),
    )
    .await;
    let found = found.result.as_str().map(str::to_owned).unwrap_or_default();
    assert!(found.contains(&format!(" chosen={submit} ")), "{found}");
    let clicked = run(
        &d,
        &app,
        "click_input",
        json!({"id": submit, "name": "Submit"}),
    )
    .await;
    assert_eq!(clicked.result["effect"], "changed", "{clicked:?}");
}
