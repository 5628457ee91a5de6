//! `launch_app`: what may be started (installed desktop entries, found in the XDG
//! base-directory order, and allow-listed executables) and starting it detached on the desktop,
//! marked so that the windows of whatever it starts can be told (`launched`).

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;

use crate::target::DesktopTarget;
use crate::texts;

/// How long `launch_app` waits for a launched application's window by default.
pub const WINDOW_WAIT: Duration = Duration::from_secs(15);

/// The longest window wait the `launch_wait_secs` option may set (the tool's own limit is 30 s).
pub const MAX_WINDOW_WAIT_SECS: u64 = 25;

/// What `launch_app` may start besides installed desktop entries: executables named in the
/// routing table's `launch_allow` option (names on PATH or absolute paths). Nothing else. Also
/// how long it waits for the window (`launch_wait_secs`, default 15, at most 25).
#[derive(Debug, Clone)]
pub struct LaunchPolicy {
    allow: Vec<String>,
    window_wait: Duration,
}

impl Default for LaunchPolicy {
    fn default() -> Self {
        LaunchPolicy {
            allow: Vec::new(),
            window_wait: WINDOW_WAIT,
        }
    }
}

/// A resolved launch: the program, its arguments and the root name its window will have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchPlan {
    /// Program path.
    pub program: PathBuf,
    /// Arguments.
    pub args: Vec<String>,
    /// Expected root name (the executable's basename).
    pub root: String,
    /// The desktop entry's `StartupWMClass`: the `WM_CLASS` its windows will have.
    pub wm_class: Option<String>,
}

impl LaunchPolicy {
    /// From the server options: `{"launch_allow": ["prog", "/abs/prog", …]}`.
    pub fn from_options(options: &Value) -> Result<Self, String> {
        let allow = match options.get("launch_allow") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str().map(str::to_owned).ok_or_else(|| {
                        format!("launch_allow must be a list of program names, found {v}")
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format!(
                    "launch_allow must be a list of program names, found {other}"
                ));
            }
        };
        let window_wait = match options.get("launch_wait_secs") {
            None | Some(Value::Null) => WINDOW_WAIT,
            Some(v) => match v.as_u64() {
                Some(secs @ 1..=MAX_WINDOW_WAIT_SECS) => Duration::from_secs(secs),
                _ => {
                    return Err(format!(
                        "launch_wait_secs must be a whole number of seconds from 1 to {MAX_WINDOW_WAIT_SECS}, found {v}"
                    ));
                }
            },
        };
        Ok(LaunchPolicy { allow, window_wait })
    }

    /// A policy allowing `allow` besides desktop entries, with the default window wait.
    pub fn allowing(allow: &[&str]) -> Self {
        LaunchPolicy {
            allow: allow.iter().map(|a| (*a).to_owned()).collect(),
            window_wait: WINDOW_WAIT,
        }
    }

    /// The same policy with another window wait (capped at [`MAX_WINDOW_WAIT_SECS`]).
    pub fn with_window_wait(mut self, wait: Duration) -> Self {
        self.window_wait = wait.min(Duration::from_secs(MAX_WINDOW_WAIT_SECS));
        self
    }

    /// How long `launch_app` waits for the window.
    pub(crate) fn window_wait(&self) -> Duration {
        self.window_wait
    }

    /// Resolves `app`: a desktop entry first, then the allow-list.
    pub(crate) fn resolve(&self, app: &str, extra: &[String]) -> Result<LaunchPlan, String> {
        let app = app.trim();
        if app.is_empty() {
            return Err(texts::launch_refused(app, &self.allow, &application_dirs()));
        }
        if let Some(entry) = find_desktop_entry(app) {
            let mut args = entry.args;
            args.extend(extra.iter().cloned());
            return Ok(LaunchPlan {
                wm_class: entry.wm_class,
                ..plan(entry.program, args)
            });
        }
        let allowed = self
            .allow
            .iter()
            .any(|a| a == app || Path::new(a).file_name().and_then(|n| n.to_str()) == Some(app));
        if allowed {
            let program = if app.contains('/') {
                PathBuf::from(app)
            } else {
                self.allow
                    .iter()
                    .find(|a| {
                        a.contains('/')
                            && Path::new(a).file_name().and_then(|n| n.to_str()) == Some(app)
                    })
                    .map(PathBuf::from)
                    .or_else(|| crate::proc::which(app))
                    .ok_or_else(|| format!("{app:?} is allowed but not installed (not on PATH)."))?
            };
            return Ok(plan(program, extra.to_vec()));
        }
        Err(texts::launch_refused(app, &self.allow, &application_dirs()))
    }
}

