//! The server instances of one device session. Non-reset servers are shared by every Computer of
//! the session (keyed by their spec); `reset: true` servers get a fresh instance per process.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::builtin::BuiltinRegistry;
use crate::server::ServerHandle;
use crate::table::ServerSpec;

/// Server instances of one device session.
pub struct ServerPool {
    builtins: Arc<BuiltinRegistry>,
    instances: Mutex<HashMap<String, Arc<ServerHandle>>>,
}

impl ServerPool {
    /// An empty pool that starts builtins from `builtins`.
    pub fn new(builtins: Arc<BuiltinRegistry>) -> Self {
        ServerPool {
            builtins,
            instances: Mutex::new(HashMap::new()),
        }
    }

    /// The instance for `spec` as used by a Computer bound to `process` of `root`. A `reset`
    /// instance is told what it serves ([`ServerSpec::bound_to`]).
    pub fn get(&self, spec: &ServerSpec, process: &str, root: &str) -> Arc<ServerHandle> {
        let mut key = spec.instance_key();
        if spec.reset {
            key = format!("{key}::process={process}");
        }
        let mut instances = self.instances.lock();
        instances
            .entry(key)
            .or_insert_with(|| {
                let spec = if spec.reset {
                    spec.bound_to(process, root)
                } else {
                    spec.clone()
                };
                Arc::new(ServerHandle::new(spec, self.builtins.clone()))
            })
            .clone()
    }

    /// How many instances exist (for tests and diagnostics).
    pub fn len(&self) -> usize {
        self.instances.lock().len()
    }

    /// True when no instance exists.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
