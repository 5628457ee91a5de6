//! deft's Linux desktop backend: an MCP tool server that lets a model operate real desktop
//! applications through the accessibility tree (AT-SPI over D-Bus), real input (XTest) and
//! screenshots, plus the managed virtual desktop those applications run on.
//!
//! - Collection: `get_desktop_app_info`, `get_app_window_controls_info` (the listing of
//!   docs/observation.md, rendered by `deft_protocol::observation`), `capture_window_screenshot`
//!   (optionally annotated with control ids), `capture_desktop_screenshot`, `get_ui_tree`,
//!   `find_controls` (the listing's controls matched by a `deft_protocol::selector`) and
//!   `wait_for_control` (the same match, again on each AT-SPI event of the window's
//!   application, until it picks a control or none).
//! - Host actions: `select_application_window`, `launch_app` (a document or an application
//!   that opens documents itself, such as LibreOffice, goes to the [`DocumentOpener`] set with
//!   [`DesktopServer::with_documents`]), `close_app` (its windows closed through the window
//!   manager, then what is left of its processes ended).
//! - The clipboard (`set_clipboard`, `get_clipboard`): the X `CLIPBOARD` selection, owned and
//!   served by a thread of the device session after a set, read from whoever owns it.
//! - App actions: `click_input`, `click_on_coordinates`, `drag_on_coordinates`, `set_edit_text`,
//!   `keyboard_input` (the key syntax of `deft_protocol::keys`), `wheel_mouse_input`, `texts`,
//!   `select_option`, `wait`, `summary`. Every action result carries `effect: changed |
//!   no_change`, from a digest of the window's tree taken before and after the action, once
//!   AT-SPI events have been quiet for a moment (capped at 1 s).
//! - [`vdesktop`]: `deft desktop start|stop|status` — a private Xvfb, D-Bus session, AT-SPI bus and
//!   openbox with their own HOME, in one process group, recorded in a state file.
//!
//! A window's root is its executable's basename; LibreOffice's windows (one `soffice.bin`
//! for all) are named by their `WM_CLASS`: `libreoffice-writer`, `libreoffice-calc`,
//! `libreoffice-impress`, so the routing table gives each its own tools.
//!
//! Window and control ids are unique in the server instance (one per device session) and never
//! reused; a control keeps its id while its accessible object exists.
//!
//! ```no_run
//! use deft_backend_desktop::{DesktopServer, DesktopTarget, LaunchPolicy, vdesktop};
//! use rmcp::ServiceExt;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let data = std::path::Path::new("/tmp/deft-data");
//! let (state, _started) =
//!     vdesktop::start(&vdesktop::state_path(data), &data.join(vdesktop::WORK_DIR)).await?;
//! let server = DesktopServer::new(DesktopTarget::from_state(&state), LaunchPolicy::default());
//! server.serve(rmcp::transport::stdio()).await?.waiting().await?;
//! # Ok(())
//! # }
//! ```
//!
//! Left to others: routing (which profile and agent get which of these tools) and outer timeouts
//! belong to `deft-tools`; printing belongs to the CLI; this crate knows nothing of other
//! backends, the agent or the device link.

#![forbid(unsafe_code)]

mod a11y;
mod big;
mod clipboard;
mod close;
mod describe;
mod documents;
mod error;
mod events;
mod keys;
mod launch;
mod launched;
mod options;
mod proc;
mod server;
mod session;
mod target;
mod texts;
mod ui_tree;
pub mod vdesktop;
mod walk;
mod x11;

pub use deft_protocol::marks::read_label;
pub use documents::{DocumentOpener, OpenedWindow};
pub use launch::LaunchPolicy;
pub use server::DesktopServer;
pub use target::DesktopTarget;
pub use x11::RgbImage;

/// Registry name of this backend (`deft mcp desktop`, the routing table's `name: desktop`).
pub const NAME: &str = "desktop";

/// Builds a server from routing-table options: `state_file` (the managed desktop's state file;
/// default `$DEFT_DATA_DIR/desktop.json`, else `$XDG_DATA_HOME/deft/desktop.json`,
/// else `~/.local/share/deft/desktop.json`) and `launch_allow`. Fails with a clear text when no
/// desktop is reachable, so the tool layer leaves the tools out with that warning.
pub fn from_options(options: &serde_json::Value) -> Result<DesktopServer, String> {
    let state_file = options
        .get("state_file")
        .and_then(|v| v.as_str())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(target::default_state_file);
    let target = DesktopTarget::resolve(&state_file)?;
    let launch = LaunchPolicy::from_options(options)?;
    Ok(DesktopServer::new(target, launch))
}
