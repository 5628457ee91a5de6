//! Fixtures shared by deft's test suites (never shipped in the binary).
//!
//! - [`adb_double`]: a device double that speaks adbd's protocol to the real adb server, and a
//!   private adb server with doubles connected (`AdbHarness`).
//! - [`fixture`]: a real MCP server with test tools (sleep, fail, image, rendezvous, …), usable
//!   in-process, over stdio (the `deft-fixture-mcp` binary) and over HTTP.
//! - [`dataflow`]: the dataflow pipeline's workspace (config, templates, tasks) and stage words.
//! - [`model`]: a scripted OpenAI-compatible chat server that streams the real SSE wire format.
//! - [`proc`]: locating and running binaries, process-group cleanup, orphan checks.
//! - [`net`]: free loopback ports and waiting for a port to open.
//! - [`web`]: the loopback page server for browser tests (fixture pages in `fixtures/web/`).
//! - [`desktop`]: the GTK3 form app (`fixtures/desktop/`) and running apps with captured output.
//! - [`office`]: documents made and read back by LibreOffice on its own (headless, a separate
//!   profile), PDF text and fonts with poppler.
//! - [`postgres`]: scratch databases on the test PostgreSQL, dropped afterwards.
//! - [`TempDataDir`]: a temporary deft data folder removed on drop.
//! - [`repo_root`] and [`interop_python`]: the checkout, and the Python with the official MCP
//!   SDK that the interop tests drive deft with.

#![forbid(unsafe_code)]

pub mod adb_double;
pub mod dataflow;
pub mod desktop;
pub mod fixture;
pub mod model;
pub mod net;
pub mod office;
pub mod postgres;
pub mod proc;
pub mod web;

/// The root of the checkout (scripts and fixtures live below it).
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python that has the official MCP SDK: `DEFT_TEST_PYTHON`, else the project venv that
/// `scripts/test.sh` creates. Panics with what to do when it is missing.
pub fn interop_python() -> std::path::PathBuf {
    let python = std::env::var_os("DEFT_TEST_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "{} is missing: scripts/test.sh creates the project venv with the Python MCP SDK",
        python.display()
    );
    python
}

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
