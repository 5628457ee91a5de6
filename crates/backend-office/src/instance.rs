//! The LibreOffice instance of a device session: `soffice.bin` itself (not the `soffice` script,
//! so the process deft watches is the one that runs), with a private profile, the gtk3 VCL
//! plug-in (an accessibility tree), `--accept` on a private UNO pipe, started on the desktop's
//! display and supervised by a thread that restarts it after a crash and stops it with the
//! session.
//!
//! No orphans: `soffice.bin` runs in a process group of its own, started through util-linux's
//! `setpriv --pdeathsig KILL`, so the kernel kills it when the supervising thread dies — with
//! deft, even by SIGKILL; [`Instance::stop`] (and drop) ends the group.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use rustix::process::{Pid, Signal};

use crate::texts;

/// LibreOffice's exit code for "start me again" (after it set up a fresh profile).
const EXIT_RESTART: i32 = 81;

/// How many crashes within [`CRASH_WINDOW`] are restarted; one more and the supervisor gives up
/// (the next document opened starts a new instance).
const MAX_CRASHES: usize = 3;

/// The window [`MAX_CRASHES`] counts in.
const CRASH_WINDOW: Duration = Duration::from_secs(60);

/// How long stop waits after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Debian's `soffice.bin`.
pub const DEFAULT_PROGRAM: &str = "/usr/lib/libreoffice/program/soffice.bin";

/// Settings of a fresh profile: no first-start dialogs, tips, donation or update nags, no
/// autosave or recovery prompts, no locking (a killed instance's stale lock would open the next
/// copy read-only), no "keep the format?" question when saving to Microsoft formats, and no
/// template picker for a new presentation.
const PROFILE_SETTINGS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseLocking" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseDocumentOOoLockFile" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseDocumentSystemFileLocking" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Recovery/AutoSave"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Recovery/RecoveryInfo"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Impress/Misc"><prop oor:name="StartWithTemplate" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>99.0</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="LastTimeDonateShown" oor:op="fuse"><value>9999999999</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="LastTimeGetInvolvedShown" oor:op="fuse"><value>9999999999</value></prop></item>
</oor:items>
"#;

/// Where `soffice.bin` is: `program` when given (the binary, the `program/` folder holding it,
/// or the `soffice` script beside it), else Debian's place, else beside `soffice` on PATH.
pub fn find_program(program: Option<&Path>) -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = match program {
        Some(p) => vec![
            p.to_owned(),
            p.join("soffice.bin"),
            p.with_file_name("soffice.bin"),
        ],
        None => {
            let mut c = vec![PathBuf::from(DEFAULT_PROGRAM)];
            if let Some(script) = which("soffice")
                && let Ok(real) = std::fs::canonicalize(script)
            {
                c.push(real.with_file_name("soffice.bin"));
            }
            c
        }
    };
    candidates
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "soffice.bin") && p.is_file())
        .ok_or_else(|| {
            texts::office_missing(
                &program
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| DEFAULT_PROGRAM.to_owned()),
            )
        })
}

/// `program` on PATH.
pub fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// The socket of a UNO pipe (LibreOffice's pipes live in `/tmp`, whatever `TMPDIR` says).
pub fn pipe_socket(pipe: &str) -> PathBuf {
    let uid = rustix::process::getuid().as_raw();
    PathBuf::from(format!("/tmp/OSL_PIPE_{uid}_{pipe}"))
}

/// Whether a UNO pipe accepts connections now.
pub fn pipe_answers(pipe: &str) -> bool {
    std::os::unix::net::UnixStream::connect(pipe_socket(pipe)).is_ok()
}

/// How to start the instance.
#[derive(Debug, Clone)]
pub struct Launch {
    /// `soffice.bin`.
    pub program: PathBuf,
    /// The environment of programs on the desktop (DISPLAY, buses, HOME, …).
    pub env: Vec<(String, String)>,
    /// The private profile folder.
    pub profile: PathBuf,
}

/// What runs now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// `soffice.bin`'s pid (also its process group).
    pub pid: u32,
    /// The UNO pipe's name (`--accept=pipe,name=…`).
    pub pipe: String,
}