fn plan(program: PathBuf, args: Vec<String>) -> LaunchPlan {
    let root = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    LaunchPlan {
        program,
        args,
        root,
        wm_class: None,
    }
}

/// The folders desktop entries are searched in, in the XDG base-directory order of this
/// process's environment: `$XDG_DATA_HOME/applications` (default
/// `~/.local/share/applications`: the user's own entries), then each of `$XDG_DATA_DIRS`
/// (default `/usr/local/share:/usr/share`) with `/applications`.
pub(crate) fn application_dirs() -> Vec<PathBuf> {
    application_dirs_from(
        std::env::var_os("XDG_DATA_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
        std::env::var_os("XDG_DATA_DIRS").as_deref(),
    )
}

/// [`application_dirs`] for these values of `XDG_DATA_HOME`, `HOME` and `XDG_DATA_DIRS`; an
/// empty value counts as unset, and relative paths are ignored, as the specification says.
fn application_dirs_from(
    data_home: Option<&std::ffi::OsStr>,
    home: Option<&std::ffi::OsStr>,
    data_dirs: Option<&std::ffi::OsStr>,
) -> Vec<PathBuf> {
    let absolute = |p: PathBuf| Some(p).filter(|p| p.is_absolute());
    let home_dir = data_home
        .filter(|v| !v.is_empty())
        .and_then(|v| absolute(PathBuf::from(v)))
        .or_else(|| {
            home.filter(|v| !v.is_empty())
                .and_then(|h| absolute(Path::new(h).join(".local/share")))
        });
    let system = data_dirs
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| std::ffi::OsStr::new("/usr/local/share:/usr/share"));
    let mut out: Vec<PathBuf> = Vec::new();
    for dir in home_dir
        .into_iter()
        .chain(std::env::split_paths(system).filter_map(absolute))
    {
        let apps = dir.join("applications");
        if !out.contains(&apps) {
            out.push(apps);
        }
    }
    out
}

/// A desktop entry as `launch_app` starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundEntry {
    /// The program of its `Exec=`, resolved on PATH.
    pub program: PathBuf,
    /// The rest of its `Exec=`, field codes dropped.
    pub args: Vec<String>,
    /// Its `StartupWMClass=`.
    pub wm_class: Option<String>,
}

/// Finds an installed desktop entry in [`application_dirs`], best match first: the file name,
/// the file name without its reverse-DNS prefix (`org.xfce.mousepad` → `mousepad`), `Name=`,
/// then the basename of the `Exec=` program (entries hidden from menus last); of equal
/// matches, the one in the earlier folder (the user's own entry over the system's).
pub fn find_desktop_entry(app: &str) -> Option<FoundEntry> {
    let want = app.to_lowercase();
    let want = want.strip_suffix(".desktop").unwrap_or(&want).to_owned();
    let mut best: Option<(u8, Entry)> = None;
    for dir in application_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for path in files {
            if path.extension().and_then(|e| e.to_str()) != Some("desktop") {
                continue;
            }
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Some(entry) = parse_entry(&text) else {
                continue;
            };
            let exe_base = entry.argv.first().and_then(|p| {
                Path::new(p)
                    .file_name()
                    .map(|n| n.to_string_lossy().to_lowercase())
            });
            let rank = if stem == want {
                0
            } else if stem.rsplit('.').next() == Some(want.as_str()) {
                1
            } else if entry.name.to_lowercase() == want {
                2
            } else if exe_base.as_deref() == Some(want.as_str()) {
                if entry.hidden { 4 } else { 3 }
            } else {
                continue;
            };
            if best.as_ref().is_none_or(|(r, _)| rank < *r) {
                best = Some((rank, entry));
            }
        }
    }
    let (_, entry) = best?;
    let mut argv = entry.argv;
    let program = argv.remove(0);
    let program = if program.contains('/') {
        PathBuf::from(program)
    } else {
        crate::proc::which(&program)?
    };
    Some(FoundEntry {
        program,
        args: argv,
        wm_class: entry.wm_class,
    })
}

