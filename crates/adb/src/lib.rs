//! deft's own adb client and the codec of adb's wires.
//!
//! - [`AdbClient`] (`client`): the host side of the adb server's smart-socket protocol — version,
//!   devices (`host:devices-l`), connect/disconnect, shell commands with exit codes (shell v2),
//!   `exec-out` bytes, `pull` through `sync:`. When no server answers it starts one once with
//!   `adb start-server` (the only time it runs `adb`).
//! - [`wire`]: the transport header, shell-v2 packets and sync frames — shared with the device
//!   double in `deft-test-support`, which speaks adbd's side to a real adb server.
//! - [`quote_command`]: an argv as one command line for the device's `sh -c`.
//! - [`AdbError`]: typed errors whose texts (`texts`) say what to do next.

#![forbid(unsafe_code)]

mod client;
mod devices;
mod error;
mod quote;
mod socket;
mod start;
mod texts;
pub mod wire;

pub use client::{AdbClient, DEFAULT_PORT, DEFAULT_TIMEOUT, ShellOutput};
pub use devices::{Device, parse_devices_l};
pub use error::AdbError;
pub use quote::quote_command;