#[derive(Debug, Default)]
struct State {
    running: Option<Running>,
    crashes: Vec<Instant>,
    /// How the last unexpected exit ended (`signal 9`).
    last_crash: Option<String>,
    stopping: bool,
    /// Why the supervisor gave up.
    failed: Option<String>,
}

type Shared = Arc<(Mutex<State>, Condvar)>;

/// The supervised LibreOffice of one device session; stopped on drop.
pub struct Instance {
    launch: Launch,
    shared: Shared,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("program", &self.launch.program)
            .field("profile", &self.launch.profile)
            .field("running", &self.running())
            .finish_non_exhaustive()
    }
}

static PIPES: AtomicU64 = AtomicU64::new(0);

/// A pipe name unique on this machine: deft's pid, a counter and the clock.
fn new_pipe_name() -> String {
    let n = PIPES.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("deft-office-{}-{n}-{nanos:x}", std::process::id())
}

impl Instance {
    /// Seeds the profile and starts the supervisor, which starts LibreOffice.
    pub fn start(launch: Launch) -> Result<Self, String> {
        seed_profile(&launch.profile)?;
        let shared: Shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let thread = {
            let launch = launch.clone();
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("deft-office".into())
                .spawn(move || supervise(&launch, &shared))
                .map_err(|e| texts::office_cannot_start("a supervisor thread", &e.to_string()))?
        };
        Ok(Instance {
            launch,
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// What runs now, if anything.
    pub fn running(&self) -> Option<Running> {
        self.shared.0.lock().running.clone()
    }

    /// Why the supervisor gave up, if it did (a new instance is needed then).
    pub fn failed(&self) -> Option<String> {
        self.shared.0.lock().failed.clone()
    }

    /// How LibreOffice last crashed in this session, if it did.
    pub fn last_crash(&self) -> Option<String> {
        self.shared.0.lock().last_crash.clone()
    }

    /// Waits, at most `within`, until LibreOffice runs and its UNO pipe accepts connections.
    pub fn ready(&self, within: Duration) -> Result<Running, String> {
        let deadline = Instant::now() + within;
        loop {
            let running = {
                let (lock, cvar) = &*self.shared;
                let mut s = lock.lock();
                loop {
                    if let Some(why) = &s.failed {
                        return Err(why.clone());
                    }
                    if s.stopping {
                        return Err(texts::OFFICE_STOPPED.to_owned());
                    }
                    if let Some(r) = &s.running {
                        break r.clone();
                    }
                    if cvar.wait_until(&mut s, deadline).timed_out() {
                        return Err(texts::office_not_ready(within.as_secs()));
                    }
                }
            };
            if pipe_answers(&running.pipe) {
                return Ok(running);
            }
            if Instant::now() >= deadline {
                return Err(texts::office_not_ready(within.as_secs()));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Stops LibreOffice (SIGTERM to its group, SIGKILL after a grace) and the supervisor.
    pub fn stop(&self) {
        let pid = {
            let mut s = self.shared.0.lock();
            s.stopping = true;
            self.shared.1.notify_all();
            s.running.as_ref().map(|r| r.pid)
        };
        if let Some(pid) = pid {
            signal_group(pid, Signal::TERM);
            let deadline = Instant::now() + STOP_GRACE;
            while Instant::now() < deadline && alive(pid) {
                std::thread::sleep(Duration::from_millis(20));
            }
            signal_group(pid, Signal::KILL);
        }
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Sends `signal` to process group `pgid`.
fn signal_group(pgid: u32, signal: Signal) {
    if let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, signal);
    }
}

/// Whether `pid` runs (a zombie does not).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(
            stat.rsplit(')')
                .next()
                .map(str::trim_start)
                .and_then(|s| s.chars().next()),
            Some('Z' | 'X') | None
        ),
        Err(_) => false,
    }
}

/// The name of the initialised profile in a folder of profiles.
const TEMPLATE: &str = "template";

/// The marker of a finished template: which `soffice.bin` (path and modification time) set it
/// up, so an upgraded LibreOffice sets up a new one.
const TEMPLATE_MARK: &str = ".deft-template";

/// A profile set up once in `parent` (LibreOffice's first start on a new profile initialises it
/// and exits asking to be started again, code 81), headless with the device's environment
/// `env`; each instance starts from a copy of it and comes up at its first start. Built aside and renamed into place, so concurrent builders
/// never share a half-made one.
pub fn template(
    program: &Path,
    parent: &Path,
    env: &[(String, String)],
) -> Result<PathBuf, String> {
    let dir = parent.join(TEMPLATE);
    let mark = template_mark(program);
    if std::fs::read_to_string(dir.join(TEMPLATE_MARK))
        .ok()
        .as_deref()
        == Some(mark.as_str())
    {
        return Ok(dir);
    }
    let scratch = tempfile::Builder::new()
        .prefix("template-new-")
        .tempdir_in(parent)
        .map_err(|e| texts::profile_failed(parent, &e.to_string()))?;
    let fail = |e: std::io::Error| texts::profile_failed(scratch.path(), &e.to_string());
    seed_profile(scratch.path())?;
    let sample = scratch.path().join("sample.txt");
    std::fs::write(&sample, "deft").map_err(fail)?;
    let mut done = false;
    for _ in 0..3 {
        let mut cmd = Command::new(program);
        let status = deft_tools::device_env::apply(&mut cmd, env)
            .arg(format!(
                "-env:UserInstallation={}",
                crate::documents::file_url(scratch.path())
            ))
            .args([
                "--headless",
                "--norestore",
                "--nologo",
                "--convert-to",
                "txt",
                "--outdir",
            ])
            .arg(scratch.path().join("out"))
            .arg(&sample)
            .env_remove("DISPLAY")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| {
                texts::office_cannot_start(&program.display().to_string(), &e.to_string())
            })?;
        if status.success() {
            done = true;
            break;
        }
    }
    if !done {
        return Err(texts::office_cannot_start(
            &program.display().to_string(),
            "its first start did not finish",
        ));
    }
    let _ = std::fs::remove_dir_all(scratch.path().join("out"));
    let _ = std::fs::remove_file(&sample);
    std::fs::write(scratch.path().join(TEMPLATE_MARK), &mark).map_err(fail)?;
    let made = scratch.keep();
    let _ = std::fs::remove_dir_all(&dir);
    if std::fs::rename(&made, &dir).is_err() {
        // Another builder won the race: use theirs.
        let _ = std::fs::remove_dir_all(&made);
    }
    Ok(dir)
}

fn template_mark(program: &Path) -> String {
    let mtime = std::fs::metadata(program)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("{} {mtime}", program.display())
}

/// Copies the folder `from` to `to` (files and folders).
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), &target)?;
        }
    }
    Ok(())
}