struct Entry {
    name: String,
    argv: Vec<String>,
    hidden: bool,
    wm_class: Option<String>,
}

fn parse_entry(text: &str) -> Option<Entry> {
    let mut in_main = false;
    let mut name = String::new();
    let mut exec = None;
    let mut hidden = false;
    let mut wm_class = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_main = line == "[Desktop Entry]";
            continue;
        }
        if !in_main {
            continue;
        }
        if let Some(v) = line.strip_prefix("Name=") {
            name = v.to_owned();
        } else if let Some(v) = line.strip_prefix("Exec=") {
            exec = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("StartupWMClass=") {
            wm_class = Some(v.trim().to_owned()).filter(|c| !c.is_empty());
        } else if line == "NoDisplay=true" || line == "Hidden=true" {
            hidden = true;
        }
    }
    let argv: Vec<String> = shlex::split(&exec?)?
        .into_iter()
        .filter(|a| !(a.len() == 2 && a.starts_with('%')))
        .collect();
    if argv.is_empty() {
        return None;
    }
    Some(Entry {
        name,
        argv,
        hidden,
        wm_class,
    })
}

/// The environment variable that marks what one launch started: every program the launched
/// one starts inherits it, whoever becomes their parent (a launcher that forks and exits).
pub const LAUNCH_MARK: &str = "DEFT_LAUNCH_ID";

/// A started program: its pid, and its exit status once it has exited (it is reaped at once,
/// so an exited program leaves no zombie behind).
#[derive(Debug, Clone)]
pub struct Launched {
    /// Process id.
    pub pid: u32,
    /// The value of [`LAUNCH_MARK`] in its environment.
    pub mark: String,
    /// Whether it leads a process group of its own (not the managed desktop's).
    pub own_group: bool,
    exit: Arc<OnceLock<ExitStatus>>,
}

impl Launched {
    /// The exit status, once the program has exited.
    pub fn exited(&self) -> Option<ExitStatus> {
        self.exit.get().copied()
    }
}

/// An exit status as a model reads it: `exit code 2` or `signal 9`.
pub fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("signal {sig}"),
        (None, None) => status.to_string(),
    }
}

/// A value of [`LAUNCH_MARK`] no other launch has: this process, the time, a count.
fn launch_mark() -> String {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}-{n}", std::process::id())
}

