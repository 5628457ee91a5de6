//! Which desktop the server operates: the managed virtual desktop's state file, or the X session
//! of the environment (`DISPLAY` plus `AT_SPI_BUS_ADDRESS` or `DBUS_SESSION_BUS_ADDRESS`).

use std::path::{Path, PathBuf};

use deft_tools::device_env;

use crate::texts;
use crate::vdesktop::DesktopState;

/// The display and buses of the desktop to operate, and the environment for programs started
/// on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesktopTarget {
    /// X display (`:3`).
    pub(crate) display: String,
    /// Accessibility bus address, when known up front.
    pub(crate) a11y_bus: Option<String>,
    /// Session bus address, when known.
    pub(crate) session_bus: Option<String>,
    /// Environment for programs `launch_app` starts.
    pub(crate) launch_env: Vec<(String, String)>,
    /// The managed desktop's process group (launched apps join it, so `deft desktop stop` ends
    /// them too); `None` for a desktop of the environment.
    pub(crate) pgid: Option<i32>,
}

impl DesktopTarget {
    /// The target of a managed desktop's state.
    pub fn from_state(state: &DesktopState) -> Self {
        DesktopTarget {
            display: state.display.clone(),
            a11y_bus: Some(state.a11y_bus.clone()),
            session_bus: Some(state.session_bus.clone()),
            launch_env: state.env(),
            pgid: Some(state.pgid),
        }
    }

    /// The X display (`:3`).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The environment the programs started on this desktop get (its display, buses, home and
    /// XDG folders; see [`deft_tools::device_env`]).
    pub fn env(&self) -> &[(String, String)] {
        &self.launch_env
    }

    /// Resolves the desktop: `DISPLAY` from the environment when set, else the managed desktop of
    /// `state_file` when it runs. The error text (for the model and the person) says how to start
    /// one.
    pub fn resolve(state_file: &Path) -> Result<Self, String> {
        if let Some(display) = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()) {
            let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
            // The caller's own desktop: its session is the one its programs get.
            let launch_env = device_env::SESSION_VARS
                .iter()
                .filter(|k| device_env::carried_from_caller(k))
                .filter_map(|k| var(k).map(|v| ((*k).to_owned(), v)))
                .collect();
            return Ok(DesktopTarget {
                display,
                a11y_bus: var("AT_SPI_BUS_ADDRESS"),
                session_bus: var("DBUS_SESSION_BUS_ADDRESS"),
                launch_env,
                pgid: None,
            });
        }
        Self::running(state_file, texts::no_display)
    }

    /// The managed desktop of `state_file`, whatever `DISPLAY` says: a device made for that
    /// desktop (each of `deft dataflow`'s) operates it and starts its programs there, never on
    /// the caller's display.
    pub fn managed(state_file: &Path) -> Result<Self, String> {
        Self::running(state_file, texts::managed_desktop_gone)
    }

    /// The managed desktop of `state_file` when it runs, else the text `missing` makes of it.
    fn running(state_file: &Path, missing: fn(&str) -> String) -> Result<Self, String> {
        match DesktopState::load(state_file) {
            Ok(Some(state)) if state.is_alive() => Ok(Self::from_state(&state)),
            Ok(_) => Err(missing(&state_file.display().to_string())),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The state file the server uses when its options name none: `$DEFT_DATA_DIR/desktop.json`,
/// else `$XDG_DATA_HOME/deft/desktop.json`, else `~/.local/share/deft/desktop.json`.
pub fn default_state_file() -> PathBuf {
    let data = std::env::var_os("DEFT_DATA_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_DATA_HOME")
                .filter(|v| !v.is_empty())
                .map(|x| PathBuf::from(x).join("deft"))
        })
        .unwrap_or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("."))
                .join(".local/share/deft")
        });
    crate::vdesktop::state_path(&data)
}
