//! Shared harness: a private managed desktop (its own display), a documents folder, and deft's
//! tool layer with the shipped routing table over the real desktop server — opening documents
//! in LibreOffice as the CLI wires it — and the office server. Tests drive it as the agent
//! does: HostAgent launches and selects, AppAgent acts on the window.
#![allow(dead_code, clippy::unwrap_used)] // shared by several test binaries; failures fail tests

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_backend_desktop::vdesktop::{self, DesktopState};
use deft_backend_desktop::{
    DesktopServer, DesktopTarget, DocumentOpener, LaunchPolicy, OpenedWindow,
};
use deft_backend_office::uno::{SYSTEM_PYTHON, UnoHelper};
use deft_backend_office::{DocumentDirs, Office, OfficeConfig, OfficeServer, SessionConfig};
use deft_protocol::{Command, CommandResult, ResultStatus, ToolInfo, ToolType};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Dispatcher, ExecContext, LocalDispatcher};
use futures::future::BoxFuture;
use serde_json::{Value, json};

/// The office backend as the desktop's opener (the CLI's `office.rs` adapter, for tests).
struct Opener(Arc<Office>);

impl DocumentOpener for Opener {
    fn claims(&self, app: &str, args: &[String]) -> bool {
        self.0.claims(app, args)
    }

    fn open<'a>(
        &'a self,
        app: &'a str,
        args: &'a [String],
        env: &'a [(String, String)],
    ) -> BoxFuture<'a, Result<OpenedWindow, String>> {
        Box::pin(async move {
            let o = self.0.open(app, args, env).await?;
            Ok(OpenedWindow {
                pid: o.pid,
                title: o.title,
            })
        })
    }
}

/// The desktop server (opening documents in `office`) and the office server (told the desktop's
/// display, its programs' environment and the documents folder), as the CLI registers them.
fn registry(state: &DesktopState, office: &Arc<Office>, docs: &Path) -> BuiltinRegistry {
    let target = DesktopTarget::from_state(state);
    let display = state.display.clone();
    let opener = office.clone();
    let docs = docs.to_owned();
    let mut registry = BuiltinRegistry::new();
    registry.register(Builtin::new("desktop", "desktop", move |_| {
        Ok(DesktopServer::new(target.clone(), LaunchPolicy::default())
            .with_documents(Arc::new(Opener(opener.clone()))))
    }));
    let env = state.env();
    registry.register(Builtin::new("office", "office", move |options| {
        let mut o = options.clone();
        o["display"] = json!(display);
        o["document_dirs"] = json!([docs]);
        let mut config = SessionConfig::from_options(&o)?;
        config.env = env.clone();
        Ok(OfficeServer::new(config))
    }));
    registry
}

/// A window as `get_desktop_app_info` lists it.
#[derive(Debug, Clone)]
pub struct Window {
    pub id: String,
    pub name: String,
    pub app: String,
}

impl Window {
    fn from_json(v: &Value) -> Window {
        Window {
            id: v["id"].as_str().unwrap_or_default().to_owned(),
            name: v["name"].as_str().unwrap_or_default().to_owned(),
            app: v["app"].as_str().unwrap_or_default().to_owned(),
        }
    }
}

/// A desktop with LibreOffice behind the tool layer. Stops the desktop (and LibreOffice) on
/// drop.
pub struct Harness {
    pub tmp: tempfile::TempDir,
    pub docs: PathBuf,
    pub state: DesktopState,
    state_file: PathBuf,
    pub office: Arc<Office>,
    registry: Arc<BuiltinRegistry>,
    pub dispatcher: LocalDispatcher,
}

impl Harness {
    pub async fn new() -> Harness {
        Self::with_program(None).await
    }

    /// With LibreOffice's `soffice.bin` at `program` (a missing one for the install error).
    pub async fn with_program(program: Option<PathBuf>) -> Harness {
        Self::with(program, None).await
    }

