//! A local device over the fixture MCP server, an agent pointed at the scripted model, and an
//! event collector.

#![allow(dead_code)]
#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::sync::{Arc, Mutex};
use std::time::Duration;

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{Agent, AgentConfig, ConfirmPolicy, EventSink, NullImages, RunIo};
use deft_protocol::AgentEvent;
use deft_test_support::fixture::{FixtureServer, FixtureState};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher, StaticDevices};

pub const TABLE: &str = r#"
timeouts: {tool_default_secs: 30, grace_secs: 0, batch_secs: 60}
profiles:
  test:
    HostAgent:
      default:
        data_collection:
          - {namespace: fx, type: builtin, name: fixture, tools: [image, pid]}
        action:
          - {namespace: fx, type: builtin, name: fixture, tools: [noop, sleep, fail, select_application_window]}
    AppAgent:
      default:
        action:
          - {namespace: app, type: builtin, name: fixture, tools: [echo]}
"#;

pub struct Setup {
    pub device: Device,
    pub devices: Arc<StaticDevices>,
    pub state: Arc<FixtureState>,
}

pub fn setup() -> Setup {
    let shared = FixtureServer::new();
    let state = shared.state();
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new("fixture", "test tools", move |_| {
        Ok(shared.clone())
    }));
    let table = RoutingTable::parse(TABLE, "agent-test.yaml").unwrap_or_else(|e| panic!("{e}"));
    let dispatcher = Arc::new(LocalDispatcher::new(Arc::new(table), Arc::new(r)));
    let device = Device::new("local", "test", dispatcher);
    let devices = Arc::new(StaticDevices::new(vec![device.clone()]));
    Setup {
        device,
        devices,
        state,
    }
}

impl Setup {
    /// Runs `goal` on this device with an agent on `base_url`, events dropped.
    pub async fn run(
        &self,
        base_url: &str,
        config: AgentConfig,
        goal: &str,
    ) -> deft_agent::RunOutcome {
        agent(base_url, self.devices.clone(), config)
            .run(
                &self.device,
                deft_agent::RunRequest::new(goal),
                io(&Arc::new(Collect::default())),
                Default::default(),
            )
            .await
    }
}

pub fn agent(base_url: &str, devices: Arc<StaticDevices>, config: AgentConfig) -> Agent {
    let mut llm = LlmConfig::new(base_url, "scripted-model", Some("sk-test".into()));
    llm.backoff = Duration::from_millis(5);
    llm.read_timeout = Duration::from_secs(10);
    Agent::new(Arc::new(LlmClient::new(llm).unwrap()), config, devices)
}

pub fn quiet_config() -> AgentConfig {
    AgentConfig {
        confirm: ConfirmPolicy::none(),
        ..AgentConfig::default()
    }
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
    pub fn kinds(&self) -> Vec<&'static str> {
        self.events().iter().map(|e| e.kind.name()).collect()
    }
}

pub fn io(collect: &Arc<Collect>) -> RunIo {
    RunIo {
        events: vec![collect.clone()],
        images: Arc::new(NullImages::default()),
        approver: Arc::new(deft_agent::FixedApproval(false)),
    }
}