/// Writes [`PROFILE_SETTINGS`] into a profile folder that has none yet.
fn seed_profile(profile: &Path) -> Result<(), String> {
    let user = profile.join("user");
    let file = user.join("registrymodifications.xcu");
    if file.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&user)
        .and_then(|()| std::fs::write(&file, PROFILE_SETTINGS))
        .map_err(|e| texts::profile_failed(&user, &e.to_string()))
}

/// The supervisor: starts LibreOffice and waits for it; starts it again after its own restart
/// request or a crash (at most [`MAX_CRASHES`] a minute), until the handle stops it.
fn supervise(launch: &Launch, shared: &Shared) {
    let (lock, cvar) = &**shared;
    loop {
        if lock.lock().stopping {
            return;
        }
        let pipe = new_pipe_name();
        let mut child = match spawn(launch, &pipe) {
            Ok(c) => c,
            Err(e) => {
                lock.lock().failed = Some(e);
                cvar.notify_all();
                return;
            }
        };
        lock.lock().running = Some(Running {
            pid: child.id(),
            pipe: pipe.clone(),
        });
        cvar.notify_all();
        let status = child.wait();
        let _ = std::fs::remove_file(pipe_socket(&pipe));
        let mut s = lock.lock();
        s.running = None;
        if s.stopping {
            cvar.notify_all();
            return;
        }
        if let Err(why) = note_exit(&mut s, status, launch) {
            s.failed = Some(why);
            cvar.notify_all();
            return;
        }
        cvar.notify_all();
    }
}

