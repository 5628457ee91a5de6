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
//! - [`input`]: taps, swipes, key events and text as the phone's `input` commands;
//! - [`phone`]: one phone through the adb server (deft-adb): its screen, focus, input,
//!   screenshot, screen power and apps, every command's output checked;
//! - [`texts`]: what the backend says to the model, each text once, tested verbatim.

#![forbid(unsafe_code)]

pub mod controls;
pub mod device;
pub mod focus;
pub mod ids;
pub mod input;
pub mod phone;
pub mod texts;
pub mod ui_tree;
