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

/// `since_epoch` as ISO-8601 UTC with milliseconds.
pub fn iso8601(since_epoch: Duration) -> String {
    let secs = since_epoch.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since_epoch.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn iso8601_dates() {
        use std::time::Duration;
        assert_eq!(super::iso8601(Duration::ZERO), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            super::iso8601(Duration::from_millis(1_709_251_199_123)),
            "2024-02-29T23:59:59.123Z"
        );
    }
}
