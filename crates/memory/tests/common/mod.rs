//! What the memory's suites share: a fixture device through the real tool layer, a memory on a
//! fresh SQLite file, an agent on the scripted model with the session as its extension, and
//! scripted distilling answers.

#![allow(dead_code)] // each suite uses a part
#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::sync::{Arc, Mutex};
use std::time::Duration;

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{Agent, AgentConfig, ConfirmPolicy, EventSink, NullImages, RunIo, RunOutcome};
use deft_memory::{Memory, MemoryConfig, MemorySession};
use deft_protocol::AgentEvent;
use deft_store::Store;
use deft_test_support::fixture::FixtureServer;
use deft_test_support::model::{Recorded, Reply, Turn};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher, StaticDevices};
use serde_json::Value;

const TABLE: &str = r#"
timeouts: {tool_default_secs: 30, grace_secs: 0, batch_secs: 60}
profiles:
  test:
    HostAgent:
      default:
        data_collection:
          - {namespace: fx, type: builtin, name: fixture, tools: [image, pid]}
        action:
          - {namespace: fx, type: builtin, name: fixture, tools: [noop, fail, select_application_window]}
"#;

/// A memory on a fresh SQLite file and a device of fixture tools.
pub struct World {
    pub memory: Memory,
    pub store: Store,
    pub device: Device,
    pub devices: Arc<StaticDevices>,
    pub _dir: tempfile::TempDir,
}

pub async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), None).await.unwrap();
    let config = MemoryConfig {
        call_limit: Duration::from_secs(20),
        ..MemoryConfig::default()
    };
    let memory = Memory::new(store.clone(), config);
    let shared = FixtureServer::new();
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new("fixture", "test tools", move |_| {
        Ok(shared.clone())
    }));
    let table = RoutingTable::parse(TABLE, "memory-test.yaml").unwrap();
    let device = Device::new(
        "local",
        "test",
        Arc::new(LocalDispatcher::new(Arc::new(table), Arc::new(r))),
    );
    let devices = Arc::new(StaticDevices::new(vec![device.clone()]));
    World {
        memory,
        store,
        device,
        devices,
        _dir: dir,
    }
}

/// A model client on `base`, quick to retry.
pub fn llm(base: &str) -> Arc<LlmClient> {
    let mut c = LlmConfig::new(base, "scripted-model", None);
    c.backoff = Duration::from_millis(5);
    c.read_timeout = Duration::from_secs(20);
    Arc::new(LlmClient::new(c).unwrap())
}

#[derive(Default)]
pub struct Collect(pub Mutex<Vec<AgentEvent>>);

impl EventSink for Collect {
    fn send(&self, event: &AgentEvent) {
        self.0.lock().unwrap().push(event.clone());
    }
}

impl Collect {
    pub fn events(&self) -> Vec<AgentEvent> {
        self.0.lock().unwrap().clone()
    }
}

impl World {
    /// Runs `goal` with the memory's session; the outcome, the session and the events.
    pub async fn run(
        &self,
        llm: &Arc<LlmClient>,
        goal: &str,
    ) -> (RunOutcome, Arc<MemorySession>, Arc<Collect>) {
        let session = self.memory.session(Some("run-test"));
        let config = AgentConfig {
            confirm: ConfirmPolicy::none(),
            ..AgentConfig::default()
        };
        let agent = Agent::new(llm.clone(), config, self.devices.clone());
        let events = Arc::new(Collect::default());
        let io = RunIo {
            events: vec![events.clone()],
            images: Arc::new(NullImages::default()),
            approver: Arc::new(deft_agent::FixedApproval(false)),
        };
        let outcome = agent
            .run(
                &self.device,
                deft_agent::RunRequest::new(goal)
                    .with_profile(deft_agent::RunProfile::chat().with_extension(session.clone())),
                io,
                Default::default(),
            )
            .await;
        (outcome, session, events)
    }
}

pub fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

/// A run's two turns: one `noop` call, then `answer`.
pub fn acting_run(answer: &str) -> Vec<Turn> {
    vec![
        Reply::tool_call("noop", serde_json::json!({})).into(),
        Reply::text(answer).into(),
    ]
}

/// A streamed answer of `content` (big chunks, so a large answer streams quickly).
pub fn answer(content: &str) -> Turn {
    Reply::Stream(deft_test_support::model::Streamed {
        content: content.to_owned(),
        usage: Some((300, 60)),
        chunk_chars: 4_096,
        ..Default::default()
    })
    .into()
}

/// A good recipe answer.
pub fn recipe(title: &str, recipe: &str) -> Turn {
    answer(&serde_json::json!({"title": title, "recipe": recipe}).to_string())
}

/// An action answer with these actions.
pub fn actions(list: Value) -> Turn {
    answer(&serde_json::json!({"actions": list}).to_string())
}

/// The system message texts of a request.
pub fn system_texts(r: &Recorded) -> Vec<String> {
    r.messages()
        .iter()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect()
}
