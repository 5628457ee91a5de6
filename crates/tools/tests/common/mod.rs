//! Shared set-up: a routing table over the fixture server, in-process, stdio and HTTP.

#![allow(dead_code)]

use std::sync::Arc;

use deft_protocol::{Command, ToolType};
use deft_test_support::fixture::{FixtureServer, FixtureState};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{ExecContext, LocalDispatcher};
use serde_json::{Value, json};

/// A registry with `fixture` (one shared instance whose counters the test can read) and
/// `fresh` (a new instance every time one is started).
pub fn registry() -> (Arc<BuiltinRegistry>, Arc<FixtureState>) {
    let shared = FixtureServer::new();
    let state = shared.state();
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new("fixture", "test tools", move |_| {
        Ok(shared.clone())
    }));
    r.register(Builtin::new(
        "fresh",
        "test tools, new instance per start",
        |options| Ok(FixtureServer::with_options(options)),
    ));
    r.register(Builtin::new("broken", "never starts", |_| {
        Err::<FixtureServer, _>("no display is reachable (DISPLAY is not set)".to_owned())
    }));
    (Arc::new(r), state)
}

/// The standard test table; `extra_action` is spliced into HostAgent's default action list.
pub fn table_yaml(extra_action: &str) -> String {
    format!(
        r#"
timeouts: {{tool_default_secs: 30, grace_secs: 0, batch_secs: 60}}
profiles:
  test:
    HostAgent:
      default:
        data_collection:
          - {{namespace: fx, type: builtin, name: fixture, tools: [pid, instance, echo, image]}}
        action:
          - {{namespace: fx, type: builtin, name: fixture, tools: [noop, sleep, block, fail, rendezvous], timeouts: {{block: 0.3}}}}
{extra_action}
    AppAgent:
      default:
        action:
          - {{namespace: fresh, type: builtin, name: fresh, reset: true}}
      shared:
        action:
          - {{namespace: fx, type: builtin, name: fixture}}
"#
    )
}

pub fn dispatcher(yaml: &str) -> (LocalDispatcher, Arc<FixtureState>) {
    let (builtins, state) = registry();
    let table = RoutingTable::parse(yaml, "test.yaml").unwrap_or_else(|e| panic!("{e}"));
    (LocalDispatcher::new(Arc::new(table), builtins), state)
}

pub fn ctx() -> ExecContext {
    ExecContext::new("local", "test")
}

pub fn cmd(tool: &str, args: Value) -> Command {
    Command::new(tool, None, args)
}

pub fn act(tool: &str, args: Value) -> Command {
    Command::new(tool, Some(ToolType::Action), args)
}

pub fn noop() -> Command {
    act("noop", json!({}))
}