    /// With `program` and LibreOffice's profiles in `profiles` (default: the test's own folder;
    /// a folder shared by several harnesses keeps its profile template).
    pub async fn with(program: Option<PathBuf>, profiles: Option<PathBuf>) -> Harness {
        deft_test_support::office::require_office();
        let tmp = tempfile::Builder::new()
            .prefix("deft-office-test-")
            .tempdir()
            .unwrap();
        let docs = tmp.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let state_file = vdesktop::state_path(tmp.path());
        let (state, _) = vdesktop::start(&state_file, &tmp.path().join(vdesktop::WORK_DIR))
            .await
            .expect("managed desktop starts");
        let office = Arc::new(Office::new(OfficeConfig {
            program,
            dirs: DocumentDirs::new(vec![docs.clone()]),
            profiles: Some(profiles.unwrap_or_else(|| tmp.path().join("profiles"))),
            ..OfficeConfig::default()
        }));
        let registry = Arc::new(registry(&state, &office, &docs));
        let dispatcher = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), registry.clone());
        Harness {
            tmp,
            docs,
            state,
            state_file,
            office,
            registry,
            dispatcher,
        }
    }

    /// A new tool layer over the same desktop and LibreOffice: new desktop and office servers
    /// (nothing selected, nothing cached).
    pub fn fresh_dispatcher(&self) -> LocalDispatcher {
        LocalDispatcher::new(Arc::new(RoutingTable::builtin()), self.registry.clone())
    }

    /// Runs one command as the HostAgent.
    pub async fn host(&self, tool: &str, args: Value) -> CommandResult {
        host_on(&self.dispatcher, tool, args).await
    }

    /// Runs one command as the AppAgent of `window` (its title is the process, its app the
    /// root), as the agent does after selecting it.
    pub async fn app(&self, window: &Window, tool: &str, args: Value) -> CommandResult {
        app_on(&self.dispatcher, window, tool, args).await
    }

    /// The names of the tools the AppAgent of `window` has.
    pub async fn tools(&self, window: &Window) -> Vec<String> {
        let r = self.app(window, "list_tools", json!({})).await;
        let all: Vec<ToolInfo> = serde_json::from_value(ok(&r)).unwrap();
        all.into_iter().map(|t| t.tool_name).collect()
    }

    /// `launch_app` of `app` (a path or an app name); the window it opened.
    pub async fn launch(&self, app: &str) -> Window {
        let r = self.host("launch_app", json!({ "app": app })).await;
        Window::from_json(&ok(&r)["window"])
    }

    /// Launches `app` and selects its window; the window.
    pub async fn open(&self, app: &str) -> Window {
        let w = self.launch(app).await;
        self.select(&w).await
    }

    /// Selects `w` (listing the windows first, as the agent does); the window as selected.
    pub async fn select(&self, w: &Window) -> Window {
        select_on(&self.dispatcher, w).await
    }

    /// The windows on the desktop now.
    pub async fn windows(&self) -> Vec<Window> {
        let r = self.host("get_desktop_app_info", json!({})).await;
        ok(&r)["windows"]
            .as_array()
            .unwrap()
            .iter()
            .map(Window::from_json)
            .collect()
    }

    /// A path in the documents folder.
    pub fn doc(&self, name: &str) -> PathBuf {
        self.docs.join(name)
    }

    /// The UNO helper this device's calls go through (the opener's and the office servers').
    pub fn helper(&self) -> Arc<UnoHelper> {
        UnoHelper::shared(Path::new(SYSTEM_PYTHON), &self.state.env()).unwrap()
    }

    /// LibreOffice's pid, once it runs.
    pub async fn office_pid(&self) -> u32 {
        self.office.running().await.expect("LibreOffice runs").pid
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = vdesktop::stop(&self.state_file);
    }
}

/// Runs one command on `d` as the HostAgent.
pub async fn host_on(d: &LocalDispatcher, tool: &str, args: Value) -> CommandResult {
    let ctx = ExecContext::new("local", "desktop");
    d.execute(&ctx, vec![Command::new(tool, None, args)])
        .await
        .remove(0)
}

/// Runs one command on `d` as the AppAgent of `window`.
pub async fn app_on(
    d: &LocalDispatcher,
    window: &Window,
    tool: &str,
    args: Value,
) -> CommandResult {
    let mut ctx = ExecContext::new("local", "desktop");
    ctx.agent = "AppAgent".to_owned();
    ctx.process = window.name.clone();
    ctx.root = window.app.clone();
    d.execute(&ctx, vec![Command::new(tool, None, args)])
        .await
        .remove(0)
}

/// Selects `w` on `d` (listing the windows first, as the agent does); the window as selected.
pub async fn select_on(d: &LocalDispatcher, w: &Window) -> Window {
    ok(&host_on(d, "get_desktop_app_info", json!({})).await);
    let r = host_on(
        d,
        "select_application_window",
        json!({ "id": w.id, "name": w.name }),
    )
    .await;
    let v = ok(&r);
    assert_eq!(v["root_name"], json!(w.app), "{v}");
    w.clone()
}

/// The result of a command that must succeed: its structured content, or its text.
pub fn ok(r: &CommandResult) -> Value {
    assert_eq!(r.status, ResultStatus::Success, "{r:?}");
    r.result.clone()
}

/// The error text of a command that must fail.
pub fn err(r: &CommandResult) -> String {
    assert_eq!(r.status, ResultStatus::Failure, "should have failed: {r:?}");
    r.error.clone().unwrap_or_default()
}

/// The `message` of a successful action, checked to report a change.
pub fn changed(r: &CommandResult) -> String {
    let v = ok(r);
    assert_eq!(v["effect"], json!("changed"), "{v}");
    v["message"].as_str().unwrap().to_owned()
}

/// Waits (polling, up to `limit`) until `f` holds.
pub fn wait_until(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// Whether `pid` runs (not a zombie).
pub fn alive(pid: u32) -> bool {
    deft_backend_office::instance::alive(pid)
}

/// How many cl100k tokens `text` is.
pub fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .expect("cl100k tables")
        .encode_with_special_tokens(text)
        .len()
}

/// A path as text.
pub fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The data_collection tool type (read tools route there).
pub const DATA: Option<ToolType> = Some(ToolType::DataCollection);