/// Starts the plan on the desktop, detached: in the managed desktop's process group (so
/// `deft desktop stop` ends it), else in a session of its own.
pub fn spawn(plan: &LaunchPlan, target: &DesktopTarget) -> Result<Launched, String> {
    let mark = launch_mark();
    let mut cmd = Command::new(&plan.program);
    cmd.args(&plan.args).env(LAUNCH_MARK, &mark);
    deft_tools::device_env::apply(&mut cmd, target.env())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Join the managed desktop's group when this process may (same session); else a group of
    // its own. Either way it is out of deft's process group.
    let joined = match target.pgid {
        Some(pgid) if crate::proc::pid_alive(pgid) => {
            cmd.process_group(pgid);
            cmd.spawn().ok()
        }
        _ => None,
    };
    let own_group = joined.is_none();
    let child = match joined {
        Some(child) => child,
        None => {
            cmd.process_group(0);
            cmd.spawn()
                .map_err(|e| texts::cannot_start(&plan.program.display().to_string(), &e))?
        }
    };
    let pid = child.id();
    let exit = Arc::new(OnceLock::new());
    let status = exit.clone();
    std::thread::spawn(move || {
        let mut child = child;
        if let Ok(s) = child.wait() {
            let _ = status.set(s);
        }
    });
    Ok(Launched {
        pid,
        mark,
        own_group,
        exit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desktop_entry_exec_drops_field_codes() {
        let e = parse_entry(
            "[Desktop Entry]\nName=Mousepad\nExec=mousepad %F\n[Desktop Action x]\nExec=other\n",
        )
        .unwrap();
        assert_eq!(e.name, "Mousepad");
        assert_eq!(e.argv, vec!["mousepad"]);
    }

    #[test]
    fn desktop_entries_are_searched_in_the_xdg_order() {
        fn os(s: &str) -> Option<&std::ffi::OsStr> {
            Some(std::ffi::OsStr::new(s))
        }
        let dirs = |home, user, system| {
            application_dirs_from(user, home, system)
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            dirs(os("/home/zoë"), None, None),
            [
                "/home/zoë/.local/share/applications",
                "/usr/local/share/applications",
                "/usr/share/applications"
            ],
            "the defaults, the user's own entries first"
        );
        assert_eq!(
            dirs(
                os("/home/z"),
                os("/data/z"),
                os("/opt/share::relative:/usr/share")
            ),
            [
                "/data/z/applications",
                "/opt/share/applications",
                "/usr/share/applications"
            ],
            "XDG_DATA_HOME over HOME; empty and relative entries ignored"
        );
        assert_eq!(
            dirs(None, os(""), os("")),
            ["/usr/local/share/applications", "/usr/share/applications"],
            "empty values count as unset; no HOME, no user folder"
        );
    }

    #[test]
    fn a_desktop_entry_keeps_its_startup_wm_class() {
        let e = parse_entry(
            "[Desktop Entry]\nName=Notes\nExec=/opt/notes/run.sh %U\nStartupWMClass=Mousepad\n",
        )
        .unwrap();
        assert_eq!(
            (e.argv, e.wm_class.as_deref()),
            (vec!["/opt/notes/run.sh".to_owned()], Some("Mousepad"))
        );
        assert_ne!(launch_mark(), launch_mark());
    }

    #[test]
    fn unknown_apps_are_refused_with_the_allow_list() {
        let p =
            LaunchPolicy::from_options(&serde_json::json!({"launch_allow": ["xeyes"]})).unwrap();
        let err = p.resolve("definitely-not-installed-app", &[]).unwrap_err();
        assert!(
            err.starts_with("Cannot launch \"definitely-not-installed-app\""),
            "{err}"
        );
        assert!(err.contains("(xeyes)"), "{err}");
        assert!(LaunchPolicy::from_options(&serde_json::json!({"launch_allow": "x"})).is_err());
    }

    #[test]
    fn the_window_wait_is_an_option_with_a_cap() {
        let p = LaunchPolicy::from_options(&serde_json::json!({"launch_wait_secs": 4})).unwrap();
        assert_eq!(p.window_wait(), Duration::from_secs(4));
        assert_eq!(LaunchPolicy::default().window_wait(), WINDOW_WAIT);
        for bad in [
            serde_json::json!(0),
            serde_json::json!(26),
            serde_json::json!("5"),
        ] {
            let e = LaunchPolicy::from_options(&serde_json::json!({"launch_wait_secs": bad}))
                .unwrap_err();
            assert_eq!(
                e,
                format!(
                    "launch_wait_secs must be a whole number of seconds from 1 to 25, found {bad}"
                )
            );
        }
        assert_eq!(
            LaunchPolicy::default()
                .with_window_wait(Duration::from_secs(99))
                .window_wait(),
            Duration::from_secs(25)
        );
    }

    #[test]
    fn exit_statuses_read_as_codes_or_signals() {
        assert_eq!(describe_exit(ExitStatus::from_raw(2 << 8)), "exit code 2");
        assert_eq!(describe_exit(ExitStatus::from_raw(9)), "signal 9");
    }
}
