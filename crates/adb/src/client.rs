//! [`AdbClient`]: the host side of the adb server's protocol — the server's version, the device
//! list, `connect`/`disconnect`, shell commands with their exit status (shell v2), raw
//! `exec-out` bytes and `pull` through `sync:`. Every call has the client's time limit.

use std::ffi::OsString;
use std::future::Future;
use std::time::Duration;

use tokio::net::TcpStream;

use crate::devices::{Device, parse_devices_l};
use crate::error::AdbError;
use crate::socket::HostSocket;
use crate::start::{find_adb, start_server};
use crate::texts;
use crate::wire::{shell, sync};

/// The adb server's default port.
pub const DEFAULT_PORT: u16 = 5037;
/// The default limit of one call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long asking whether the server still answers may take, after a command's stream ended.
const PROBE_LIMIT: Duration = Duration::from_secs(5);

/// What a shell command printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOutput {
    /// Its stdout.
    pub stdout: Vec<u8>,
    /// Its stderr.
    pub stderr: Vec<u8>,
    /// Its exit status.
    pub exit_code: u8,
}

/// A client of the adb server on 127.0.0.1.
#[derive(Debug, Clone)]
pub struct AdbClient {
    port: u16,
    timeout: Duration,
    path: Option<OsString>,
    server_env: Vec<(OsString, OsString)>,
}

impl AdbClient {
    /// A client of the server on `port`.
    pub fn new(port: u16) -> AdbClient {
        AdbClient {
            port,
            timeout: DEFAULT_TIMEOUT,
            path: None,
            server_env: Vec::new(),
        }
    }

    /// A client of the server on `ANDROID_ADB_SERVER_PORT`, else 5037.
    pub fn from_env() -> Result<AdbClient, AdbError> {
        let value = std::env::var("ANDROID_ADB_SERVER_PORT").ok();
        server_port(value.as_deref()).map(AdbClient::new)
    }

    /// The same client with another limit per call.
    pub fn with_timeout(mut self, timeout: Duration) -> AdbClient {
        self.timeout = timeout;
        self
    }

    /// The same client, looking for `adb` in the folders of `path` (a PATH value) instead of
    /// this process's PATH when it has to start the server.
    pub fn with_path(mut self, path: impl Into<OsString>) -> AdbClient {
        self.path = Some(path.into());
        self
    }

    /// The same client, giving the server it starts `key=value` in its environment (`HOME`:
    /// where the server keeps its key).
    pub fn with_server_env(
        mut self,
        key: impl Into<OsString>,
        value: impl Into<OsString>,
    ) -> AdbClient {
        self.server_env.push((key.into(), value.into()));
        self
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs `call` within the client's limit.
    pub(crate) async fn limited<T>(
        &self,
        what: impl FnOnce() -> String,
        call: impl Future<Output = Result<T, AdbError>>,
    ) -> Result<T, AdbError> {
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| {
                Err(AdbError::Timeout {
                    what: what(),
                    secs: u64::try_from(self.timeout.as_millis().div_ceil(1000))
                        .unwrap_or(u64::MAX),
                })
            })
    }

    /// A connection to the server; when none answers, starts it once (if `adb` is installed)
    /// and connects again.
    pub(crate) async fn open(&self) -> Result<HostSocket, AdbError> {
        self.open_with(&mut true).await
    }

    /// A connection to the server; when none answers and `may_start` holds, starts it (if
    /// `adb` is installed; `may_start` is then spent) and connects again.
    pub(crate) async fn open_with(&self, may_start: &mut bool) -> Result<HostSocket, AdbError> {
        let refused = match self.try_connect().await {
            Ok(socket) => return Ok(socket),
            Err(e) => e,
        };
        if refused.kind() != std::io::ErrorKind::ConnectionRefused || !*may_start {
            return Err(AdbError::Io {
                port: self.port,
                what: texts::CONNECTING.into(),
                source: refused,
            });
        }
        *may_start = false;
        let adb = find_adb(self.path.as_deref()).ok_or(AdbError::NotInstalled(self.port))?;
        start_server(&adb, self.port, &self.server_env)
            .await
            .map_err(|detail| AdbError::StartFailed {
                port: self.port,
                detail,
            })?;
        self.try_connect().await.map_err(|e| AdbError::StartFailed {
            port: self.port,
            detail: e.to_string(),
        })
    }

