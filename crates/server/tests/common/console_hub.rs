//! A server with the console in this process on a free loopback port: a real SQLite file (or
//! the test PostgreSQL), the fixture device, the API token; an HTTP client and an SSE reader.

#![allow(dead_code)]
#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

use std::path::{Path, PathBuf};
use std::time::Duration;

use deft_server::console::{Console, ConsoleConfig, ModelDefaults};
use deft_server::{Server, ServerConfig};
use deft_store::Store;
use deft_tools::Device;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{API_TOKEN, DEVICE_TOKEN};

/// A running server with the console; stops when dropped.
pub struct ConsoleHub {
    pub url: String,
    pub addr: std::net::SocketAddr,
    pub console: Console,
    pub data_dir: PathBuf,
    stop: CancellationToken,
    served: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    http: reqwest::Client,
}

impl Drop for ConsoleHub {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// An answer: status and JSON body (`Null` when empty or not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

/// One SSE event: id, type, data.
#[derive(Debug, Clone)]
pub struct Sse {
    pub seq: u64,
    pub kind: String,
    pub data: Value,
}

impl ConsoleHub {
    /// A server over `data_dir` (SQLite there, or `database_url`) with `devices`.
    pub async fn start(data_dir: &Path, database_url: Option<&str>, devices: Vec<Device>) -> Self {
        Self::start_with(data_dir, database_url, devices, |_| {}).await
    }

    /// [`ConsoleHub::start`] with the console's config changed by `tweak`.
    pub async fn start_with(
        data_dir: &Path,
        database_url: Option<&str>,
        devices: Vec<Device>,
        tweak: impl FnOnce(&mut ConsoleConfig),
    ) -> Self {
        let store = Store::open(data_dir, database_url).await.unwrap();
        let mut cc = ConsoleConfig::new(store, data_dir.to_owned());
        // A model that is configured but never reached: agent runs in these tests are refused
        // before they would call it.
        cc.defaults = ModelDefaults {
            api_base: Some("http://127.0.0.1:9/v1".to_owned()),
            model: Some("never-called".to_owned()),
            api_key: None,
        };
        tweak(&mut cc);
        let console = Console::start(cc).await.unwrap();
        let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), DEVICE_TOKEN, API_TOKEN);
        config.devices = devices;
        config.console = Some(console.clone());
        let server = Server::bind(config).await.unwrap();
        let addr = server.local_addr();
        let stop = CancellationToken::new();
        let served = tokio::spawn(server.serve(stop.clone()));
        ConsoleHub {
            url: format!("http://{addr}"),
            addr,
            console,
            data_dir: data_dir.to_owned(),
            stop,
            served: Some(served),
            http: reqwest::Client::new(),
        }
    }

    /// Stops the server as Ctrl-C does and waits until it has.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(s) = self.served.take() {
            tokio::time::timeout(Duration::from_secs(20), s)
                .await
                .expect("the server stops")
                .unwrap()
                .unwrap();
        }
        self.console.store().close().await;
    }

    async fn answer(response: reqwest::Response) -> Answer {
        let status = response.status().as_u16();
        let bytes = response.bytes().await.unwrap();
        Answer {
            status,
            body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        }
    }

    fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(API_TOKEN)
    }

    /// Logs in as the admin: the session cookie and CSRF token.
    pub async fn login(&self) -> (String, String) {
        let login = reqwest::Client::new()
            .post(format!("{}/api/auth/login", self.url))
            .json(&serde_json::json!({"username": "admin", "password": "correct horse battery"}))
            .send()
            .await
            .unwrap();
        assert_eq!(login.status(), 200);
        let cookie = login.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let csrf = login.json::<Value>().await.unwrap()["csrf_token"]
            .as_str()
            .unwrap()
            .to_owned();
        (cookie, csrf)
    }

    pub async fn get(&self, path: &str) -> Answer {
        Self::answer(self.req(reqwest::Method::GET, path).send().await.unwrap()).await
    }

    /// GET `path`: status, content type and the raw body.
    pub async fn get_bytes(&self, path: &str) -> (u16, String, Vec<u8>) {
        let r = self.req(reqwest::Method::GET, path).send().await.unwrap();
        let kind = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        (r.status().as_u16(), kind, r.bytes().await.unwrap().to_vec())
    }

    pub async fn send(&self, method: &str, path: &str, body: &Value) -> Answer {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        Self::answer(self.req(method, path).json(body).send().await.unwrap()).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Answer {
        self.send("POST", path, body).await
    }

    /// POSTs raw bytes.
    pub async fn post_raw(&self, path: &str, body: Vec<u8>) -> Answer {
        let r = self
            .req(reqwest::Method::POST, path)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        Self::answer(r).await
    }

    pub async fn delete(&self, path: &str) -> Answer {
        Self::answer(
            self.req(reqwest::Method::DELETE, path)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// Opens an event stream (after `last_event_id` when given).
    pub async fn stream(&self, path: &str, last_event_id: Option<u64>) -> SseReader {
        let mut r = self.req(reqwest::Method::GET, path);
        if let Some(id) = last_event_id {
            r = r.header("last-event-id", id.to_string());
        }
        let response = r.send().await.unwrap();
        SseReader {
            status: response.status().as_u16(),
            response,
            buf: String::new(),
        }
    }

    /// The whole stream until it ends (after `done`), 30 s at most.
    pub async fn events(&self, path: &str, last_event_id: Option<u64>) -> (u16, Vec<Sse>) {
        let mut s = self.stream(path, last_event_id).await;
        let mut all = Vec::new();
        while let Some(e) = s.next().await {
            all.push(e);
        }
        (s.status, all)
    }

    /// Waits (30 s at most) until GET `path` answers a body `done` accepts; returns it.
    pub async fn until(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let a = self.get(path).await;
            if done(&a.body) {
                return a.body;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "GET {path} never got there; last: {}",
                a.body
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Reads SSE frames from a response as they come.
pub struct SseReader {
    pub status: u16,
    response: reqwest::Response,
    buf: String,
}

impl SseReader {
    /// The next event (comments skipped); `None` when the stream ended. 30 s at most.
    pub async fn next(&mut self) -> Option<Sse> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let frame: String = self.buf.drain(..end + 2).collect();
                if let Some(e) = parse_frame(&frame) {
                    return Some(e);
                }
                continue;
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.response.chunk())
                .await
                .expect("an event within 30 s")
                .unwrap()?;
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

fn parse_frame(frame: &str) -> Option<Sse> {
    let (mut seq, mut kind, mut data) = (None, None, None);
    for line in frame.lines() {
        if let Some(v) = line.strip_prefix("id: ") {
            seq = v.parse().ok();
        } else if let Some(v) = line.strip_prefix("event: ") {
            kind = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("data: ") {
            data = serde_json::from_str(v).ok();
        }
    }
    Some(Sse {
        // a frame without an id (the notifications feed) reads as 0
        seq: seq.unwrap_or(0),
        kind: kind?,
        data: data?,
    })
}
