//! The in-process devices of the fleet benchmarks: `deft client`s as `DeviceClient`s whose
//! tools are the fixture MCP server.

use std::sync::Arc;

use deft_link::ClientConfig;
use deft_test_support::fixture::FixtureServer;
use deft_tools::LocalDispatcher;
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use serde_json::json;

use super::support::DEVICE_TOKEN;

/// The devices' dispatcher: the in-process fixture MCP server.
pub fn dispatcher() -> Arc<LocalDispatcher> {
    let yaml = "profiles:\n  shell:\n    HostAgent:\n      default:\n        action:\n          - {namespace: fixture, type: builtin, name: fixture}\n";
    let table = RoutingTable::parse(yaml, "bench.yaml").unwrap();
    let mut registry = BuiltinRegistry::new();
    registry.register(Builtin::new("fixture", "bench", |_| {
        Ok(FixtureServer::new())
    }));
    Arc::new(LocalDispatcher::new(Arc::new(table), Arc::new(registry)))
}

/// Device `id` at `url` (a server's `/ws`), registering as a `deft client` would.
pub fn device(url: &str, id: &str, hostname: &str) -> ClientConfig {
    let mut config = ClientConfig::new(url, DEVICE_TOKEN, id, "shell");
    config.metadata = json!({
        "platform": "linux",
        "profile": "shell",
        "tools": ["fixture"],
        "system_info": {"os": "Debian GNU/Linux 13", "cpus": 2, "hostname": hostname},
    });
    config
}