    /// A connection to the server if one listens (never starts one).
    async fn try_connect(&self) -> std::io::Result<HostSocket> {
        let stream = TcpStream::connect((std::net::Ipv4Addr::LOCALHOST, self.port)).await?;
        Ok(HostSocket::new(stream, self.port))
    }

    /// Whether a server answers `host:version` now (without starting one).
    async fn server_answers(&self) -> bool {
        let mut may_start = false;
        let ask = self.host_query_with("host:version", &mut may_start);
        matches!(tokio::time::timeout(PROBE_LIMIT, ask).await, Ok(Ok(_)))
    }

    /// The error for a command whose stream ended before it did: the server went away when it
    /// no longer answers, else the phone disconnected.
    async fn cut(&self, serial: &str, command: &str) -> AdbError {
        if self.server_answers().await {
            AdbError::PhoneDisconnected {
                serial: serial.to_owned(),
                command: command.to_owned(),
            }
        } else {
            AdbError::ServerGone {
                port: self.port,
                serial: serial.to_owned(),
                command: command.to_owned(),
            }
        }
    }

    /// Sends a `host:` request and reads its `<hex4>` answer.
    async fn host_query(&self, request: &str) -> Result<String, AdbError> {
        self.host_query_with(request, &mut true).await
    }

    /// [`Self::host_query`], starting the server only if `may_start` (see [`Self::open_with`]).
    async fn host_query_with(
        &self,
        request: &str,
        may_start: &mut bool,
    ) -> Result<String, AdbError> {
        let mut socket = self.open_with(may_start).await?;
        socket.request(request, None).await?;
        socket.read_string().await
    }

    /// A connection switched to device `serial`, with `service` open on it.
    async fn open_service(&self, serial: &str, service: &str) -> Result<HostSocket, AdbError> {
        let mut socket = self.open().await?;
        socket
            .request(&format!("host:tport:serial:{serial}"), Some(serial))
            .await?;
        let mut transport_id = [0u8; 8];
        socket
            .read_exact(&mut transport_id, texts::SWITCHING)
            .await?;
        socket.request(service, Some(serial)).await?;
        Ok(socket)
    }

    /// The server's protocol version (41 for adb 29).
    pub async fn version(&self) -> Result<u32, AdbError> {
        self.limited(|| "host:version".into(), async {
            let text = self.host_query("host:version").await?;
            u32::from_str_radix(&text, 16).map_err(|_| AdbError::Protocol {
                port: self.port,
                detail: texts::unexpected("version", text.as_bytes()),
            })
        })
        .await
    }

    /// The device list from the server running now (none running: an error; never starts one).
    pub(crate) async fn devices_if_running(&self) -> Result<Vec<Device>, AdbError> {
        self.limited(|| texts::DEVICE_LIST.into(), async {
            let text = self.host_query_with("host:devices-l", &mut false).await?;
            Ok(parse_devices_l(&text))
        })
        .await
    }

    /// The devices the server knows, with their state and names.
    pub async fn devices(&self) -> Result<Vec<Device>, AdbError> {
        self.limited(|| texts::DEVICE_LIST.into(), async {
            Ok(parse_devices_l(&self.host_query("host:devices-l").await?))
        })
        .await
    }

    /// Has the server connect to the network device `target` (`HOST:PORT`); the server's text
    /// (`connected to …` or `already connected to …`) on success.
    pub async fn connect(&self, target: &str) -> Result<String, AdbError> {
        self.limited(|| texts::connecting_to(target), async {
            let text = self.host_query(&format!("host:connect:{target}")).await?;
            if text.starts_with("connected to") || text.starts_with("already connected to") {
                Ok(text)
            } else {
                Err(AdbError::ConnectFailed {
                    target: target.to_owned(),
                    message: text,
                })
            }
        })
        .await
    }

