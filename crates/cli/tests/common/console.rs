//! Running `deft serve` as a child process for console tests: its address from stdout, an HTTP
//! client with the API token or a login session, and an SSE reader.

#![allow(dead_code)]
#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deft_test_support::proc::{GroupChild, Signal, fixture_bin, signal_process};
use serde_json::{Value, json};

/// The admin password the tests start servers with.
pub const ADMIN_PASSWORD: &str = "correct horse battery";
/// The API token the tests start servers with.
pub const API_TOKEN: &str = "console-api-token-for-tests";
/// The device token the tests start servers with.
pub const DEVICE_TOKEN: &str = "console-device-token-for-tests";

/// A routing table whose `shell` profile also has the fixture MCP server (stdio child), so a
/// test can hold a device busy with its `sleep` tool.
pub fn tools_config(dir: &Path) -> PathBuf {
    let path = dir.join("tools.yaml");
    let yaml = format!(
        "profiles:\n  shell:\n    HostAgent:\n      default:\n        data_collection:\n          - {{namespace: shell, type: builtin, name: shell, tools: [get_system_info]}}\n        action:\n          - {{namespace: shell, type: builtin, name: shell, tools: [run_shell]}}\n          - {{namespace: fixture, type: stdio, command: \"{}\", tools: [sleep, echo, image]}}\n",
        fixture_bin().display()
    );
    std::fs::write(&path, yaml).expect("write tools.yaml");
    path
}

/// How to start a server.
#[derive(Clone)]
pub struct ServeOptions {
    /// The model's base URL.
    pub model_url: String,
    /// `--tools-config`.
    pub tools: Option<PathBuf>,
    /// Start the managed desktop (no `--no-desktop`).
    pub desktop: bool,
    /// Set `DEFT_ADMIN_PASSWORD`.
    pub admin_password: bool,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Runs recall and distil (no `--no-memory`). Off unless a test is about the memory:
    /// distilling after a run would take the next run's scripted turns.
    pub memory: bool,
    /// `--bind` (default `127.0.0.1:0`: a free port).
    pub bind: Option<String>,
}

impl ServeOptions {
    /// Shell-only devices, the admin from the environment, the fixture tools.
    pub fn shell(model_url: &str, dir: &Path) -> Self {
        ServeOptions {
            model_url: model_url.to_owned(),
            tools: Some(tools_config(dir)),
            desktop: false,
            admin_password: true,
            env: Vec::new(),
            memory: false,
            bind: None,
        }
    }
}

/// A running `deft serve`.
pub struct Serve {
    /// The process group.
    pub child: GroupChild,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// Everything it printed to stdout.
    pub stdout: Arc<Mutex<Vec<String>>>,
    /// Its stderr file.
    pub stderr: PathBuf,
}

impl Serve {
    /// Starts `deft serve` on a free port with `data_dir`, waiting for its address line.
    pub fn start(data_dir: &Path, opts: &ServeOptions) -> Serve {
        let stderr = data_dir.join(format!("serve-stderr-{}.txt", uuid_like()));
        let mut cmd = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"));
        cmd.env("AGENT_API_BASE", &opts.model_url)
            .env("AGENT_MODEL", "scripted")
            .env("DEFT_API_TOKEN", API_TOKEN)
            .env("DEFT_DEVICE_TOKEN", DEVICE_TOKEN)
            .arg("--data-dir")
            .arg(data_dir);
        if opts.admin_password {
            cmd.env("DEFT_ADMIN_PASSWORD", ADMIN_PASSWORD);
        }
        if let Some(t) = &opts.tools {
            cmd.arg("--tools-config").arg(t);
        }
        let bind = opts.bind.as_deref().unwrap_or("127.0.0.1:0");
        cmd.args(["serve", "--bind", bind]);
        if !opts.desktop {
            cmd.arg("--no-desktop");
        }
        if !opts.memory {
            cmd.arg("--no-memory");
        }
        cmd.envs(opts.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        cmd.stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"));
        let mut child = GroupChild::spawn(cmd).expect("spawn deft serve");
        let out = child.child.stdout.take().expect("piped stdout");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let keep = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("deft serve listening on ") {
                    let addr = addr.split_whitespace().next().unwrap_or("").to_owned();
                    let _ = tx.send(addr);
                }
                keep.lock().unwrap().push(line);
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!(
                    "deft serve did not print its address; stderr:\n{}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                )
            });
        Serve {
            child,
            url,
            stdout: lines,
            stderr,
        }
    }

