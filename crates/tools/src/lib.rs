//! deft's tool layer: from a Command to a real tool server and back.
//!
//! ```text
//! DeviceSession::call(call)                   session.rs     one recorded tool call (step events)
//! Dispatcher::execute(ctx, commands)          dispatcher.rs  (LocalDispatcher; the link adds Remote)
//!   CommandRouter::execute(batch, commands)   router.rs      early exit, one Result per Command
//!     ComputerManager::get_or_create(a, p, r) manager.rs     one Computer per agent::process::root
//!       Computer::run(command)                computer.rs    registry "tool_type::tool_name", list_tools
//!         ServerHandle::call(tool, args)      server.rs      MCP client: builtin | stdio | HTTP
//! ```
//!
//! Which servers a Computer gets comes from the [`table::RoutingTable`] (YAML). Server instances
//! live in a [`pool::ServerPool`] per device session. Builtin servers are registered by name in a
//! [`builtin::BuiltinRegistry`]; [`host`] serves one to outside MCP clients.
//!
//! The programs a device starts get the device's environment without deft's secrets
//! ([`device_env::apply`]; [`secrets::scrub_env`] alone for programs that are not a device's).
//!
//! This crate knows nothing about models, the console or the device link. Texts written for the
//! model live in [`texts`].
//!
//! ```no_run
//! # async fn demo(builtins: deft_tools::builtin::BuiltinRegistry) {
//! use std::sync::Arc;
//! use deft_protocol::{Command, ToolType};
//! use deft_tools::{Dispatcher, ExecContext, LocalDispatcher, table::RoutingTable};
//! let dispatcher = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(builtins));
//! let ctx = ExecContext::new("local", "shell");
//! let cmd = Command::new("run_shell", Some(ToolType::Action), serde_json::json!({"command": "uname -a"}));
//! let results = dispatcher.execute(&ctx, vec![cmd]).await;
//! assert_eq!(results.len(), 1);
//! # }
//! ```

#![forbid(unsafe_code)]

pub mod authority;
pub mod builtin;
mod child;
pub mod computer;
pub mod device_env;
pub mod devices;
pub mod dispatcher;
pub mod emitter;
pub mod host;
pub mod manager;
pub mod pool;
pub mod router;
pub mod secrets;
pub mod selection;
pub mod server;
pub mod session;
pub mod table;
pub mod texts;

pub use computer::Computer;
pub use devices::{Device, Devices, StaticDevices};
pub use dispatcher::{Dispatcher, ExecContext, LocalDispatcher};
pub use manager::ComputerManager;
pub use router::CommandRouter;
pub use selection::AppSelection;