    /// Has the server drop the network device `target`; the server's text.
    pub async fn disconnect(&self, target: &str) -> Result<String, AdbError> {
        self.limited(|| texts::disconnecting(target), async {
            self.host_query(&format!("host:disconnect:{target}")).await
        })
        .await
    }

    /// Runs `command` with the device's `sh -c` (quote arguments with
    /// [`crate::quote_command`]): its stdout, stderr and exit status.
    pub async fn shell(&self, serial: &str, command: &str) -> Result<ShellOutput, AdbError> {
        self.limited(|| texts::command_on(command, serial), async {
            let mut socket = self
                .open_service(serial, &format!("shell,v2,raw:{command}"))
                .await?;
            socket
                .write_all(
                    &shell::encode(shell::CLOSE_STDIN, &[]),
                    texts::CLOSING_STDIN,
                )
                .await?;
            match read_shell(&mut socket).await {
                Ok(Some(output)) => Ok(output),
                Ok(None) => Err(self.cut(serial, command).await),
                Err(e) => Err(e),
            }
        })
        .await
    }

    /// Runs `command` with its stdout as raw bytes (`exec:`; for binary output such as
    /// `screencap -p`). There is no exit status and no stderr, and a device or a server that
    /// goes away mid-output gives what arrived: check the bytes (a PNG's end) where it matters.
    pub async fn exec_out(&self, serial: &str, command: &str) -> Result<Vec<u8>, AdbError> {
        self.limited(|| texts::command_on(command, serial), async {
            let mut socket = self
                .open_service(serial, &format!("exec:{command}"))
                .await?;
            socket.read_to_end(texts::READING_OUTPUT).await
        })
        .await
    }

    /// The bytes of the file `path` on the device (`sync:` RECV).
    pub async fn pull(&self, serial: &str, path: &str) -> Result<Vec<u8>, AdbError> {
        self.limited(|| texts::pulling(path, serial), async {
            let mut socket = self.open_service(serial, "sync:").await?;
            socket
                .write_all(&sync::encode(b"RECV", path.as_bytes()), texts::ASKING_FILE)
                .await?;
            let data = read_file(&mut socket, serial, path).await?;
            socket
                .write_all(&sync::encode_value(b"QUIT", 0), texts::ENDING_TRANSFER)
                .await?;
            Ok(data)
        })
        .await
    }
}

impl AdbClient {
    /// Writes `data` to `path` on the phone with the Unix `mode` (`0o644`), through `sync:`
    /// (`SEND`, `DATA` in pieces, `DONE`), and waits for the phone's `OKAY`; its `FAIL` is
    /// [`AdbError::PushFailed`] with what it said.
    pub async fn push(
        &self,
        serial: &str,
        path: &str,
        data: &[u8],
        mode: u32,
    ) -> Result<(), AdbError> {
        self.limited(|| texts::pushing(path, serial), async {
            let mut socket = self.open_service(serial, "sync:").await?;
            let spec = format!("{path},{mode}");
            socket
                .write_all(&sync::encode(b"SEND", spec.as_bytes()), texts::SENDING_FILE)
                .await?;
            for piece in data.chunks(sync::MAX_DATA as usize) {
                socket
                    .write_all(&sync::encode(b"DATA", piece), texts::SENDING_FILE)
                    .await?;
            }
            let mtime = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX));
            socket
                .write_all(&sync::encode_value(b"DONE", mtime), texts::SENDING_FILE)
                .await?;
            push_answer(&mut socket, serial, path).await?;
            socket
                .write_all(&sync::encode_value(b"QUIT", 0), texts::ENDING_TRANSFER)
                .await?;
            Ok(())
        })
        .await
    }
}