    /// Its stdout so far.
    pub fn printed(&self) -> String {
        self.stdout.lock().unwrap().join("\n")
    }

    /// Stops it like Ctrl-C and waits for it to exit.
    pub fn interrupt(self) -> std::process::ExitStatus {
        self.stop_with(Signal::INT)
    }

    /// Sends `signal` (SIGINT, SIGTERM) and waits for it to exit.
    pub fn stop_with(mut self, signal: Signal) -> std::process::ExitStatus {
        signal_process(self.child.pid(), signal);
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "deft serve did not stop after signal {signal:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A client using the API token.
    pub fn api(&self) -> Api {
        Api::new(&self.url, Auth::Token(API_TOKEN.to_owned()))
    }

    /// A client logged in as the admin.
    pub async fn login(&self) -> Api {
        let api = Api::new(&self.url, Auth::None);
        let r = api
            .post(
                "/api/auth/login",
                &json!({"username": "admin", "password": ADMIN_PASSWORD}),
            )
            .await;
        assert_eq!(r.status, 200, "login: {}", r.body);
        let csrf = r.body["csrf_token"]
            .as_str()
            .expect("csrf token")
            .to_owned();
        let cookie = r
            .set_cookie
            .as_deref()
            .and_then(|c| c.split(';').next())
            .expect("a session cookie")
            .to_owned();
        Api::new(&self.url, Auth::Session { cookie, csrf })
    }
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// How a client authenticates.
#[derive(Clone, Debug)]
pub enum Auth {
    /// Nothing.
    None,
    /// `Authorization: Bearer`.
    Token(String),
    /// Cookie + CSRF header.
    Session {
        /// `deft_session=…`.
        cookie: String,
        /// The CSRF token.
        csrf: String,
    },
    /// Cookie only (no CSRF header).
    CookieOnly(String),
}

/// A response.
#[derive(Debug)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// Body as JSON (`Null` when empty or not JSON).
    pub body: Value,
    /// Body text.
    pub text: String,
    /// `Set-Cookie`.
    pub set_cookie: Option<String>,
    /// `Retry-After`.
    pub retry_after: Option<String>,
}

/// A JSON API client.
#[derive(Clone)]
pub struct Api {
    /// Base URL.
    pub base: String,
    /// Authentication.
    pub auth: Auth,
    http: reqwest::Client,
}

impl Api {
    /// A client for `base`.
    pub fn new(base: &str, auth: Auth) -> Api {
        Api {
            base: base.to_owned(),
            auth,
            http: reqwest::Client::new(),
        }
    }

    /// The same server with other credentials.
    pub fn with(&self, auth: Auth) -> Api {
        Api::new(&self.base, auth)
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut b = self.http.request(method, format!("{}{path}", self.base));
        match &self.auth {
            Auth::None => {}
            Auth::Token(t) => b = b.bearer_auth(t),
            Auth::Session { cookie, csrf } => {
                b = b.header("cookie", cookie).header("x-csrf-token", csrf)
            }
            Auth::CookieOnly(cookie) => b = b.header("cookie", cookie),
        }
        b
    }

    /// Sends a request with an optional JSON body.
    pub async fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Reply {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut b = self.request(method, path);
        if let Some(body) = body {
            b = b.json(body);
        }
        let r = b.send().await.expect("request");
        let status = r.status().as_u16();
        let header = |name: &str| {
            r.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let set_cookie = header("set-cookie");
        let retry_after = header("retry-after");
        let text = r.text().await.unwrap_or_default();
        Reply {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
            set_cookie,
            retry_after,
        }
    }

    /// GET.
    pub async fn get(&self, path: &str) -> Reply {
        self.send("GET", path, None).await
    }

    /// GET of a binary answer: its status, Content-Type and bytes.
    pub async fn get_bytes(&self, path: &str) -> (u16, String, Vec<u8>) {
        let r = self
            .request(reqwest::Method::GET, path)
            .send()
            .await
            .expect("request");
        let status = r.status().as_u16();
        let kind = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let bytes = r.bytes().await.map(|b| b.to_vec()).unwrap_or_default();
        (status, kind, bytes)
    }

    /// POST with a JSON body.
    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.send("POST", path, Some(body)).await
    }

