//! deft's shell backend: an MCP tool server that lets a model inspect this machine.
//!
//! Two tools:
//!
//! - `run_shell(command, timeout?, cwd?)` runs **one allow-listed program** with its arguments.
//!   No shell is ever involved: the raw text is scanned for shell syntax (`;`, `|`, `&`, `$(`, …),
//!   split into words as a POSIX shell would, and the program must be a bare name on the
//!   allow-list ([`ShellPolicy`]), found on `PATH`, with arguments its rule accepts (no
//!   `find -exec`, only `python3 --version`, …). The program runs in its own process group with
//!   stdin closed, capped output ([`OUTPUT_CAP`] per stream) and a time limit of at most 120 s,
//!   declared in the tool's `_meta` under [`deft_protocol::TIMEOUT_META_KEY`]; on timeout or
//!   cancellation the whole group is killed. The result is structured:
//!   `{exit_code, stdout, stderr, timed_out, truncated}` ([`ShellOutput`]).
//! - `get_system_info()` reads OS, kernel, CPUs, load, memory, root disk and user from `/proc`,
//!   `/etc` and system calls ([`SystemInfo`]).
//!
//! Every refusal and error is a tool error whose text is written for the model: what was refused
//! and what is allowed. Those texts live in one module (`texts`).
//!
//! ```no_run
//! use deft_backend_shell::{ShellPolicy, ShellServer};
//! use rmcp::ServiceExt;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let policy = ShellPolicy::from_options(&serde_json::json!({ "allow": ["git"] }))?;
//! for program in policy.added() {
//!     eprintln!("warning: the shell allow-list was widened with {program}");
//! }
//! // Standalone over stdio, as `deft mcp shell` does; in-process, serve one half of a duplex.
//! ShellServer::new(policy).serve(rmcp::transport::stdio()).await?.waiting().await?;
//! # Ok(())
//! # }
//! ```
//!
//! Left to others: routing (which profile gets this server, under which agent) and the tool
//! call's outer timeout belong to `deft-tools`; warning about a widened allow-list belongs to the
//! caller; this crate knows nothing of other backends, the agent or the device link.

#![forbid(unsafe_code)]

pub mod exec;
mod getopt;
pub mod guard;
pub mod limits;
pub mod option_rules;
pub mod output;
pub mod policy;
mod ps_args;
mod server;
pub mod sysinfo;
mod texts;

pub use exec::{DEFAULT_TIMEOUT_SECS, ExecError, Execution, MAX_TIMEOUT_SECS, OUTPUT_CAP};
pub use guard::{Blocked, Guard};
pub use limits::{DEFAULT_MAX_PROCESSES, DEFAULT_MEMORY_MIB, Limits};
pub use output::ShellOutput;
pub use policy::{ArgRule, Refusal, RefusalReason, ShellPolicy};
pub use server::{RunShellParams, ShellServer};
pub use sysinfo::{DiskUsage, SystemInfo};

/// Registry name of this backend (`deft mcp shell`, the routing table's `name: shell`).
pub const NAME: &str = "shell";
