//! Shared set-up of the dataflow tests: a managed desktop as the device (the real tool layer with
//! the shipped routing table), a workspace folder (config, templates, tasks) and the scripted
//! model, answering each stage by what its request says, whatever order the requests come in.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test
#![allow(dead_code, unused_imports)] // each test file (and the bench) uses some of the helpers

use std::path::{Path, PathBuf};
use std::sync::Arc;

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_backend_desktop::vdesktop;
use deft_backend_desktop::{
    DesktopServer, DesktopTarget, DocumentOpener, LaunchPolicy, OpenedWindow,
};
use deft_backend_office::{DocumentDirs, Office, OfficeConfig};
use deft_dataflow::{Config, Mode, Model, Pipeline, Quiet, RunSummary, Schemas};
pub use deft_test_support::dataflow::{Stage, Workspace, rule};
use deft_test_support::model::{Route, ScriptedModel, routed};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher};
use futures::future::BoxFuture;
use serde_json::json;

/// A managed desktop and a device on it; the desktop stops when this is dropped.
pub struct Desk {
    /// The device.
    pub device: Device,
    state_file: PathBuf,
    _tmp: tempfile::TempDir,
}

impl Drop for Desk {
    fn drop(&mut self) {
        let _ = vdesktop::stop(&self.state_file);
    }
}

/// Fails with the package to install when a program the tests need is missing.
pub fn require(programs: &[(&str, &str)]) {
    deft_test_support::desktop::require_desktop(programs);
}

/// A managed desktop started in a fresh temporary folder (named `prefix…`): the folder, the
/// desktop's state file and its state.
async fn start_desktop(prefix: &str) -> (tempfile::TempDir, PathBuf, vdesktop::DesktopState) {
    let tmp = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
    let state_file = vdesktop::state_path(tmp.path());
    let (state, _) = vdesktop::start(&state_file, &tmp.path().join(vdesktop::WORK_DIR))
        .await
        .expect("managed desktop starts");
    (tmp, state_file, state)
}

/// The device `id` (profile `desktop`) on the desktop started in `tmp`: the real tool layer with
/// the shipped routing table, `registry` completed with the shell server.
fn desk(
    id: &str,
    mut registry: BuiltinRegistry,
    tmp: tempfile::TempDir,
    state_file: PathBuf,
) -> Desk {
    registry.register(Builtin::new(deft_backend_shell::NAME, "shell", |o| {
        deft_backend_shell::ShellPolicy::from_options(o).map(deft_backend_shell::ShellServer::new)
    }));
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(registry));
    Desk {
        device: Device::new(id, "desktop", Arc::new(d)),
        state_file,
        _tmp: tmp,
    }
}

/// Starts a managed desktop and the device `id` on it (profile `desktop`).
pub async fn desktop(id: &str) -> Desk {
    require(&[("mousepad", "mousepad")]);
    let (tmp, state_file, state) = start_desktop("deft-dataflow-desktop-").await;
    let target = DesktopTarget::from_state(&state);
    let mut registry = BuiltinRegistry::new();
    registry.register(Builtin::new(
        deft_backend_desktop::NAME,
        "desktop",
        move |_| Ok(DesktopServer::new(target.clone(), LaunchPolicy::default())),
    ));
    desk(id, registry, tmp, state_file)
}

/// The office backend as the desktop's document opener (the CLI's `office.rs` seam, for tests).
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

/// A managed desktop whose `launch_app` opens documents in LibreOffice (its own supervised
/// instance, documents allowed under `docs`) and whose LibreOffice windows have the office API
/// tools, as `deft` wires them; the device `id` on it. `office` is LibreOffice's handle (its pid
/// for a test that kills it).
pub async fn office_desktop(id: &str, docs: &Path) -> (Desk, Arc<Office>) {
    require(&[]);
    deft_test_support::office::require_office();
    let (tmp, state_file, state) = start_desktop("deft-dataflow-office-").await;
    let office = Arc::new(Office::new(OfficeConfig {
        dirs: DocumentDirs::new(vec![docs.to_owned()]),
        profiles: Some(tmp.path().join("office")),
        ..OfficeConfig::default()
    }));
    let target = DesktopTarget::from_state(&state);
    let opener = office.clone();
    let (display, docs, env) = (state.display.clone(), docs.to_owned(), state.env());
    let mut registry = BuiltinRegistry::new();
    registry.register(Builtin::new(
        deft_backend_desktop::NAME,
        "desktop",
        move |_| {
            Ok(DesktopServer::new(target.clone(), LaunchPolicy::default())
                .with_documents(Arc::new(Opener(opener.clone()))))
        },
    ));
    registry.register(Builtin::new(
        deft_backend_office::NAME,
        "office",
        move |o| {
            let mut o = o.clone();
            o["display"] = json!(display);
            o["document_dirs"] = json!([docs]);
            let mut config = deft_backend_office::SessionConfig::from_options(&o)?;
            config.env = env.clone();
            Ok(deft_backend_office::OfficeServer::new(config))
        },
    ));
    (desk(id, registry, tmp, state_file), office)
}

/// A device that is never reached (for tasks that fail before they open a document).
pub fn unreachable_device() -> Device {
    let registry = BuiltinRegistry::new();
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(registry));
    Device::new("nowhere", "shell", Arc::new(d))
}

/// The workspace's config as loaded.
pub fn config(ws: &Workspace) -> Config {
    Config::load(&ws.config_file()).unwrap().0
}

/// A notes workspace with `yaml` in its config.
pub fn workspace(yaml: &str) -> Workspace {
    Workspace::notes(yaml).unwrap()
}

/// A scripted model answering by `rules`, up to `turns` requests.
pub async fn scripted(rules: Vec<Route>, turns: usize) -> ScriptedModel {
    ScriptedModel::start(routed(rules, turns)).await
}

/// The pipeline for the workspace's config, the scripted model at `model` and `mode`.
pub fn pipeline(ws: &Workspace, model: &ScriptedModel, mode: Mode, force: bool) -> Arc<Pipeline> {
    let config = config(ws);
    let mut llm = LlmConfig::new(&model.base_url(), "scripted", None);
    llm.max_retries = 0;
    let visual = config.visual_mode;
    Arc::new(Pipeline {
        schemas: Schemas::load(&config).unwrap(),
        config,
        model: Model::new(LlmClient::new(llm).unwrap(), visual),
        mode,
        force,
    })
}

/// Runs `p` quietly, not cancelled, over the task files in `dir` on `devices`.
pub async fn run_folder(p: &Arc<Pipeline>, dir: &Path, devices: Vec<Device>) -> RunSummary {
    let files = deft_dataflow::task::task_files(dir).unwrap();
    p.run(
        files,
        devices,
        Arc::new(Quiet),
        tokio_util::sync::CancellationToken::new(),
    )
    .await
}
