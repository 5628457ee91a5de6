//! Fixtures shared by deft's test suites (never shipped in the binary).
//!
//! - [`fixture`]: a real MCP server with test tools (sleep, fail, image, rendezvous, …), usable
//!   in-process, over stdio (the `deft-fixture-mcp` binary) and over HTTP.
//! - [`model`]: a scripted OpenAI-compatible chat server that streams the real SSE wire format.
//! - [`proc`]: locating and running binaries, process-group cleanup, orphan checks.
//! - [`net`]: free loopback ports and waiting for a port to open.
//! - [`web`]: the loopback page server for browser tests (fixture pages in `fixtures/web/`).
//! - [`desktop`]: the GTK3 form app (`fixtures/desktop/`) and running apps with captured output.
//! - [`TempDataDir`]: a temporary deft data folder removed on drop.

pub mod desktop;
pub mod fixture;
pub mod model;
pub mod net;
pub mod proc;
pub mod web;

/// A temporary folder for deft's data (`--data-dir`), removed when dropped.
pub struct TempDataDir(tempfile::TempDir);

impl TempDataDir {
    /// A fresh empty folder.
    pub fn new() -> std::io::Result<Self> {
        tempfile::Builder::new()
            .prefix("deft-test-data-")
            .tempdir()
            .map(TempDataDir)
    }

    /// Its path.
    pub fn path(&self) -> &std::path::Path {
        self.0.path()
    }
}