    /// Starts a run and returns its id (asserting 202).
    pub async fn run(&self, body: Value) -> (String, String) {
        let r = self.post("/api/agent/run", &body).await;
        assert_eq!(r.status, 202, "start run: {}", r.text);
        (
            r.body["run_id"].as_str().unwrap().to_owned(),
            r.body["conversation"].as_str().unwrap().to_owned(),
        )
    }

    /// Opens the event stream of `run_id` after `last_event_id`.
    pub async fn stream(&self, run_id: &str, last_event_id: Option<u64>) -> Sse {
        self.stream_at(&format!("/api/agent/stream?run_id={run_id}"), last_event_id)
            .await
    }

    /// Opens the event stream at `path` (an agent run's or a task run's) after `last_event_id`.
    pub async fn stream_at(&self, path: &str, last_event_id: Option<u64>) -> Sse {
        let mut b = self.request(reqwest::Method::GET, path);
        if let Some(id) = last_event_id {
            b = b.header("last-event-id", id.to_string());
        }
        let r = b.send().await.expect("stream request");
        Sse {
            status: r.status().as_u16(),
            content_type: r
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned(),
            response: Some(r),
            buffer: String::new(),
        }
    }

    /// Every event of `run_id` from the start through `done` (panics after 60 s).
    pub async fn events(&self, run_id: &str) -> Vec<SseEvent> {
        let mut s = self.stream(run_id, None).await;
        assert_eq!(s.status, 200, "stream status");
        s.until_done(Duration::from_secs(60)).await
    }
}

/// One received SSE event.
#[derive(Debug, Clone)]
pub struct SseEvent {
    /// `id:`.
    pub id: u64,
    /// `event:`.
    pub event: String,
    /// `data:` as JSON.
    pub data: Value,
}

/// An open SSE response.
pub struct Sse {
    /// Status code.
    pub status: u16,
    /// Content-Type.
    pub content_type: String,
    response: Option<reqwest::Response>,
    buffer: String,
}

impl Sse {
    /// The next event, `None` at the end of the stream.
    pub async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut ev = SseEvent {
                    id: 0,
                    event: String::new(),
                    data: Value::Null,
                };
                let mut comment_only = true;
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id: ") {
                        ev.id = v.parse().expect("numeric id");
                        comment_only = false;
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        ev.event = v.to_owned();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        ev.data = serde_json::from_str(v).expect("JSON data");
                    }
                }
                if comment_only {
                    continue;
                }
                return Some(ev);
            }
            let chunk = self.response.as_mut()?.chunk().await.ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Events through `done` or the end of the stream.
    pub async fn until_done(&mut self, limit: Duration) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let read = async {
            while let Some(e) = self.next().await {
                let done = e.event == "done";
                out.push(e);
                if done {
                    break;
                }
            }
        };
        tokio::time::timeout(limit, read)
            .await
            .expect("the run did not finish in time");
        out
    }

    /// The next event of type `kind` (skipping others).
    pub async fn next_of(&mut self, kind: &str) -> SseEvent {
        tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let e = self.next().await.expect("stream ended early");
                if e.event == kind {
                    return e;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no {kind} event in time"))
    }
}

/// The types of `events`, in order.
pub fn kinds(events: &[SseEvent]) -> Vec<&str> {
    events.iter().map(|e| e.event.as_str()).collect()
}

/// Reads `n` JPEG parts of an MJPEG response.
pub async fn mjpeg_frames(url: &str, n: usize) -> Vec<Vec<u8>> {
    let mut r = reqwest::Client::new()
        .get(url)
        .bearer_auth(API_TOKEN)
        .send()
        .await
        .expect("live request");
    assert_eq!(r.status(), 200);
    let ct = r.headers()["content-type"].to_str().unwrap().to_owned();
    assert_eq!(ct, "multipart/x-mixed-replace; boundary=frame");
    let mut buf: Vec<u8> = Vec::new();
    let mut frames = Vec::new();
    let read = async {
        while frames.len() < n {
            let chunk = r.chunk().await.expect("chunk").expect("stream ended");
            buf.extend_from_slice(&chunk);
            // Parse complete parts: headers, blank line, Content-Length bytes, CRLF.
            while let Some(head_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                assert!(head.starts_with("--frame\r\n"), "{head}");
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .expect("Content-Length")
                    .trim()
                    .parse()
                    .unwrap();
                let start = head_end + 4;
                if buf.len() < start + len + 2 {
                    break;
                }
                frames.push(buf[start..start + len].to_vec());
                buf.drain(..start + len + 2);
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("frames in time");
    frames
}
