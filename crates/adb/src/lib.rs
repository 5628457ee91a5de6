//! deft's own adb client and the codec of adb's wires.
//!
//! - [`AdbClient`] (`client`): the host side of the adb server's smart-socket protocol — version,
//!   devices (`host:devices-l`), connect/disconnect, shell commands with exit codes (shell v2),
//!   `exec-out` bytes, `pull` through `sync:`. When no server answers it starts one once with
//!   `adb start-server` (the only time it runs `adb`). A command cut off says whether the server
//!   went away ([`AdbError::ServerGone`]) or the phone did ([`AdbError::PhoneDisconnected`]).
//! - [`Device`] (`devices`): a line of the device list, and [`Device::state_advice`], what a
//!   person does about each state but `device`.
//! - [`DeviceTracker`] (`track`): [`AdbClient::track_devices`], the device list as it changes
//!   (`host:track-devices-l`), its outages, reconnecting with a bounded backoff.
//! - [`PhoneDetails`] (`details`): [`AdbClient::details`], a phone's model, Android version and
//!   SDK level in one shell round trip.
//! - [`wire`]: the transport header, shell-v2 packets and sync frames — shared with the device
//!   double in `deft-test-support`, which speaks adbd's side to a real adb server.
//! - [`quote_command`]: an argv as one command line for the device's `sh -c`.
//! - [`AdbError`]: typed errors whose texts (`texts`) say what to do next.

#![forbid(unsafe_code)]

mod client;
mod details;
mod devices;
mod error;
mod quote;
mod socket;
mod start;
mod texts;
mod track;
pub mod wire;

pub use client::{AdbClient, DEFAULT_PORT, DEFAULT_TIMEOUT, ShellOutput};
pub use details::PhoneDetails;
pub use devices::{Device, parse_devices_l};
pub use error::AdbError;
pub use quote::quote_command;
pub use socket::MAX_REQUEST;
pub use track::{DeviceTracker, TrackEvent};
