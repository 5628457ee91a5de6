//! deft's device link: the Remote dispatcher and the device client loop over WebSocket.
//!
//! The brain runs on a server; the hands run on each device. A device runs `deft client`
//! ([`client::DeviceClient`]): it connects out to the server's `/ws`, registers, heartbeats, and
//! executes `command` batches through its own local tool layer (any [`deft_tools::Dispatcher`],
//! in practice a `LocalDispatcher` over its own routing table). On the server, each connected
//! device gets a [`remote::RemoteDispatcher`] — the same interface as the local dispatcher — that
//! turns a batch into a `command` message and waits for its `command_results`.
//!
//! ```no_run
//! # async fn demo(local: std::sync::Arc<dyn deft_tools::Dispatcher>) -> Result<(), deft_link::client::ClientError> {
//! use deft_link::client::{ClientConfig, DeviceClient};
//! let url = deft_link::address::device_url("http://127.0.0.1:8030").expect("address");
//! let client = DeviceClient::new(ClientConfig::new(&url, "device-token", "pc1", "shell"), local);
//! client.run(tokio_util::sync::CancellationToken::new()).await
//! # }
//! ```
//!
//! Messages are `deft_protocol::link`'s AIP types. This crate runs no tools itself (the client's
//! dispatcher does), and knows nothing of HTTP routes, tokens storage or the device registry:
//! `deft-server` accepts the connections, checks tokens and keeps the registry.

#![forbid(unsafe_code)]

pub mod address;
pub mod client;
pub mod close;
pub mod remote;
pub mod texts;

pub use client::{ClientConfig, ClientError, ClientStatus, DeviceClient};
pub use remote::{RemoteDispatcher, Resolution};

use std::time::Duration;

/// Largest message either side accepts (64 MiB): screenshots of several MB pass, a 1 GB frame
/// is refused.
pub const MAX_MESSAGE_SIZE: usize = 64 << 20;

/// How long after a `cancel` the client waits for its tool layer's own per-command answer
/// before answering with the stop text itself.
pub const CLIENT_STOP_WAIT: Duration = Duration::from_millis(1000);

/// The current time as ISO-8601 UTC with milliseconds (`2026-01-02T03:04:05.678Z`).
pub fn now_iso8601() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    iso8601(now)
}

pub use deft_protocol::time::iso8601;
