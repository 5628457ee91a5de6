//! The loopback page server for browser tests: serves `fixtures/web/` on `127.0.0.1` (and the
//! same port on `[::1]` when available), so a page from `127.0.0.1` can embed a frame from
//! `localhost` — a different site, which Chromium puts in its own process.
//!
//! Besides the files, `GET /api/slow?ms=N` answers `{"items": 42}` after N milliseconds (at most
//! 5000), for content that arrives by XHR after a click; `GET /api/gate` answers only once the
//! test opens the gate ([`PageServer::open_gate`]), and a page says what it did then with
//! `GET /api/gate/done` ([`PageServer::wait_gate_done`]), so a test makes a page change at a
//! moment of its choosing, with no timer; and any file asked for with
//! `?delay=N` is answered N milliseconds late (at most 5000), for a slow next page. Every request
//! received is recorded ([`PageServer::requests`]), for tests that check what a browser asked
//! for — or that it never asked.
//!
//! ```no_run
//! # async fn demo() {
//! let server = deft_test_support::web::PageServer::start().await.unwrap();
//! let form = server.url("form.html"); // http://127.0.0.1:PORT/form.html
//! let cross = server.cross_site_url("frame_inner.html"); // http://localhost:PORT/…
//! # let _ = (form, cross);
//! # }
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use axum::Router;
use axum::body::Body;
use axum::http::{StatusCode, Uri, header};
use axum::response::Response;

/// The folder of the fixture pages.
pub fn pages_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/web")
}

/// A running page server; stops when dropped.
pub struct PageServer {
    addr: SocketAddr,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    requests: Requests,
    gate: Arc<Gate>,
}

/// `/api/gate`: held until opened; `/api/gate/done`: a page's word that it acted on the opening.
struct Gate {
    open: tokio::sync::watch::Sender<bool>,
    done: Mutex<bool>,
    done_changed: parking_lot::Condvar,
}

/// The path and query of every request received, in order.
type Requests = Arc<Mutex<Vec<String>>>;

impl PageServer {
    /// Starts serving on a free loopback port.
    pub async fn start() -> std::io::Result<Self> {
        let v4 = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = v4.local_addr()?;
        let requests = Requests::default();
        let gate = Arc::new(Gate {
            open: tokio::sync::watch::Sender::new(false),
            done: Mutex::new(false),
            done_changed: parking_lot::Condvar::new(),
        });
        let app = app(requests.clone(), gate.clone());
        let v4_app = app.clone();
        let mut tasks = vec![tokio::spawn(async move {
            let _ = axum::serve(v4, v4_app).await;
        })];
        if let Ok(v6) = tokio::net::TcpListener::bind(("::1", addr.port())).await {
            tasks.push(tokio::spawn(async move {
                let _ = axum::serve(v6, app).await;
            }));
        }
        Ok(PageServer {
            addr,
            tasks,
            requests,
            gate,
        })
    }

    /// Answers the pending and future `GET /api/gate` requests.
    pub fn open_gate(&self) {
        self.gate.open.send_replace(true);
    }

    /// Blocks until a page asked for `/api/gate/done` (what it does once the gate opened), at
    /// most `limit`; whether it did. Blocking: call it where the caller may block (an event
    /// sink that holds the run until the page changed).
    pub fn wait_gate_done(&self, limit: Duration) -> bool {
        let mut done = self.gate.done.lock();
        if !*done {
            let _ = self.gate.done_changed.wait_for(&mut done, limit);
        }
        *done
    }

    /// The path and query (`/k/img?x=1`) of every request received so far, in order, whatever
    /// its method — a WebSocket handshake included.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().clone()
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.addr.port(),
            path.trim_start_matches('/')
        )
    }

    /// `http://localhost:PORT/<path>`: the same files from another site.
    pub fn cross_site_url(&self, path: &str) -> String {
        format!(
            "http://localhost:{}/{}",
            self.addr.port(),
            path.trim_start_matches('/')
        )
    }
}

impl Drop for PageServer {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn app(requests: Requests, gate: Arc<Gate>) -> Router {
    Router::new().fallback(move |uri: Uri| {
        let path = uri
            .path_and_query()
            .map_or_else(|| uri.path().to_owned(), ToString::to_string);
        requests.lock().push(path);
        let gate = gate.clone();
        async move {
            match uri.path() {
                "/api/gate" => {
                    let _ = gate.open.subscribe().wait_for(|open| *open).await;
                    respond(StatusCode::OK, "application/json", b"{}".to_vec())
                }
                "/api/gate/done" => {
                    *gate.done.lock() = true;
                    gate.done_changed.notify_all();
                    respond(StatusCode::OK, "application/json", b"{}".to_vec())
                }
                _ => serve(uri).await,
            }
        }
    })
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The number in `key=N` of the query, if any.
fn query_ms(uri: &Uri, key: &str) -> Option<u64> {
    uri.query()?
        .split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

async fn serve(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    if path == "api/slow" {
        let ms = query_ms(&uri, "ms").unwrap_or(300);
        tokio::time::sleep(Duration::from_millis(ms.min(5000))).await;
        return respond(
            StatusCode::OK,
            "application/json",
            b"{\"items\": 42}".to_vec(),
        );
    }
    if path == "api/redirect" {
        // A server-side redirect (302) to the URL in `to` (percent-encoded).
        let to = uri
            .query()
            .unwrap_or_default()
            .split('&')
            .find_map(|kv| kv.strip_prefix("to="))
            .map(percent_decode)
            .unwrap_or_default();
        let mut r = respond(StatusCode::FOUND, "text/plain", b"moved".to_vec());
        if let Ok(location) = header::HeaderValue::from_str(&to) {
            r.headers_mut().insert(header::LOCATION, location);
        }
        return r;
    }
    if path
        .split('/')
        .any(|seg| seg == ".." || seg.starts_with('.'))
    {
        return respond(StatusCode::FORBIDDEN, "text/plain", b"forbidden".to_vec());
    }
    if let Some(ms) = query_ms(&uri, "delay") {
        tokio::time::sleep(Duration::from_millis(ms.min(5000))).await;
    }
    let path = if path.is_empty() { "index.html" } else { path };
    let file = pages_dir().join(path);
    match tokio::fs::read(&file).await {
        Ok(bytes) => {
            let mut r = respond(StatusCode::OK, content_type(path), bytes);
            if path.starts_with("download/") {
                r.headers_mut().insert(
                    header::CONTENT_DISPOSITION,
                    header::HeaderValue::from_static("attachment"),
                );
            }
            r
        }
        Err(_) => respond(StatusCode::NOT_FOUND, "text/plain", b"not found".to_vec()),
    }
}

/// `%XX` sequences of `s` decoded (anything else as it is).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn respond(status: StatusCode, ctype: &'static str, body: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(ctype),
    );
    r.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    r
}
