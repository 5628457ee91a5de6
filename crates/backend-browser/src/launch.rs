//! Starting Debian's Chromium headless (private profile, off the network, free debugging port)
//! or finding the DevTools socket of a running browser.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

/// What can go wrong starting or finding a browser.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// No Chromium on this machine.
    #[error(
        "Chromium was not found (looked for {looked}). Install Debian's package with \
         `apt-get install -y chromium`, or set DEFT_CHROMIUM to the browser's path."
    )]
    NotFound {
        /// The names and paths looked for.
        looked: String,
    },
    /// The program could not be started.
    #[error("cannot start {path}: {reason}")]
    Spawn {
        /// The program.
        path: String,
        /// Why.
        reason: String,
    },
    /// It started but never printed its DevTools address.
    #[error("Chromium did not open its DevTools port within {secs} s; its last output: {output}")]
    NoDevTools {
        /// The limit.
        secs: u64,
        /// The tail of its stderr.
        output: String,
    },
    /// The temporary profile could not be made.
    #[error("cannot create the temporary browser profile: {0}")]
    Profile(std::io::Error),
    /// An attach URL that does not lead to a DevTools socket.
    #[error("cannot attach to the browser at {url}: {reason}")]
    Attach {
        /// The URL given.
        url: String,
        /// Why.
        reason: String,
    },
}

/// The flags Chromium needs on a server: headless, no sandbox (we often run as root), off the network.
pub(crate) const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--disable-smooth-scrolling",
    "--password-store=basic",
    "--use-mock-keychain",
    "--window-size=1280,800",
    "--remote-debugging-port=0",
];

/// How long Chromium may take to open its DevTools port.
pub(crate) const START_LIMIT: Duration = Duration::from_secs(20);

/// Where to look for Chromium: `DEFT_CHROMIUM`, then these names on `PATH`.
const NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "chrome"];

/// The Chromium program to start: `explicit`, else `DEFT_CHROMIUM`, else the first of
/// `chromium`, `chromium-browser`, `google-chrome` on `PATH`.
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, LaunchError> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_owned())
        } else {
            Err(LaunchError::NotFound {
                looked: p.display().to_string(),
            })
        };
    }
    if let Some(p) = std::env::var_os("DEFT_CHROMIUM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(LaunchError::NotFound {
                looked: format!("DEFT_CHROMIUM={}", p.display()),
            })
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in NAMES {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(LaunchError::NotFound {
        looked: format!("{} on PATH", NAMES.join(", ")),
    })
}

/// A Chromium this process started: its own process group, a temporary profile, killed (the
/// whole group) and reaped when dropped or [`ChromiumProcess::stop`]ped.
#[derive(Debug)]
pub struct ChromiumProcess {
    child: Option<Child>,
    pgid: i32,
    ws_url: String,
    profile: Option<tempfile::TempDir>,
}

