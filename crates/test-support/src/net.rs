//! Loopback ports, and raw HTTP requests with headers no client library would send (two `Host`
//! headers, a malformed one).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// A port that was free on 127.0.0.1 a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free loopback port: {e}"))
}

/// Waits until something accepts connections on `addr`; false after `timeout`.
pub fn wait_for_port(addr: SocketAddr, timeout: Duration) -> bool {
    let until = Instant::now() + timeout;
    while Instant::now() < until {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Turns Nagle's algorithm off on an accepted connection (for axum's `ListenerExt::tap_io`), so
/// the fixtures' streamed chunks go out at once instead of waiting for a delayed ACK.
pub fn no_delay(tcp: &mut tokio::net::TcpStream) {
    let _ = tcp.set_nodelay(true);
}

/// Sends `head` — a request line and headers, each ending in CRLF; `Connection: close` and the
/// blank line are added — to `addr`, and returns the answer's status code and body.
pub async fn raw_http(addr: SocketAddr, head: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("connect to {addr}: {e}"));
    let request = format!("{head}Connection: close\r\n\r\n");
    tcp.write_all(request.as_bytes())
        .await
        .unwrap_or_else(|e| panic!("send to {addr}: {e}"));
    let mut answer = Vec::new();
    let _ = tcp.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}
