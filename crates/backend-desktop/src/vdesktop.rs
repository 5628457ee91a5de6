//! The managed virtual desktop: a private Xvfb, a D-Bus session bus, the AT-SPI bus and registry,
//! and openbox, with their own HOME, recorded in a state file so later commands find them.
//!
//! Every process runs in one process group (Xvfb's), so [`stop`] reaches
//! everything the desktop started — D-Bus-activated `at-spi-bus-launcher`, the accessibility bus
//! and `at-spi2-registryd` included — and nothing else. Xvfb picks a free display itself
//! (`-displayfd`), so a display owned by someone else is never taken.

use std::fs;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::proc::{self, process_name, process_pgid, which};
pub use crate::proc::{group_members, pid_alive};

/// Screen size of the managed desktop.
const SCREEN: (u32, u32) = (1280, 1024);

/// How long start waits for each part to become ready.
const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// How long stop waits for the processes to exit after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// Name of the state file inside deft's data folder.
const STATE_FILE: &str = "desktop.json";

/// Folder (inside deft's data folder) holding the desktop's HOME, runtime dir, sockets and logs.
pub const WORK_DIR: &str = "desktop";

/// What a running managed desktop is: written by [`start`] to the state file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesktopState {
    /// X display, e.g. `:3`.
    pub display: String,
    /// D-Bus session bus address.
    pub session_bus: String,
    /// AT-SPI (accessibility) bus address.
    pub a11y_bus: String,
    /// HOME of the desktop's programs.
    pub home: PathBuf,
    /// The desktop's work folder (HOME, runtime dir, logs).
    pub dir: PathBuf,
    /// Process group of every process the desktop started (= Xvfb's pid).
    pub pgid: i32,
    /// Pids by part: `xvfb`, `dbus`, `bus_launcher`, `registryd`, `openbox`.
    pub pids: std::collections::BTreeMap<String, i32>,
}

impl DesktopState {
    /// The environment a program on this desktop needs (DISPLAY, buses, HOME, XDG dirs, a11y on).
    pub fn env(&self) -> Vec<(String, String)> {
        let home = self.home.to_string_lossy().into_owned();
        let runtime = self.dir.join("run").to_string_lossy().into_owned();
        vec![
            ("DISPLAY".into(), self.display.clone()),
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.session_bus.clone()),
            ("AT_SPI_BUS_ADDRESS".into(), self.a11y_bus.clone()),
            ("HOME".into(), home.clone()),
            ("XDG_CONFIG_HOME".into(), format!("{home}/.config")),
            ("XDG_CACHE_HOME".into(), format!("{home}/.cache")),
            ("XDG_DATA_HOME".into(), format!("{home}/.local/share")),
            ("XDG_RUNTIME_DIR".into(), runtime),
            ("ACCESSIBILITY_ENABLED".into(), "1".into()),
            ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON".into(), "1".into()),
            ("GTK_A11Y".into(), "atspi".into()),
            ("NO_AT_BRIDGE".into(), "0".into()),
        ]
    }

    /// Reads a state file; `Ok(None)` when there is none.
    pub fn load(path: &Path) -> Result<Option<DesktopState>, DesktopError> {
        match fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| DesktopError::State(path.to_owned(), e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(DesktopError::State(path.to_owned(), e.to_string())),
        }
    }

    /// Whether the desktop's Xvfb still runs.
    pub(crate) fn is_alive(&self) -> bool {
        self.pids
            .get("xvfb")
            .is_some_and(|&pid| pid_alive(pid) && process_name(pid).as_deref() == Some("Xvfb"))
    }
}

/// What [`status`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DesktopStatus {
    /// No state file.
    NotStarted,
    /// A state file whose Xvfb is gone (start cleans it up).
    Stale(DesktopState),
    /// Running; the parts whose process is alive, and those that are gone.
    Running {
        /// The state file's content.
        state: DesktopState,
        /// Parts (by name) whose pid is alive.
        alive: Vec<String>,
        /// Parts whose pid is gone.
        dead: Vec<String>,
    },
}

