//! Shared harness: a private managed desktop per test (its own Xvfb display, so tests never share
//! a pointer or keyboard), the desktop tool server on it, and a real MCP client over a duplex pipe.
#![allow(dead_code)]

use std::time::Duration;

use deft_backend_desktop::vdesktop::{self, DesktopState};
use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A desktop, a server on it and a client to it. Stops the desktop on drop.
pub struct Harness {
    pub tmp: tempfile::TempDir,
    pub state: DesktopState,
    pub state_file: std::path::PathBuf,
    pub server: DesktopServer,
    pub client: RunningService<RoleClient, ()>,
}

impl Harness {
    pub async fn new() -> Harness {
        Self::with_launch(LaunchPolicy::default()).await
    }

    pub async fn with_launch(launch: LaunchPolicy) -> Harness {
        deft_test_support::desktop::require_desktop(&[]);
        let tmp = tempfile::Builder::new()
            .prefix("deft-desktop-test-")
            .tempdir()
            .expect("temp dir");
        let state_file = vdesktop::state_path(tmp.path());
        let (state, _) = vdesktop::start(&state_file, &tmp.path().join(vdesktop::WORK_DIR))
            .await
            .expect("managed desktop starts");
        let server = DesktopServer::new(DesktopTarget::from_state(&state), launch);
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let s = server.clone();
        tokio::spawn(async move {
            if let Ok(running) = s.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_io).await.expect("MCP client connects");
        Harness {
            tmp,
            state,
            state_file,
            server,
            client,
        }
    }

    pub fn env(&self) -> Vec<(String, String)> {
        self.state.env()
    }

    /// Calls a tool; returns the result (error results included).
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        self.client
            .call_tool(params)
            .await
            .unwrap_or_else(|e| panic!("{tool} call failed at the protocol level: {e}"))
    }

    /// Calls a tool that must succeed; returns its structured content or text.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args.clone()).await;
        assert_ne!(
            r.is_error,
            Some(true),
            "{tool}({args}) failed: {}",
            text_of(&r)
        );
        r.structured_content
            .clone()
            .unwrap_or_else(|| Value::String(text_of(&r)))
    }

    /// Calls a tool that must fail; returns its error text.
    pub async fn err(&self, tool: &str, args: Value) -> String {
        let r = self.call(tool, args.clone()).await;
        assert_eq!(
            r.is_error,
            Some(true),
            "{tool}({args}) should have failed: {:?}",
            r
        );
        text_of(&r)
    }

    /// Waits for a window of `app` (root name) and selects it; returns its id.
    pub async fn select_app(&self, app: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let list = self.ok("get_desktop_app_info", json!({})).await;
            if let Some(w) = list["windows"]
                .as_array()
                .and_then(|ws| ws.iter().find(|w| w["app"] == app))
            {
                let id = w["id"].as_str().unwrap_or_default().to_owned();
                let sel = self
                    .ok(
                        "select_application_window",
                        json!({"id": id, "name": w["name"]}),
                    )
                    .await;
                assert_eq!(sel["root_name"], app);
                return id;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no window of {app} appeared: {list}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The compact control listing of the selected window.
    pub async fn listing(&self, args: Value) -> String {
        let r = self.call("get_app_window_controls_info", args).await;
        assert_ne!(r.is_error, Some(true), "listing failed: {}", text_of(&r));
        text_of(&r)
    }

    /// The `texts` answer for control `id` once it reads `want`. Typed keys reach the app
    /// through its own event queue: an app starved of CPU may still be inserting the last ones
    /// when `keyboard_input` has answered (its effect check waits for quiet AT-SPI events, not
    /// for every key). Panics with the last reading after 20 s.
    pub async fn text_until(&self, id: &str, name: &str, want: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let text = text_of(&self.call("texts", json!({"id": id, "name": name})).await);
            if text == want || std::time::Instant::now() >= deadline {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The id of the first listed control of `kind` named `name`.
    pub async fn id_of(&self, kind: &str, name: &str) -> String {
        let listing = self.listing(json!({})).await;
        find_id(&listing, kind, name)
            .unwrap_or_else(|| panic!("no {kind} {name:?} in the listing:\n{listing}"))
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = vdesktop::stop(&self.state_file);
    }
}

/// All text content of a result, joined.
pub fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Finds `id type "name"` in a compact listing.
pub fn find_id(listing: &str, kind: &str, name: &str) -> Option<String> {
    let quoted = serde_json::to_string(name).ok()?;
    listing.lines().find_map(|line| {
        let line = line.trim_start_matches('*');
        let mut parts = line.splitn(3, ' ');
        let id = parts.next()?;
        let t = parts.next()?;
        let rest = parts.next()?;
        (t == kind && (rest == quoted || rest.starts_with(&format!("{quoted} "))))
            .then(|| id.to_owned())
    })
}

/// Starts the GTK3 lists fixture (`fixtures/desktop/lists_app.py`: a long "Fruits" list box and
/// a long "Files" tree view, each in a scrolled window) and waits until it is ready.
pub fn lists_app(env: &[(String, String)]) -> deft_test_support::desktop::AppProcess {
    use deft_test_support::desktop::{AppProcess, SYSTEM_PYTHON, form_app_path, require_program};
    require_program(SYSTEM_PYTHON, "python3-gi gir1.2-gtk-3.0");
    let path = form_app_path().with_file_name("lists_app.py");
    let app = AppProcess::spawn(SYSTEM_PYTHON, &[&path.to_string_lossy()], env)
        .expect("lists app starts");
    assert!(
        app.wait_record(Duration::from_secs(10), |r| r["event"] == "ready")
            .is_some(),
        "the lists app did not start: {:?}",
        app.lines()
    );
    app
}

/// The header line's counts: (controls, interactive, new).
pub fn header_counts(listing: &str) -> (usize, usize, usize) {
    let header = listing.lines().next().unwrap_or_default();
    let count = |key: &str| -> usize {
        header
            .split(' ')
            .find_map(|w| w.strip_prefix(key))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in header {header:?}"))
    };
    (count("controls="), count("interactive="), count("new="))
}

/// The control lines of a compact listing (no header, no footers).
pub fn control_lines(listing: &str) -> Vec<&str> {
    listing
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('…'))
        .collect()
}
