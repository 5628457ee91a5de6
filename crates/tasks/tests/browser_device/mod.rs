//! The `browser` device of the runner's browser tests: headless Chromium over CDP behind the
//! real tool layer with the built-in routing table's `browser` profile, and the loopback page
//! server its pages come from.

#![allow(dead_code)] // each test file uses some of the helpers

use std::sync::Arc;

use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher};

/// The `browser` device (a Chromium of its own, started at its first call).
pub fn browser_device() -> Device {
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new(deft_backend_shell::NAME, "shell", |o| {
        deft_backend_shell::ShellPolicy::from_options(o).map(deft_backend_shell::ShellServer::new)
    }));
    r.register(Builtin::new(deft_backend_browser::NAME, "browser", |o| {
        deft_backend_browser::BrowserConfig::from_options(o)
            .map(deft_backend_browser::BrowserServer::new)
    }));
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(r));
    Device::new("browser", "browser", Arc::new(d))
}

/// A page server, once Chromium is known to be there (tests never skip).
pub async fn pages() -> deft_test_support::web::PageServer {
    if let Err(e) = deft_backend_browser::launch::find_chromium(None) {
        panic!("{e} (scripts/test.sh installs it)");
    }
    deft_test_support::web::PageServer::start()
        .await
        .expect("page server")
}
