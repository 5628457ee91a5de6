//! `/mcp/devices/{id}` on a real server on loopback, driven by rmcp's MCP client over
//! streamable HTTP: the `browser` device (a real headless Chromium) as one endpoint — the
//! HostAgent's tools, then a selected tab's with `notifications/tools/list_changed`; sensitive
//! calls asked by elicitation or refused; the busy rule; tokens and their scope; unknown devices.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

#[path = "../../tasks/tests/browser_device/mod.rs"]
mod browser_device;
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::API_TOKEN;
use common::console_hub::ConsoleHub;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationCapability, Implementation,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// The person behind the client: answers approvals (when it can be asked) and hears tool-list
/// changes.
#[derive(Clone, Default)]
struct Person {
    /// `Some(yes)`: the client supports elicitation and the person answers `yes`.
    answers: Option<bool>,
    asked: Arc<AtomicUsize>,
    changed: Arc<Notify>,
}

impl ClientHandler for Person {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let asked = serde_json::to_value(&request).unwrap();
        assert!(
            asked["message"].as_str().unwrap().contains("run_shell"),
            "{asked}"
        );
        let answer = if self.answers == Some(true) {
            json!({"action": "accept", "content": {"approve": true}})
        } else {
            json!({"action": "decline"})
        };
        Ok(serde_json::from_value(answer).unwrap())
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        if self.answers.is_some() {
            caps.elicitation = Some(ElicitationCapability::default());
        }
        ClientConfig::new(caps, Implementation::new("mcp-devices-test", "1"))
    }
}

type Client = RunningService<RoleClient, Person>;

/// An MCP client of `device`'s endpoint with `token` as the Bearer.
async fn connect(h: &ConsoleHub, device: &str, token: &str, person: Person) -> Client {
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp/devices/{device}", h.url))
            .auth_header(token);
    person
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    client
        .call_tool(
            CallToolRequestParams::new(tool.to_owned())
                .with_arguments(args.as_object().cloned().unwrap_or_default()),
        )
        .await
        .unwrap()
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn names(client: &Client) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// A named token `name` with `scopes`: its name and value.
async fn make_token(h: &ConsoleHub, name: &str, scopes: Value) -> (String, String) {
    let made = h
        .post("/api/tokens", &json!({"name": name, "scopes": scopes}))
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    (
        made.body["token"]["name"].as_str().unwrap().to_owned(),
        made.body["value"].as_str().unwrap().to_owned(),
    )
}

/// A raw POST of an MCP `initialize` to `path` with `token`: the HTTP status and body.
async fn raw_initialize(h: &ConsoleHub, path: &str, token: &str) -> (u16, String) {
    let r = reqwest::Client::new()
        .post(format!("{}{path}", h.url))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_tab_brings_its_tools_and_the_client_hears_of_it() {
    let pages = browser_device::pages().await;
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![browser_device::browser_device()]).await;
    let person = Person::default();
    let client = connect(&h, "browser", API_TOKEN, person.clone()).await;

    let host = names(&client).await;
    for t in [
        "get_desktop_app_info",
        "new_tab",
        "select_application_window",
        "run_shell",
    ] {
        assert!(host.contains(&t.to_owned()), "{t}: {host:?}");
    }
    assert!(!host.contains(&"get_page_text".to_owned()), "{host:?}");

    // A page's tool before its tab is selected: told what to select.
    let early = call(&client, "get_page_text", json!({})).await;
    assert_eq!(early.is_error, Some(true));
    assert!(
        text(&early).contains("select_application_window"),
        "{}",
        text(&early)
    );

    let opened = call(&client, "new_tab", json!({"url": pages.url("form.html")})).await;
    assert_ne!(opened.is_error, Some(true), "{}", text(&opened));
    let windows = call(&client, "get_desktop_app_info", json!({})).await;
    let windows = windows.structured_content.unwrap();
    let tab = windows["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"].as_str().unwrap_or_default().contains("Order"))
        .unwrap_or_else(|| panic!("the form's tab is not listed: {windows}"))
        .clone();
    let selected = call(
        &client,
        "select_application_window",
        json!({"id": tab["id"], "name": tab["name"]}),
    )
    .await;
    assert_ne!(selected.is_error, Some(true), "{}", text(&selected));
    tokio::time::timeout(Duration::from_secs(30), person.changed.notified())
        .await
        .expect("notifications/tools/list_changed after the selection");

    let app = names(&client).await;
    for t in [
        "get_page_text",
        "click_input",
        "get_app_window_controls_info",
        "new_tab",
    ] {
        assert!(app.contains(&t.to_owned()), "{t}: {app:?}");
    }
    let page = call(&client, "get_page_text", json!({})).await;
    assert_ne!(page.is_error, Some(true), "{}", text(&page));
    assert!(text(&page).starts_with("New order\nName"), "{page:?}");

    // Every call left its step in the endpoint's trace.
    let traces = dir.path().join("traces");
    let trace = std::fs::read_dir(&traces)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("mcp-browser-")
        })
        .expect("the endpoint's trace folder");
    let lines = std::fs::read_to_string(trace.join("trace.jsonl")).unwrap();
    for t in ["new_tab", "select_application_window", "get_page_text"] {
        assert!(
            lines.contains(&format!("\"tool\":\"{t}\"")),
            "{t} not traced"
        );
    }
    client.cancel().await.unwrap();
}