impl ChromiumProcess {
    /// Starts `program` with deft's Chromium flags (headless, no sandbox, off the network, a free
    /// debugging port) and a fresh profile; returns once DevTools listens.
    pub async fn start(program: &Path, extra_args: &[String]) -> Result<Self, LaunchError> {
        let profile = tempfile::Builder::new()
            .prefix("deft-chromium-")
            .tempdir()
            .map_err(LaunchError::Profile)?;
        let downloads = profile.path().join("Downloads");
        let _ = std::fs::create_dir_all(&downloads);
        let mut cmd = Command::new(program);
        deft_tools::secrets::scrub_env(cmd.as_std_mut());
        cmd.args(CHROMIUM_FLAGS)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra_args)
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        die_with_parent(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| LaunchError::Spawn {
            path: program.display().to_string(),
            reason: e.to_string(),
        })?;
        let pgid = child.id().map_or(0, |p| p as i32);
        let mut proc = ChromiumProcess {
            child: None,
            pgid,
            ws_url: String::new(),
            profile: Some(profile),
        };
        let Some(stderr) = child.stderr.take() else {
            proc.child = Some(child);
            return Err(LaunchError::NoDevTools {
                secs: 0,
                output: "no stderr".into(),
            });
        };
        proc.child = Some(child);
        let mut lines = BufReader::new(stderr).lines();
        let mut tail: Vec<String> = Vec::new();
        let found = tokio::time::timeout(START_LIMIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.split("DevTools listening on ").nth(1) {
                    return Some(url.trim().to_owned());
                }
                tail.push(line);
                if tail.len() > 8 {
                    tail.remove(0);
                }
            }
            None
        })
        .await;
        match found {
            Ok(Some(url)) => {
                proc.ws_url = url;
                // Keep draining stderr so Chromium never blocks on a full pipe.
                tokio::spawn(async move {
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::trace!(target: "chromium", "{line}");
                    }
                });
                Ok(proc)
            }
            Ok(None) | Err(_) => Err(LaunchError::NoDevTools {
                secs: START_LIMIT.as_secs(),
                output: tail.join(" | "),
            }),
        }
    }

    /// The browser's DevTools WebSocket URL.
    pub fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// The process group id (the browser's pid); every Chromium helper process is in it.
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// The profile folder (removed on stop).
    pub(crate) fn profile_dir(&self) -> Option<&Path> {
        self.profile.as_ref().map(tempfile::TempDir::path)
    }

    /// Kills the whole process group, reaps the browser and removes the profile.
    pub async fn stop(&mut self) {
        self.kill_group();
        if let Some(mut child) = self.child.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
        }
        self.profile.take();
    }

    /// SIGKILLs the browser's process group (std can signal one child, not a group).
    fn kill_group(&self) {
        if let Some(pgid) = rustix::process::Pid::from_raw(self.pgid) {
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for ChromiumProcess {
    fn drop(&mut self) {
        self.kill_group();
        if let Some(mut child) = self.child.take() {
            // Reap without blocking for long: the group got SIGKILL.
            for _ in 0..50 {
                if matches!(child.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// Makes the kernel SIGKILL the started browser when the thread that started it (a runtime
/// worker) dies without a chance to run destructors. std has no safe API for this.
#[allow(unsafe_code)]
fn die_with_parent(cmd: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec, where only async-signal-safe
    // calls are allowed: it calls prctl(2) with integer arguments and allocates nothing.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// The DevTools WebSocket URL for `url`: a `ws://` URL as is; for `http://host:port`, the
/// `webSocketDebuggerUrl` of its `/json/version`.
pub(crate) async fn resolve_ws_url(url: &str) -> Result<String, LaunchError> {
    let err = |reason: String| LaunchError::Attach {
        url: url.to_owned(),
        reason,
    };
    if url.starts_with("ws://") || url.starts_with("wss://") {
        return Ok(url.to_owned());
    }
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| err("expected ws://… or http://host:port".into()))?;
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() {
        return Err(err("no host:port in the URL".into()));
    }
    let mut stream =
        tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(host))
            .await
            .map_err(|_| err("connection timed out".into()))?
            .map_err(|e| err(e.to_string()))?;
    // DevTools rejects HTTP/1.0, ignores `Connection: close` and builds the URL from `Host`.
    let request = format!("GET /json/version HTTP/1.1\r\nHost: {host}\r\nAccept: */*\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| err(e.to_string()))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let body = loop {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk))
            .await
            .map_err(|_| err("no answer from /json/version".into()))?
            .map_err(|e| err(e.to_string()))?;
        if n == 0 {
            return Err(err(
                "the connection closed before /json/version answered".into()
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())
                        .flatten()
                })
                .unwrap_or(0);
            if body.len() >= len {
                break body.to_owned();
            }
        }
    };
    let v: serde_json::Value =
        serde_json::from_str(&body).map_err(|e| err(format!("not JSON: {e}")))?;
    v.get("webSocketDebuggerUrl")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| err("/json/version has no webSocketDebuggerUrl".into()))
}