/// Records an exit: LibreOffice's own restart request is none of our business; anything else
/// is a crash, counted. Too many crashes: the reason to give up.
fn note_exit(
    s: &mut State,
    status: std::io::Result<ExitStatus>,
    launch: &Launch,
) -> Result<(), String> {
    let how = match status {
        Ok(st) if st.code() == Some(EXIT_RESTART) => return Ok(()),
        Ok(st) => describe_exit(st),
        Err(e) => e.to_string(),
    };
    tracing::warn!(%how, log = %log_tail(&launch.profile), "LibreOffice stopped unexpectedly; restarting it");
    let now = Instant::now();
    s.crashes.retain(|t| now.duration_since(*t) < CRASH_WINDOW);
    s.crashes.push(now);
    s.last_crash = Some(how.clone());
    if s.crashes.len() > MAX_CRASHES {
        return Err(texts::office_crashing(&how, MAX_CRASHES));
    }
    Ok(())
}

/// The command line: `setpriv --pdeathsig KILL -- soffice.bin …` where util-linux has it.
fn command(launch: &Launch, pipe: &str) -> Command {
    let mut cmd = match which("setpriv") {
        Some(setpriv) => {
            let mut c = Command::new(setpriv);
            c.args(["--pdeathsig", "KILL", "--"]).arg(&launch.program);
            c
        }
        None => {
            tracing::warn!(
                "util-linux's setpriv is missing: LibreOffice may outlive a killed deft"
            );
            Command::new(&launch.program)
        }
    };
    deft_tools::device_env::apply(&mut cmd, &launch.env)
        .env("SAL_USE_VCLPLUGIN", "gtk3")
        .arg(format!(
            "-env:UserInstallation={}",
            crate::documents::file_url(&launch.profile)
        ))
        .args([
            "--nologo",
            "--norestore",
            "--nolockcheck",
            "--nodefault",
            "--nofirststartwizard",
        ])
        .arg(format!(
            "--accept=pipe,name={pipe};urp;StarOffice.ComponentContext"
        ))
        .stdin(Stdio::null())
        .process_group(0);
    cmd
}

/// Starts `soffice.bin` from this (the supervising) thread, its output in the profile's log.
fn spawn(launch: &Launch, pipe: &str) -> Result<Child, String> {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(launch.profile.join("soffice.log"))
        .map_err(|e| texts::profile_failed(&launch.profile, &e.to_string()))?;
    let err = log
        .try_clone()
        .map_err(|e| texts::profile_failed(&launch.profile, &e.to_string()))?;
    command(launch, pipe)
        .stdout(log)
        .stderr(err)
        .spawn()
        .map_err(|e| {
            texts::office_cannot_start(&launch.program.display().to_string(), &e.to_string())
        })
}

/// An exit status as the texts say it: `exit code 1`, `signal 9`.
pub fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => status.to_string(),
    }
}

/// The last lines of LibreOffice's log, for a crash report in deft's log.
fn log_tail(profile: &Path) -> String {
    let text = std::fs::read_to_string(profile.join("soffice.log")).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_names_are_unique_and_their_sockets_live_in_tmp() {
        let (a, b) = (new_pipe_name(), new_pipe_name());
        assert_ne!(a, b);
        assert!(a.starts_with("deft-office-"), "{a}");
        let sock = pipe_socket(&a);
        assert!(sock.starts_with("/tmp"), "{}", sock.display());
        assert!(sock.to_string_lossy().ends_with(&a));
    }

    #[test]
    fn a_missing_program_says_what_to_install() {
        let e = find_program(Some(Path::new("/nonexistent/soffice.bin"))).unwrap_err();
        assert!(e.contains("apt-get install"), "{e}");
        assert!(
            e.contains("libreoffice-writer libreoffice-calc libreoffice-impress"),
            "{e}"
        );
    }

    #[test]
    fn a_fresh_profile_gets_the_quiet_settings_once() {
        let dir = tempfile::tempdir().unwrap();
        seed_profile(dir.path()).unwrap();
        let file = dir.path().join("user/registrymodifications.xcu");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("UseLocking"));
        std::fs::write(&file, "kept").unwrap();
        seed_profile(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
    }

    #[test]
    fn exits_read_as_codes_or_signals() {
        assert_eq!(describe_exit(ExitStatus::from_raw(2 << 8)), "exit code 2");
        assert_eq!(describe_exit(ExitStatus::from_raw(9)), "signal 9");
    }
}