/// A device of the `desktop` profile whose only server is the shell (no desktop is needed to
/// list its HostAgent's tools: the desktop's are left out).
fn shell_only_desktop() -> deft_tools::Device {
    let mut r = deft_tools::builtin::BuiltinRegistry::new();
    r.register(deft_tools::builtin::Builtin::new(
        deft_backend_shell::NAME,
        "shell",
        |o| {
            deft_backend_shell::ShellPolicy::from_options(o)
                .map(deft_backend_shell::ShellServer::new)
        },
    ));
    let table = Arc::new(deft_tools::table::RoutingTable::builtin());
    let d = deft_tools::LocalDispatcher::new(table, Arc::new(r));
    deft_tools::Device::new("desk", "desktop", Arc::new(d))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_tool_called_too_early_names_the_window_that_brings_it() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![shell_only_desktop()]).await;
    let client = connect(&h, "desk", API_TOKEN, Person::default()).await;
    let host = names(&client).await;
    assert!(host.contains(&"run_shell".to_owned()), "{host:?}");
    assert!(!host.contains(&"insert_table".to_owned()), "{host:?}");

    // Writer's API tool before a Writer window is selected: the server's routing table names it.
    let early = call(&client, "insert_table", json!({"rows": 2, "columns": 2})).await;
    assert_eq!(early.is_error, Some(true));
    assert_eq!(
        text(&early),
        deft_app::texts::mcp_unknown_tool(
            "insert_table",
            "desk",
            None,
            &["libreoffice-writer".to_owned()]
        )
    );
    assert!(
        text(&early).contains("(insert_table comes with the window of libreoffice-writer)"),
        "{}",
        text(&early)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sensitive_call_runs_only_when_a_person_says_yes() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![browser_device::browser_device()]).await;
    let shell = json!({"command": "uname -s"});

    // A client that cannot ask anyone: refused, nothing run.
    let mute = connect(&h, "browser", API_TOKEN, Person::default()).await;
    let refused = call(&mute, "run_shell", shell.clone()).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        text(&refused),
        deft_app::texts::mcp_approval_unavailable(
            "run_shell",
            "run_shell needs approval on this device"
        )
    );
    mute.cancel().await.unwrap();

    // A person who declines.
    let no = Person {
        answers: Some(false),
        ..Person::default()
    };
    let client = connect(&h, "browser", API_TOKEN, no.clone()).await;
    let declined = call(&client, "run_shell", shell.clone()).await;
    assert_eq!(
        text(&declined),
        deft_app::texts::mcp_approval_denied("run_shell")
    );
    assert_eq!(no.asked.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();

    // A person who approves: it runs.
    let yes = Person {
        answers: Some(true),
        ..Person::default()
    };
    let client = connect(&h, "browser", API_TOKEN, yes.clone()).await;
    let ran = call(&client, "run_shell", shell).await;
    assert_ne!(ran.is_error, Some(true), "{}", text(&ran));
    assert!(
        serde_json::to_string(&ran).unwrap().contains("Linux"),
        "{ran:?}"
    );
    assert_eq!(yes.asked.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_devices_scopes_revoked_tokens_and_unknown_devices_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let device = browser_device::browser_device();
    let h = ConsoleHub::start(dir.path(), None, vec![device.clone()]).await;

    // Held by something else (a run, a task, an exec batch): the call is refused, not queued.
    let client = connect(&h, "browser", API_TOKEN, Person::default()).await;
    let held = device.try_reserve().unwrap();
    let busy = call(&client, "get_desktop_app_info", json!({})).await;
    assert_eq!(busy.is_error, Some(true));
    assert_eq!(text(&busy), deft_app::texts::device_busy("browser"));
    drop(held);
    let free = call(&client, "get_desktop_app_info", json!({})).await;
    assert_ne!(free.is_error, Some(true), "{}", text(&free));
    client.cancel().await.unwrap();

    // Named tokens: devices:exec reaches the endpoint; another scope is told which it lacks;
    // a revoked one is refused at once.
    let (_, exec) = make_token(&h, "mcp", json!(["devices:exec"])).await;
    let (runs_name, runs) = make_token(&h, "ci", json!(["runs", "tasks:read"])).await;
    let (status, _) = raw_initialize(&h, "/mcp/devices/browser", &exec).await;
    assert_eq!(status, 200);
    let (status, body) = raw_initialize(&h, "/mcp/devices/browser", &runs).await;
    assert_eq!(status, 403);
    assert!(body.contains("devices:exec"), "{body}");
    let revoked = h.delete(&format!("/api/tokens/{runs_name}")).await;
    assert!(revoked.status < 300, "{revoked:?}");
    let (status, _) = raw_initialize(&h, "/mcp/devices/browser", &runs).await;
    assert_eq!(status, 401);
    let (status, _) = raw_initialize(&h, "/mcp/devices/browser", "wrong").await;
    assert_eq!(status, 401);

    // A device the server does not know: 404 naming the known ones.
    let (status, body) = raw_initialize(&h, "/mcp/devices/nope", API_TOKEN).await;
    assert_eq!(status, 404);
    assert!(body.contains("nope") && body.contains("browser"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_message_past_the_body_limit_is_refused_with_413() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![shell_only_desktop()]).await;
    let (status, _) = raw_initialize(&h, "/mcp/devices/desk", API_TOKEN).await;
    assert_eq!(status, 200, "a message under the limit is served");
    // The server's API body limit (1 MiB here), not the MCP library's own.
    let padded = format!(
        "{{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"{}}}",
        " ".repeat(2 << 20)
    );
    let r = reqwest::Client::new()
        .post(format!("{}/mcp/devices/desk", h.url))
        .bearer_auth(API_TOKEN)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(padded)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        v,
        json!({"error": deft_server::texts::body_too_large(1 << 20)})
    );
}