/// Why the managed desktop could not start or stop.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// A program the desktop needs is not installed.
    #[error(
        "`{0}` is not installed; the managed desktop needs the Debian packages xvfb, dbus-daemon, at-spi2-core and openbox (scripts/test.sh installs them)"
    )]
    Missing(String),
    /// A part did not become ready in time.
    #[error("the managed desktop did not start: {0}")]
    NotReady(String),
    /// The state file is unreadable.
    #[error("the desktop state file {0} is unreadable: {1}")]
    State(PathBuf, String),
    /// File system or process error.
    #[error("the managed desktop failed: {0}")]
    Io(String),
}

fn io(e: impl std::fmt::Display) -> DesktopError {
    DesktopError::Io(e.to_string())
}

/// The state file path inside `data_dir`.
pub fn state_path(data_dir: &Path) -> PathBuf {
    data_dir.join(STATE_FILE)
}

/// Reports whether the desktop recorded in `state_file` runs.
pub fn status(state_file: &Path) -> Result<DesktopStatus, DesktopError> {
    let Some(state) = DesktopState::load(state_file)? else {
        return Ok(DesktopStatus::NotStarted);
    };
    if !state.is_alive() {
        return Ok(DesktopStatus::Stale(state));
    }
    let (alive, dead): (Vec<_>, Vec<_>) = state.pids.iter().partition(|(_, pid)| pid_alive(**pid));
    Ok(DesktopStatus::Running {
        alive: alive.into_iter().map(|(k, _)| k.clone()).collect(),
        dead: dead.into_iter().map(|(k, _)| k.clone()).collect(),
        state,
    })
}

