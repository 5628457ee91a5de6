//! The `local` device of the runner's desktop tests and bench: a private managed virtual desktop
//! (its own Xvfb, buses and openbox, stopped on drop) behind the real tool layer with the
//! shipped routing table's `desktop` profile, as `deft task run --device local` builds it.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test
#![allow(dead_code)] // each test file uses some of the helpers

use std::path::PathBuf;
use std::sync::Arc;

use deft_backend_desktop::vdesktop;
use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher};

/// A managed desktop and the `local` device on it. Stops the desktop when dropped.
pub struct DesktopDevice {
    /// The device the runner plays tasks on.
    pub device: Device,
    /// The environment of a program started on the desktop by hand (outside deft).
    pub env: Vec<(String, String)>,
    state_file: PathBuf,
    _tmp: tempfile::TempDir,
}

impl Drop for DesktopDevice {
    fn drop(&mut self) {
        let _ = vdesktop::stop(&self.state_file);
    }
}

/// Fails with the package to install when a program the desktop tests need is missing.
pub fn require_apps(apps: &[(&str, &str)]) {
    deft_test_support::desktop::require_desktop(apps);
}

/// Starts a managed desktop and builds the `local` device (profile `desktop`) on it.
pub async fn start() -> DesktopDevice {
    let tmp = tempfile::Builder::new()
        .prefix("deft-runner-desktop-")
        .tempdir()
        .unwrap();
    let state_file = vdesktop::state_path(tmp.path());
    let (state, _) = vdesktop::start(&state_file, &tmp.path().join(vdesktop::WORK_DIR))
        .await
        .expect("managed desktop starts");
    let target = DesktopTarget::from_state(&state);
    let env = state.env();
    let mut registry = BuiltinRegistry::new();
    registry.register(Builtin::new(
        deft_backend_desktop::NAME,
        "desktop",
        move |_| Ok(DesktopServer::new(target.clone(), LaunchPolicy::default())),
    ));
    registry.register(Builtin::new(deft_backend_shell::NAME, "shell", |o| {
        deft_backend_shell::ShellPolicy::from_options(o).map(deft_backend_shell::ShellServer::new)
    }));
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(registry));
    DesktopDevice {
        device: Device::new("local", "desktop", Arc::new(d)),
        env,
        state_file,
        _tmp: tmp,
    }
}

/// Waits (up to 60 s) until the desktop lists a window of the application `root`, as
/// `get_desktop_app_info` names it: an application started by hand has shown its window.
pub async fn window_of(device: &Device, root: &str) -> serde_json::Value {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let r = call(
            device,
            deft_protocol::ToolType::DataCollection,
            "get_desktop_app_info",
            serde_json::json!({}),
            None,
        )
        .await;
        let found = r.result["windows"]
            .as_array()
            .and_then(|ws| ws.iter().find(|w| w["app"] == root))
            .cloned();
        if let Some(w) = found {
            return w;
        }
        assert!(
            std::time::Instant::now() < until,
            "no window of {root} within 60 s: {r:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A task file of `examples/tasks/`, through the validator (which must accept it with no
/// warning).
pub fn example(name: &str) -> deft_tasks::Task {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/tasks")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    let v = deft_tasks::validate_task(&bytes, &Default::default());
    let report = v.report.clone();
    assert!(report.warnings.is_empty(), "{}: {report}", path.display());
    v.value
        .unwrap_or_else(|| panic!("{} does not validate: {report}", path.display()))
}

/// One tool call on `device` — the HostAgent's, or the AppAgent's of `app` when given — and
/// its Result.
pub async fn call(
    device: &Device,
    kind: deft_protocol::ToolType,
    tool: &str,
    args: serde_json::Value,
    app: Option<&deft_tools::AppSelection>,
) -> deft_protocol::CommandResult {
    let mut ctx = deft_tools::ExecContext::new(&device.id, &device.profile);
    if let Some(app) = app {
        app.apply(&mut ctx);
    }
    let cmd = deft_protocol::Command::new(tool, Some(kind), args).with_call_id("t");
    device.dispatcher.execute(&ctx, vec![cmd]).await.remove(0)
}
