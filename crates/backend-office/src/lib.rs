//! deft's office backend: LibreOffice Writer, Calc and Impress by their own API (UNO), acting on
//! the document of the selected window — the same LibreOffice instance the desktop tools show,
//! so a model mixes GUI and API actions on one document (seed 000 §4.9, UFO's COM executors).
//!
//! - [`OfficeServer`]: the MCP tools, routed under the LibreOffice roots (`libreoffice-writer`,
//!   `libreoffice-calc`, `libreoffice-impress`) with `reset: true`, so each selected window gets
//!   a server bound to its document ([`session`]). Writer: `insert_table`, `select_text`,
//!   `select_table`, `select_paragraph`, `set_font`, `get_document_text`; Calc:
//!   `table2markdown`, `insert_excel_table`, `select_table_range`, `get_range_values`,
//!   `reorder_columns`; Impress: `set_background_color`, `get_slides_text`; all three: `save_as`
//!   (UFO's defaults: .pdf, .csv, .pptx), `save` and `close_document` (the document only,
//!   unsaved changes dropped; LibreOffice stays). Results say what changed; errors are
//!   specific and written for the model (`texts`).
//! - [`Office`]: opening documents for the desktop's `launch_app` — the device session's
//!   LibreOffice ([`instance`]: `soffice.bin` with a private profile and UNO pipe, supervised,
//!   restarted after a crash, killed with deft).
//! - The UNO side is `helper.py` on Debian's `/usr/bin/python3` (the Python with `uno`),
//!   compiled in and written out at run time, spoken to in JSON lines ([`uno`]).
//!
//! ```no_run
//! use deft_backend_office::{OfficeServer, SessionConfig};
//! use rmcp::ServiceExt;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! // Standalone: acts on the active LibreOffice document window that deft started.
//! let server = OfficeServer::new(SessionConfig::default());
//! server.serve(rmcp::transport::stdio()).await?.waiting().await?;
//! # Ok(())
//! # }
//! ```
//!
//! Left to others: which window is selected and its GUI belong to the desktop backend (this
//! crate finds the frame by the window's title and LibreOffice's own frames, never through
//! another backend); routing and outer timeouts belong to `deft-tools`.

#![forbid(unsafe_code)]

mod args;
pub mod binding;
mod carry;
pub mod documents;
mod fonts;
pub mod instance;
pub mod opener;
pub mod place;
mod private;
mod render;
mod saving;
mod server;
pub mod session;
mod texts;
pub mod uno;

pub use carry::{OwnSaves, own_saves};
pub use documents::{DocumentDirs, Kind};
pub use opener::{Office, OfficeConfig, Opened};
pub use server::OfficeServer;
pub use session::SessionConfig;

/// Registry name of this backend (`deft mcp office`, the routing table's `name: office`).
pub const NAME: &str = "office";

/// Builds a server from routing-table options: `binding {process, root}` (set by the tool layer
/// for `reset: true` entries), `display` (only LibreOffice on that display), `document_dirs`
/// (allowed folders, default `~/Documents`), `python` (default `/usr/bin/python3`).
pub fn from_options(options: &serde_json::Value) -> Result<OfficeServer, String> {
    Ok(OfficeServer::new(SessionConfig::from_options(options)?))
}
