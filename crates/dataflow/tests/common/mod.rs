//! Shared set-up of the dataflow tests: a managed desktop as the device (the real tool layer with
//! the shipped routing table), a workspace folder (config, templates, tasks) and the scripted
//! model, answering each stage by what its request says, whatever order the requests come in.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test
#![allow(dead_code)] // each test file uses some of the helpers

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_backend_desktop::vdesktop;
use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy};
use deft_dataflow::{Config, Mode, Model, Pipeline, Schemas};
use deft_test_support::model::{Route, ScriptedModel, routed};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher};
use serde_json::Value;

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
    for (program, package) in [
        ("Xvfb", "xvfb"),
        ("dbus-daemon", "dbus-daemon"),
        ("openbox", "openbox"),
        ("/usr/libexec/at-spi-bus-launcher", "at-spi2-core"),
    ]
    .iter()
    .chain(programs)
    {
        deft_test_support::desktop::require_program(program, package);
    }
}

/// Starts a managed desktop and the device `id` on it (profile `desktop`).
pub async fn desktop(id: &str) -> Desk {
    require(&[("mousepad", "mousepad")]);
    let tmp = tempfile::Builder::new()
        .prefix("deft-dataflow-desktop-")
        .tempdir()
        .unwrap();
    let state_file = vdesktop::state_path(tmp.path());
    let (state, _) = vdesktop::start(&state_file, &tmp.path().join(vdesktop::WORK_DIR))
        .await
        .expect("managed desktop starts");
    let target = DesktopTarget::from_state(&state);
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
    Desk {
        device: Device::new(id, "desktop", Arc::new(d)),
        state_file,
        _tmp: tmp,
    }
}

/// A device that is never reached (for tasks that fail before they open a document).
pub fn unreachable_device() -> Device {
    let registry = BuiltinRegistry::new();
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(registry));
    Device::new("nowhere", "shell", Arc::new(d))
}

/// The `notes` app: text files in Mousepad, saved with Ctrl+S.
pub const NOTES_APP: &str = r#"
APPS:
  notes:
    label: Mousepad (plain text files)
    extension: .txt
    open: {tool: launch_app, args: {app: mousepad, args: ['{path}']}}
    save: {tool: keyboard_input, args: {keys: '^s', control_focus: false}}
    close: {tool: close_app, args: {app: mousepad}}
"#;

/// A folder with `config.yaml`, `templates/` and `tasks/`.
pub struct Workspace {
    /// The folder.
    pub dir: tempfile::TempDir,
}

impl Workspace {
    /// A workspace whose config is `yaml` (with the notes app) and whose notes templates are
    /// `alpha.txt` (two lines) and `list.txt` (a shopping list).
    pub fn new(yaml: &str) -> Workspace {
        let dir = tempfile::Builder::new()
            .prefix("deft-dataflow-ws-")
            .tempdir()
            .unwrap();
        std::fs::write(
            dir.path().join("config.yaml"),
            format!("{yaml}\n{NOTES_APP}"),
        )
        .unwrap();
        let t = dir.path().join("templates/notes");
        std::fs::create_dir_all(&t).unwrap();
        std::fs::write(t.join("alpha.txt"), "alpha line\nbeta line\n").unwrap();
        std::fs::write(t.join("list.txt"), "milk\neggs\n").unwrap();
        std::fs::write(
            t.join("description.json"),
            r#"{"alpha.txt": "Two lines of text, alpha and beta.", "list.txt": "A shopping list."}"#,
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
        Workspace { dir }
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The config as loaded.
    pub fn config(&self) -> Config {
        Config::load(&self.path().join("config.yaml")).unwrap().0
    }

    /// Writes the task file `tasks/<file>`.
    pub fn task(&self, file: &str, v: &Value) -> PathBuf {
        let p = self.path().join("tasks").join(file);
        std::fs::write(&p, v.to_string()).unwrap();
        p
    }

    /// Every result of `mode`: `bucket/file` → the JSON.
    pub fn results(&self, mode: Mode) -> BTreeMap<String, Value> {
        let dir = self.config().result_dir(mode);
        let mut out = BTreeMap::new();
        for bucket in deft_dataflow::Bucket::of_mode(mode) {
            let Ok(entries) = std::fs::read_dir(dir.join(bucket.as_str())) else {
                continue;
            };
            for e in entries {
                let p = e.unwrap().path();
                let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
                out.insert(
                    format!(
                        "{}/{}",
                        bucket.as_str(),
                        p.file_name().unwrap().to_string_lossy()
                    ),
                    v,
                );
            }
        }
        out
    }
}

/// A rule for `stage`'s question about the text `about` (the task, or the request judged).
pub fn rule(stage: Stage, about: &str, answer: &str) -> Route {
    Route::text(&[stage.marker(), about], answer)
}

/// Which stage a question comes from, by the words of its prompt.
#[derive(Debug, Clone, Copy)]
pub enum Stage {
    /// choose_template.
    Template,
    /// prefill.
    Prefill,
    /// instantiation_evaluation.
    Judge,
    /// execute_eval.
    Eval,
}

impl Stage {
    /// Words only this stage's prompt has.
    pub fn marker(self) -> &'static str {
        match self {
            Stage::Template => "You choose the document",
            Stage::Prefill => "You turn a general task",
            Stage::Judge => "You judge whether a request",
            Stage::Eval => "You evaluate whether an agent",
        }
    }
}

/// A scripted model answering by `rules`, up to `turns` requests.
pub async fn scripted(rules: Vec<Route>, turns: usize) -> ScriptedModel {
    ScriptedModel::start(routed(rules, turns)).await
}

/// The pipeline for the workspace's config, the scripted model at `model` and `mode`.
pub fn pipeline(ws: &Workspace, model: &ScriptedModel, mode: Mode, force: bool) -> Arc<Pipeline> {
    let config = ws.config();
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
