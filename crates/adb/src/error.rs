//! [`AdbError`]: what can go wrong talking to the adb server or a device; its Display is the
//! text from [`crate::texts`], written for whoever reads it.

use crate::texts;
use crate::wire::WireError;

/// An error of the adb client.
#[derive(Debug, thiserror::Error)]
pub enum AdbError {
    /// `ANDROID_ADB_SERVER_PORT` is not a port number.
    #[error("{}", texts::bad_port(.0))]
    BadPort(String),
    /// No server answers and `adb` is not installed.
    #[error("{}", texts::not_installed(*.0))]
    NotInstalled(u16),
    /// No server answers and `adb start-server` did not start one.
    #[error("{}", texts::start_failed(*port, detail))]
    StartFailed {
        /// The server port.
        port: u16,
        /// What went wrong.
        detail: String,
    },
    /// The connection to the server failed.
    #[error("{}", texts::io(*port, what, &source.to_string()))]
    Io {
        /// The server port.
        port: u16,
        /// What the client was doing.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A call took longer than the client's limit.
    #[error("{}", texts::timeout(what, *secs))]
    Timeout {
        /// The call.
        what: String,
        /// The limit in seconds.
        secs: u64,
    },
    /// The server answered outside the protocol.
    #[error("{}", texts::protocol(*port, detail))]
    Protocol {
        /// The server port.
        port: u16,
        /// What was wrong.
        detail: String,
    },
    /// A message broke the codec's rules.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// The server answered `FAIL` (its message passed through).
    #[error("{}", texts::failed(request, message))]
    Failed {
        /// The request.
        request: String,
        /// The server's message.
        message: String,
    },
    /// No connected device has this serial.
    #[error("{}", texts::device_not_found(.0))]
    DeviceNotFound(String),
    /// The device is offline, unauthorized, or otherwise not usable.
    #[error("{}", texts::device_state(serial, state))]
    DeviceState {
        /// The serial.
        serial: String,
        /// Its state (`offline`, `unauthorized`, …).
        state: String,
    },
    /// The device refused to open the service.
    #[error("{}", texts::service_refused(serial, service))]
    ServiceRefused {
        /// The serial.
        serial: String,
        /// The service.
        service: String,
    },
    /// `adb connect` failed (the server's text).
    #[error("{}", texts::connect_failed(target, message))]
    ConnectFailed {
        /// `HOST:PORT`.
        target: String,
        /// The server's text.
        message: String,
    },
    /// A command's stream ended before its exit status while the server still answers: the
    /// phone went away (unplugged, its connection dropped); the command may have run.
    #[error("{}", texts::phone_disconnected(serial, command))]
    PhoneDisconnected {
        /// The serial.
        serial: String,
        /// The command.
        command: String,
    },
    /// The adb server went away (killed, crashed) while a command ran on a device; the command
    /// may or may not have run.
    #[error("{}", texts::server_gone(*port, serial, command))]
    ServerGone {
        /// The server port.
        port: u16,
        /// The serial.
        serial: String,
        /// The command.
        command: String,
    },
    /// The connection that followed the device list closed: the server stopped.
    #[error("{}", texts::server_stopped(*.0))]
    ServerStopped(u16),
    /// `getprop` failed on the device.
    #[error("{}", texts::properties_failed(serial, *exit_code, stderr))]
    PropertiesFailed {
        /// The serial.
        serial: String,
        /// The exit status.
        exit_code: u8,
        /// What it printed on stderr.
        stderr: String,
    },
    /// A pull answered `FAIL`.
    #[error("{}", texts::pull_failed(serial, path, message))]
    PullFailed {
        /// The serial.
        serial: String,
        /// The path on the device.
        path: String,
        /// The device's message.
        message: String,
    },
    /// A push answered `FAIL` (or its answer never came).
    #[error("{}", texts::push_failed(serial, path, message))]
    PushFailed {
        /// The serial.
        serial: String,
        /// The path on the device.
        path: String,
        /// The device's message.
        message: String,
    },
    /// An argument holds a NUL byte (its index in the argv).
    #[error("{}", texts::nul_in_argument(*.0))]
    NulInArgument(usize),
}

/// The error for a `FAIL` answer to `request` on a device `serial` (if the request was for one):
/// the states and refusals the server reports in words get their own errors.
pub(crate) fn from_fail(request: &str, serial: Option<&str>, message: String) -> AdbError {
    let serial_text = serial.unwrap_or_default().to_owned();
    if message.starts_with("device '") && message.ends_with("' not found")
        || message == "device not found"
        || message.starts_with("no devices/emulators found")
    {
        return AdbError::DeviceNotFound(serial_text);
    }
    for state in [
        "offline",
        "unauthorized",
        "still authorizing",
        "still connecting",
    ] {
        if message.starts_with(&format!("device {state}")) {
            return AdbError::DeviceState {
                serial: serial_text,
                state: state.to_owned(),
            };
        }
    }
    if message == "closed" && serial.is_some() {
        return AdbError::ServiceRefused {
            serial: serial_text,
            service: request.to_owned(),
        };
    }
    AdbError::Failed {
        request: request.to_owned(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_messages_become_their_errors() {
        let not_found = from_fail(
            "host:tport:serial:x",
            Some("x"),
            "device 'x' not found".into(),
        );
        assert!(matches!(not_found, AdbError::DeviceNotFound(ref s) if s == "x"));
        let unauthorized = from_fail(
            "host:tport:serial:x",
            Some("x"),
            "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set".into(),
        );
        assert!(
            matches!(unauthorized, AdbError::DeviceState { ref state, .. } if state == "unauthorized")
        );
        let offline = from_fail("host:tport:serial:x", Some("x"), "device offline".into());
        assert_eq!(
            offline.to_string(),
            "device 'x' is offline: reconnect it (unplug and plug in the cable, or run `adb \
             reconnect`; a network phone: `adb connect HOST:PORT` again); if it stays offline, \
             restart the phone"
        );
        let refused = from_fail("jdwp:1", Some("x"), "closed".into());
        assert!(
            matches!(refused, AdbError::ServiceRefused { ref service, .. } if service == "jdwp:1")
        );
        let other = from_fail("host:nope", None, "unknown host service".into());
        assert_eq!(
            other.to_string(),
            "the adb server refused `host:nope`: unknown host service"
        );
    }
}
