//! deft's browser backend: Chromium over the DevTools protocol (CDP) as an MCP tool server.
//!
//! Tabs are the windows of the `browser` device; their controls come from the page's DOM (through
//! same- and cross-origin iframes and open shadow roots) in the compact listing of
//! `docs/observation.md`, with ids unique in the device session. Actions are real input events
//! (`isTrusted`) at the element's centre after scrolling it into view, followed by event-driven
//! settling (no XHR/fetch in flight and the DOM quiet for 20 ms, capped), and report
//! `effect: changed | no_change`.
//!
//! ```no_run
//! use deft_backend_browser::{BrowserConfig, BrowserServer};
//! use rmcp::ServiceExt;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! // Starts Debian's Chromium headless at the first tool call, stops it on drop.
//! let config = BrowserConfig::from_options(&serde_json::json!({"allowed_domains": ["127.0.0.1"]}))?;
//! BrowserServer::new(config).serve(rmcp::transport::stdio()).await?.waiting().await?;
//! # Ok(())
//! # }
//! ```
//!
//! Public: [`BrowserServer`] (the tools) and its [`BrowserConfig`] (the routing-table options,
//! with the [`UrlPolicy`]), the [`Browser`] it starts (its process group, stopping it),
//! [`launch`] (find Chromium, start one: [`ChromiumProcess`]), the errors ([`BrowserError`],
//! [`LaunchError`], [`CdpError`], [`UrlRefused`]) and [`texts`] (every text the model reads,
//! tested verbatim).
//!
//! Inside: `cdp` (a lean CDP client over one WebSocket), `browser` (tabs, frames, dialogs,
//! settling, listings and the id maps, one module per concern; browser events as a pure
//! `State::apply`), `input` (trusted mouse and key events), `keys` (CDP names for the shared key
//! syntax), `policy` (allowed URLs, hosts compared in one canonical form; while a domain list is
//! set every request of every tab, frame and worker is checked, WebSockets included), `upload` (which files a file input may receive: absolute
//! paths of existing files inside the downloads folder, the system temp folder or
//! `upload_dirs`; file choosers are intercepted, never shown), `screenshot`, `text`
//! (`get_page_text`), the page agent (`agent.js`, evaluated in each document) and `server`.
//! Left to others: which agent sees which tools (the routing table in deft-tools), the outer
//! time limits, and the device wiring (the CLI).

mod browser;
mod cdp;
mod input;
mod keys;
pub mod launch;
mod policy;
mod screenshot;
mod server;
mod text;
pub mod texts;
mod upload;

pub use browser::{Browser, BrowserConfig, BrowserError};
pub use cdp::CdpError;
pub use launch::{ChromiumProcess, LaunchError};
pub use policy::{UrlPolicy, UrlRefused};
pub use server::BrowserServer;

/// Registry name of this backend (`deft mcp browser`, the routing table's `name: browser`).
pub const NAME: &str = "browser";
