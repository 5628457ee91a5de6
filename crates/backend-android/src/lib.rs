//! deft's Android backend: a phone seen through `uiautomator dump` and driven through the adb
//! server, serving the same tool contract as the desktop and browser backends.
//!
//! - [`ui_tree`]: a dump read into a tree of views (tolerant of the dialects real phones and
//!   tools write: with or without `<hierarchy>`, pretty-printed, extra attributes, the
//!   `/dev/tty` trailer);
//! - [`controls`]: the views a model sees as controls of deft's listing (types, names, values,
//!   states, rects), layout containers left out; [`ids`]: their ids, held across dumps;
//! - [`focus`]: the foreground app and window from `dumpsys window`; [`device`]: the screen's
//!   size and power, the installed packages;
//! - [`clipboard`]: the clipboard through a helper run as the shell user (devicekit);
//! - [`ime`]: typing any Unicode (ADBKeyBoard's broadcast where `input text` cannot);
//! - [`input`]: taps, swipes, key events and text as the phone's `input` commands;
//! - [`phone`]: one phone through the adb server (deft-adb): its screen, focus, input,
//!   screenshot, screen power and apps, every command's output checked;
//! - [`session`]: one phone's session — screens read, ids held, the model's last listing, the
//!   effect check after an action; [`apps`]: which package a label means;
//! - [`shot`]: annotated screenshots (the shared set-of-marks drawn on `screencap`'s PNG);
//! - [`config`]: which phone (`serial`, else the only one) of which adb server;
//! - [`server`]: the MCP tool server ([`server::AndroidServer`], `deft mcp android`); [`error`]:
//!   what a tool call fails with;
//! - [`texts`]: what the backend says to the model, each text once, tested verbatim.

#![forbid(unsafe_code)]

pub mod apps;
pub mod clipboard;
pub mod config;
pub mod controls;
pub mod device;
pub mod error;
pub mod focus;
pub mod ids;
pub mod ime;
pub mod input;
pub mod phone;
pub mod server;
pub mod session;
pub mod shot;
pub mod texts;
pub mod ui_tree;

pub use config::AndroidConfig;
pub use server::AndroidServer;

/// The builtin server's name (`deft mcp android`, the routing table's `builtin: android`).
pub const NAME: &str = "android";