/// Starts the managed desktop recorded in `state_file`, its files under `work_dir`. Idempotent:
/// when it already runs, returns its state and `false`; a stale state (dead Xvfb) is cleaned up
/// first. Returns the state and whether this call started it.
pub async fn start(
    state_file: &Path,
    work_dir: &Path,
) -> Result<(DesktopState, bool), DesktopError> {
    if let Some(state) = DesktopState::load(state_file)? {
        if state.is_alive() {
            return Ok((state, false));
        }
        tracing::info!("cleaning up a stale managed desktop ({})", state.display);
        kill_group(state.pgid);
        let _ = fs::remove_file(state_file);
    }
    for program in ["Xvfb", "dbus-daemon", "openbox"] {
        if which(program).is_none() {
            return Err(DesktopError::Missing(program.into()));
        }
    }
    let state = launch(work_dir).await?;
    if let Some(parent) = state_file.parent() {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let json = serde_json::to_vec_pretty(&state).map_err(io)?;
    let tmp = state_file.with_extension("json.tmp");
    fs::write(&tmp, json).map_err(io)?;
    fs::rename(&tmp, state_file).map_err(io)?;
    Ok((state, true))
}

/// Stops the desktop recorded in `state_file`: every process of its group, then the state file.
/// Returns the state it stopped, or `None` when nothing was recorded.
pub fn stop(state_file: &Path) -> Result<Option<DesktopState>, DesktopError> {
    let Some(state) = DesktopState::load(state_file)? else {
        return Ok(None);
    };
    kill_group(state.pgid);
    for pid in state.pids.values() {
        // Only a pid we recorded that is still in the desktop's group (not a reused pid).
        if pid_alive(*pid) && process_pgid(*pid) == Some(state.pgid) {
            proc::signal(*pid, proc::Signal::KILL);
        }
    }
    fs::remove_file(state_file).map_err(io)?;
    Ok(Some(state))
}

/// SIGTERM to the group, SIGKILL after a grace period; waits until no member is left.
fn kill_group(pgid: i32) {
    if pgid <= 1 {
        return;
    }
    proc::signal_group(pgid, proc::Signal::TERM);
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline && !group_members(pgid).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    proc::signal_group(pgid, proc::Signal::KILL);
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline && !group_members(pgid).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn launch(work_dir: &Path) -> Result<DesktopState, DesktopError> {
    let home = work_dir.join("home");
    let run = work_dir.join("run");
    let logs = work_dir.join("logs");
    for d in [
        home.clone(),
        home.join(".config"),
        home.join(".cache"),
        home.join(".local/share"),
        run.clone(),
        logs.clone(),
    ] {
        fs::create_dir_all(&d).map_err(io)?;
    }
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&run, fs::Permissions::from_mode(0o700)).map_err(io)?;

    let (xvfb, display) = spawn_xvfb(&logs, &home)?;
    let pgid = xvfb;
    let mut pids = std::collections::BTreeMap::new();
    pids.insert("xvfb".to_owned(), xvfb);
    let parts = Parts {
        home: &home,
        run: &run,
        logs: &logs,
        display: &display,
        pgid,
        pids: &mut pids,
    };
    let result = launch_rest(parts).await;
    match result {
        Ok((session_bus, a11y_bus)) => Ok(DesktopState {
            display,
            session_bus,
            a11y_bus,
            home,
            dir: work_dir.to_owned(),
            pgid,
            pids,
        }),
        Err(e) => {
            kill_group(pgid);
            Err(e)
        }
    }
}

/// Xvfb in a new process group (its pid is the desktop's process group), with the desktop's `home`;
/// it picks a free display and writes its number to a pipe (`-displayfd`), which it closes then.
fn spawn_xvfb(logs: &Path, home: &Path) -> Result<(i32, String), DesktopError> {
    // The write end goes to Xvfb by number; the read end stays close-on-exec, so no child holds
    // it. Not Xvfb's stdout: that stays /dev/null for Xvfb and what it runs (xkbcomp), long
    // after this process is gone.
    let (mut pipe, displayfd) = std::io::pipe().map_err(io)?;
    proc::inheritable(&displayfd).map_err(io)?;
    let log = fs::File::create(logs.join("xvfb.log")).map_err(io)?;
    let mut cmd = Command::new("Xvfb");
    // The desktop's own, as everything it runs: no display, buses or home of the caller.
    let env = [("HOME".to_owned(), home.to_string_lossy().into_owned())];
    deft_tools::device_env::apply(&mut cmd, &env);
    cmd.args([
        "-displayfd",
        &displayfd.as_raw_fd().to_string(),
        "-screen",
        "0",
        &format!("{}x{}x24", SCREEN.0, SCREEN.1),
        "-nolisten",
        "tcp",
        "-noreset",
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(log);
    // A process group of its own that the other parts join (setpgid only works within one
    // session, so no setsid here).
    cmd.process_group(0);
    let spawned = cmd.spawn();
    // Close our copy of the write end, so the read below ends when Xvfb dies.
    drop(displayfd);
    let child = spawned.map_err(|e| DesktopError::Io(format!("cannot run Xvfb: {e}")))?;
    let pid = reap_in_background(child);
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    // Xvfb writes "N\n" when ready, or closes the pipe when it dies.
    loop {
        match pipe.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => buf.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    let number = String::from_utf8_lossy(&buf).trim().to_owned();
    if number.is_empty() || !pid_alive(pid) {
        return Err(not_ready(
            logs,
            "xvfb.log",
            "Xvfb exited before taking a display",
        ));
    }
    Ok((pid, format!(":{number}")))
}

/// Reaps `child` in the background whenever it exits (we are its parent while this process
/// lives); returns its pid.
fn reap_in_background(mut child: std::process::Child) -> i32 {
    let pid = child.id() as i32;
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    pid
}

/// A part that did not come up, with what its log says.
fn not_ready(logs: &Path, log: &str, what: &str) -> DesktopError {
    let log = fs::read_to_string(logs.join(log)).unwrap_or_default();
    DesktopError::NotReady(format!("{what}: {}", log.trim()))
}

fn spawn_in_group(
    program: &str,
    args: &[&str],
    env: &[(String, String)],
    log: &Path,
    pgid: i32,
) -> Result<i32, DesktopError> {
    let log = fs::File::create(log).map_err(io)?;
    let mut cmd = Command::new(program);
    cmd.args(args);
    deft_tools::device_env::apply(&mut cmd, env)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(io)?)
        .stderr(log)
        .process_group(pgid);
    let child = cmd
        .spawn()
        .map_err(|e| DesktopError::Io(format!("cannot run {program}: {e}")))?;
    Ok(reap_in_background(child))
}

/// Where the desktop's parts are started: its display, files and process group, and the pids
/// recorded so far.
struct Parts<'a> {
    home: &'a Path,
    run: &'a Path,
    logs: &'a Path,
    display: &'a str,
    pgid: i32,
    pids: &'a mut std::collections::BTreeMap<String, i32>,
}

/// Starts everything after Xvfb, each part once the one before answers: the session bus, the
/// accessibility bus and registry, openbox. Returns the session and accessibility bus addresses.
async fn launch_rest(mut parts: Parts<'_>) -> Result<(String, String), DesktopError> {
    let session_bus = format!("unix:path={}", parts.run.join("bus").display());
    let env = parts_env(&parts, &session_bus);
    let session = start_session_bus(&mut parts, &env, &session_bus).await?;
    let (a11y_bus, a11y) = start_a11y(&session).await?;
    if let Some(pid) = connection_pid(&session, "org.a11y.Bus").await {
        parts.pids.insert("bus_launcher".into(), pid);
    }
    if let Some(pid) = connection_pid(&a11y, "org.a11y.atspi.Registry").await {
        parts.pids.insert("registryd".into(), pid);
    }
    start_openbox(&mut parts, &env).await?;
    Ok((session_bus, a11y_bus))
}

/// The environment the desktop's own parts run with.
fn parts_env(parts: &Parts<'_>, session_bus: &str) -> Vec<(String, String)> {
    let home_s = parts.home.to_string_lossy().into_owned();
    vec![
        ("DISPLAY".into(), parts.display.into()),
        ("HOME".into(), home_s.clone()),
        ("XDG_CONFIG_HOME".into(), format!("{home_s}/.config")),
        ("XDG_CACHE_HOME".into(), format!("{home_s}/.cache")),
        ("XDG_DATA_HOME".into(), format!("{home_s}/.local/share")),
        (
            "XDG_RUNTIME_DIR".into(),
            parts.run.to_string_lossy().into_owned(),
        ),
        ("DBUS_SESSION_BUS_ADDRESS".into(), session_bus.into()),
    ]
}

/// dbus-daemon on `session_bus`, once a connection to it succeeds.
async fn start_session_bus(
    parts: &mut Parts<'_>,
    env: &[(String, String)],
    session_bus: &str,
) -> Result<zbus::Connection, DesktopError> {
    let dbus = spawn_in_group(
        "dbus-daemon",
        &[
            "--session",
            "--nofork",
            "--nopidfile",
            &format!("--address={session_bus}"),
        ],
        env,
        &parts.logs.join("dbus.log"),
        parts.pgid,
    )?;
    parts.pids.insert("dbus".into(), dbus);
    wait_for(
        || async {
            zbus::connection::Builder::address(session_bus)?
                .build()
                .await
        },
        "the D-Bus session bus",
    )
    .await
}

/// Asks for accessibility: D-Bus activates at-spi-bus-launcher (and tells Chromium/Qt to expose
/// a tree); then the accessibility bus address, a connection to it, and the registry on it.
async fn start_a11y(
    session: &zbus::Connection,
) -> Result<(String, zbus::Connection), DesktopError> {
    wait_for(
        || async {
            session
                .call_method(
                    Some("org.a11y.Bus"),
                    "/org/a11y/bus",
                    Some("org.freedesktop.DBus.Properties"),
                    "Set",
                    &(
                        "org.a11y.Status",
                        "IsEnabled",
                        zbus::zvariant::Value::from(true),
                    ),
                )
                .await
        },
        "the accessibility bus launcher (at-spi2-core)",
    )
    .await?;
    let a11y_bus: String = wait_for(
        || async {
            let reply = crate::a11y::ask_a11y_address(session).await?;
            let addr: String = reply.body().deserialize()?;
            if addr.is_empty() {
                return Err(zbus::Error::Failure("empty address".into()));
            }
            Ok(addr)
        },
        "the accessibility bus address",
    )
    .await?;
    let a11y = wait_for(
        || async {
            zbus::connection::Builder::address(a11y_bus.as_str())?
                .build()
                .await
        },
        "the accessibility bus",
    )
    .await?;
    wait_for(
        || async {
            a11y.call_method(
                Some("org.a11y.atspi.Registry"),
                "/org/a11y/atspi/accessible/root",
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &("org.a11y.atspi.Accessible", "ChildCount"),
            )
            .await
        },
        "the AT-SPI registry (at-spi2-registryd)",
    )
    .await?;
    Ok((a11y_bus, a11y))
}

/// openbox, once it owns the WM selection (`_NET_SUPPORTING_WM_CHECK` is set).
async fn start_openbox(
    parts: &mut Parts<'_>,
    env: &[(String, String)],
) -> Result<(), DesktopError> {
    let openbox = spawn_in_group(
        "openbox",
        &["--sm-disable"],
        env,
        &parts.logs.join("openbox.log"),
        parts.pgid,
    )?;
    parts.pids.insert("openbox".into(), openbox);
    let display = parts.display.to_owned();
    let waited = tokio::task::spawn_blocking(move || wait_for_wm(&display))
        .await
        .map_err(io)?;
    if let Err(why) = waited {
        let xvfb_alive = pid_alive(parts.pgid);
        let log = fs::read_to_string(parts.logs.join("openbox.log")).unwrap_or_default();
        let xvfb_log = fs::read_to_string(parts.logs.join("xvfb.log")).unwrap_or_default();
        return Err(DesktopError::NotReady(format!(
            "openbox did not take the display {} within {} s ({why}; Xvfb {}); openbox.log: {}; xvfb.log: {}",
            parts.display,
            READY_TIMEOUT.as_secs(),
            if xvfb_alive {
                "still runs"
            } else {
                "has exited"
            },
            log.trim(),
            xvfb_log.trim(),
        )));
    }
    Ok(())
}

/// Waits until a window manager owns `display` (`_NET_SUPPORTING_WM_CHECK` set on the root
/// window). Connecting is retried too: a connection refused once (the server busy accepting
/// another part's) is not a failure until the deadline; the last reason is returned.
fn wait_for_wm(display: &str) -> Result<(), String> {
    let deadline = Instant::now() + READY_TIMEOUT;
    let mut last = String::from("not asked yet");
    while Instant::now() < deadline {
        match wm_check(display) {
            Ok(true) => return Ok(()),
            Ok(false) => last = "no window manager has set _NET_SUPPORTING_WM_CHECK".into(),
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(last)
}

/// One look: whether `_NET_SUPPORTING_WM_CHECK` is set on `display`'s root window.
fn wm_check(display: &str) -> Result<bool, String> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};
    let (conn, screen) =
        x11rb::connect(Some(display)).map_err(|e| format!("cannot connect to {display}: {e}"))?;
    let root = conn.setup().roots[screen].root;
    let atom = conn
        .intern_atom(false, b"_NET_SUPPORTING_WM_CHECK")
        .map_err(|e| e.to_string())?
        .reply()
        .map_err(|e| format!("cannot ask {display} for the WM check atom: {e}"))?;
    let reply = conn
        .get_property(false, root, atom.atom, AtomEnum::WINDOW, 0, 1)
        .map_err(|e| e.to_string())?
        .reply()
        .map_err(|e| format!("cannot read the root window's WM check: {e}"))?;
    Ok(reply.value_len > 0)
}

async fn connection_pid(conn: &zbus::Connection, name: &str) -> Option<i32> {
    i32::try_from(crate::a11y::bus_pid(conn, name).await?).ok()
}

/// Retries `f` every 20 ms until it succeeds or [`READY_TIMEOUT`] passes.
async fn wait_for<T, F, Fut>(mut f: F, what: &str) -> Result<T, DesktopError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = zbus::Result<T>>,
{
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        match f().await {
            Ok(v) => return Ok(v),
            Err(e) if Instant::now() >= deadline => {
                return Err(DesktopError::NotReady(format!(
                    "{what} did not answer within {} s: {e}",
                    READY_TIMEOUT.as_secs()
                )));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}
