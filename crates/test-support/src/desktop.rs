//! Desktop test fixtures: the project's GTK3 form app and appear app, and running an application
//! on a desktop with its stdout captured line by line (the apps print one JSON record per input
//! or change).
//!
//! The desktop itself is the product's own managed virtual desktop
//! (`deft_backend_desktop::vdesktop`), so tests exercise the same code as `deft desktop start`.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The GTK3 form app (`fixtures/desktop/form_app.py`), run with Debian's `/usr/bin/python3`
/// (python3-gi and gir1.2-gtk-3.0).
pub fn form_app_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/desktop/form_app.py")
}

/// The Python with GTK bindings: Debian's, never a venv or pyenv one.
pub const SYSTEM_PYTHON: &str = "/usr/bin/python3";

/// Fails (never skips) with what to install when `program` is not on PATH.
pub fn require_program(program: &str, package: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        || std::path::Path::new(program).is_file();
    assert!(
        found,
        "{program} is not installed: install the Debian package {package} (scripts/test.sh does)"
    );
}

/// Fails (never skips) with what to install when a program a managed desktop needs (Xvfb, D-Bus,
/// openbox, the AT-SPI bus) or one of `apps` (program, Debian package) is missing.
pub fn require_desktop(apps: &[(&str, &str)]) {
    for (program, package) in [
        ("Xvfb", "xvfb"),
        ("dbus-daemon", "dbus-daemon"),
        ("openbox", "openbox"),
        ("/usr/libexec/at-spi-bus-launcher", "at-spi2-core"),
    ]
    .iter()
    .chain(apps)
    {
        require_program(program, package);
    }
}

/// An application started for a test, in its own process group (killed on drop), with its
/// stdout collected line by line.
pub struct AppProcess {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl AppProcess {
    /// Starts `program args` with `env` added to this process's environment.
    pub fn spawn(program: &str, args: &[&str], env: &[(String, String)]) -> std::io::Result<Self> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env_remove("NO_AT_BRIDGE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let mut child = cmd.spawn()?;
        let lines = Arc::new(Mutex::new(Vec::new()));
        if let Some(out) = child.stdout.take() {
            let sink = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    sink.lock().push(line);
                }
            });
        }
        Ok(AppProcess { child, lines })
    }

    /// Starts the form app.
    pub fn form_app(env: &[(String, String)]) -> std::io::Result<Self> {
        require_program(SYSTEM_PYTHON, "python3-gi gir1.2-gtk-3.0");
        let path = form_app_path();
        Self::spawn(SYSTEM_PYTHON, &[&path.to_string_lossy()], env)
    }

    /// Starts the appear app (`fixtures/desktop/appear_app.py`: controls to find, and controls
    /// that appear and go `delay_ms` after a click, each printed with its wall-clock time).
    pub fn appear_app(env: &[(String, String)], delay_ms: u64) -> std::io::Result<Self> {
        require_program(SYSTEM_PYTHON, "python3-gi gir1.2-gtk-3.0");
        let path = form_app_path().with_file_name("appear_app.py");
        Self::spawn(
            SYSTEM_PYTHON,
            &[&path.to_string_lossy(), &delay_ms.to_string()],
            env,
        )
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Every stdout line so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().clone()
    }

    /// The JSON records printed so far (lines that are JSON objects).
    pub fn records(&self) -> Vec<Value> {
        self.lines()
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(Value::is_object)
            .collect()
    }

    /// Waits (up to `timeout`) for a JSON record matching `pred`; returns it.
    pub fn wait_record(&self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(r) = self.records().into_iter().find(|r| pred(r)) {
                return Some(r);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether it still runs.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for AppProcess {
    fn drop(&mut self) {
        crate::proc::kill_group(self.child.id() as i32);
        let _ = self.child.wait();
    }
}
