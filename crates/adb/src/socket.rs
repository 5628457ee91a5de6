//! One connection to the adb server's smart socket: requests as `<hex4><text>`, answers
//! `OKAY` or `FAIL<hex4><message>`, then (after a device service opened) a raw byte pipe.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::{AdbError, from_fail};
use crate::texts;

/// The largest request the server takes: its length travels as four hexadecimal digits.
pub const MAX_REQUEST: usize = 0xffff;

/// A connection to the server on `port`.
pub(crate) struct HostSocket {
    stream: TcpStream,
    port: u16,
}

impl HostSocket {
    /// Wraps a connected stream.
    pub(crate) fn new(stream: TcpStream, port: u16) -> HostSocket {
        HostSocket { stream, port }
    }

    /// The server's port.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    fn io(&self, what: &str, source: std::io::Error) -> AdbError {
        AdbError::Io {
            port: self.port,
            what: what.to_owned(),
            source,
        }
    }

    fn protocol(&self, detail: String) -> AdbError {
        AdbError::Protocol {
            port: self.port,
            detail,
        }
    }

    /// Sends `request` and reads its status; `serial` names the device it concerns (for the
    /// errors of its `FAIL`).
    pub(crate) async fn request(
        &mut self,
        request: &str,
        serial: Option<&str>,
    ) -> Result<(), AdbError> {
        if request.len() > MAX_REQUEST {
            return Err(AdbError::Failed {
                request: request.chars().take(60).collect(),
                message: texts::request_too_long(MAX_REQUEST),
            });
        }
        let framed = format!("{:04x}{request}", request.len());
        self.stream
            .write_all(framed.as_bytes())
            .await
            .map_err(|e| self.io(texts::SENDING_REQUEST, e))?;
        let mut status = [0u8; 4];
        self.read_exact(&mut status, texts::READING_ANSWER).await?;
        match &status {
            b"OKAY" => Ok(()),
            b"FAIL" => {
                let message = self.read_string().await?;
                Err(from_fail(request, serial, message))
            }
            other => Err(self.protocol(texts::unexpected("status", other))),
        }
    }

    /// Reads a `<hex4><text>` string.
    pub(crate) async fn read_string(&mut self) -> Result<String, AdbError> {
        let mut length = [0u8; 4];
        self.read_exact(&mut length, texts::READING_ANSWER).await?;
        let length = std::str::from_utf8(&length)
            .ok()
            .and_then(|hex| usize::from_str_radix(hex, 16).ok())
            .ok_or_else(|| self.protocol(texts::unexpected("length", &length)))?;
        let mut text = vec![0u8; length];
        self.read_exact(&mut text, texts::READING_ANSWER).await?;
        Ok(String::from_utf8_lossy(&text).into_owned())
    }

    /// Fills `buf`; an early end is an `UnexpectedEof` I/O error.
    pub(crate) async fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), AdbError> {
        self.stream
            .read_exact(buf)
            .await
            .map(|_| ())
            .map_err(|e| self.io(what, e))
    }

    /// Reads what arrives next (0: the other side closed).
    pub(crate) async fn read_some(
        &mut self,
        buf: &mut [u8],
        what: &str,
    ) -> Result<usize, AdbError> {
        self.stream.read(buf).await.map_err(|e| self.io(what, e))
    }

    /// Reads until the other side closes.
    pub(crate) async fn read_to_end(&mut self, what: &str) -> Result<Vec<u8>, AdbError> {
        let mut out = Vec::new();
        self.stream
            .read_to_end(&mut out)
            .await
            .map_err(|e| self.io(what, e))?;
        Ok(out)
    }

    /// Writes all of `bytes`.
    pub(crate) async fn write_all(&mut self, bytes: &[u8], what: &str) -> Result<(), AdbError> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|e| self.io(what, e))
    }
}
