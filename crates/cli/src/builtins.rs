//! The builtin tool servers this binary carries, by name.

use std::sync::Arc;

use deft_backend_shell::{ShellPolicy, ShellServer};
use deft_tools::builtin::{Builtin, BuiltinRegistry};

/// Every builtin server: `shell` (later: desktop, browser, …).
pub fn registry() -> Arc<BuiltinRegistry> {
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new(
        deft_backend_shell::NAME,
        "allow-listed shell commands (no shell) and system information",
        |options| {
            let policy = ShellPolicy::from_options(options)?;
            if !policy.added().is_empty() {
                tracing::warn!(
                    "the shell allow-list is widened by configuration with: {}",
                    policy.added().join(", ")
                );
            }
            Ok(ShellServer::new(policy))
        },
    ));
    Arc::new(r)
}