/// Reads the phone's answer to a push: `OKAY`, or `FAIL` with its message.
async fn push_answer(socket: &mut HostSocket, serial: &str, path: &str) -> Result<(), AdbError> {
    let failed = |message: String| AdbError::PushFailed {
        serial: serial.to_owned(),
        path: path.to_owned(),
        message,
    };
    let mut decoder = sync::SyncDecoder::new();
    let mut chunk = vec![0u8; 4096];
    loop {
        if let Some(frame) = decoder.next_frame()? {
            return match &frame.id {
                b"OKAY" => Ok(()),
                b"FAIL" => Err(failed(String::from_utf8_lossy(&frame.payload).into_owned())),
                other => Err(AdbError::Protocol {
                    port: socket.port(),
                    detail: texts::unexpected("sync answer", other),
                }),
            };
        }
        let n = socket
            .read_some(&mut chunk, texts::READING_PUSH_ANSWER)
            .await?;
        if n == 0 {
            return Err(failed(texts::PUSH_CUT.into()));
        }
        decoder.push(&chunk[..n]);
    }
}

/// The server port `ANDROID_ADB_SERVER_PORT` names (unset or empty: 5037).
fn server_port(value: Option<&str>) -> Result<u16, AdbError> {
    match value {
        None | Some("") => Ok(DEFAULT_PORT),
        Some(value) => match value.trim().parse::<u16>() {
            Ok(port) if port > 0 => Ok(port),
            _ => Err(AdbError::BadPort(value.to_owned())),
        },
    }
}

/// Reads shell-v2 packets until the exit status; `None` when the stream ends (or breaks)
/// before it.
async fn read_shell(socket: &mut HostSocket) -> Result<Option<ShellOutput>, AdbError> {
    let mut decoder = shell::ShellDecoder::new();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        while let Some(packet) = decoder.next_packet()? {
            match packet.id {
                shell::STDOUT => stdout.extend(packet.payload),
                shell::STDERR => stderr.extend(packet.payload),
                shell::EXIT => {
                    return Ok(Some(ShellOutput {
                        stdout,
                        stderr,
                        exit_code: packet.payload.first().copied().unwrap_or(0),
                    }));
                }
                _ => {}
            }
        }
        match socket.read_some(&mut chunk, texts::READING_OUTPUT).await {
            Ok(0) | Err(AdbError::Io { .. }) => return Ok(None),
            Ok(n) => decoder.push(&chunk[..n]),
            Err(e) => return Err(e),
        }
    }
}

/// Reads `DATA` frames until `DONE`; `FAIL` is the device's refusal.
async fn read_file(socket: &mut HostSocket, serial: &str, path: &str) -> Result<Vec<u8>, AdbError> {
    let mut decoder = sync::SyncDecoder::new();
    let mut data = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        while let Some(frame) = decoder.next_frame()? {
            match &frame.id {
                b"DATA" => data.extend(frame.payload),
                b"DONE" => return Ok(data),
                b"FAIL" => {
                    return Err(AdbError::PullFailed {
                        serial: serial.to_owned(),
                        path: path.to_owned(),
                        message: String::from_utf8_lossy(&frame.payload).into_owned(),
                    });
                }
                other => {
                    return Err(AdbError::Protocol {
                        port: socket.port(),
                        detail: texts::unexpected("sync answer", other),
                    });
                }
            }
        }
        let n = socket.read_some(&mut chunk, texts::READING_FILE).await?;
        if n == 0 {
            return Err(AdbError::PullFailed {
                serial: serial.to_owned(),
                path: path.to_owned(),
                message: texts::FILE_CUT.into(),
            });
        }
        decoder.push(&chunk[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_port_comes_from_the_environment_value() {
        assert_eq!(server_port(None).unwrap(), 5037);
        assert_eq!(server_port(Some("")).unwrap(), 5037);
        assert_eq!(server_port(Some("15037")).unwrap(), 15037);
        for bad in ["0", "70000", "tcp:5037", "-1"] {
            let err = server_port(Some(bad)).unwrap_err();
            assert!(
                matches!(err, AdbError::BadPort(ref v) if v == bad),
                "{bad}: {err:?}"
            );
        }
    }
}
