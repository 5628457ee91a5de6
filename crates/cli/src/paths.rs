//! Where deft keeps its data on this machine.

use std::path::{Path, PathBuf};

/// deft's default data folder: `$XDG_DATA_HOME/deft`, else `~/.local/share/deft`.
pub fn default_data_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(x).join("deft");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".local/share/deft")
}

/// The folder (in the data folder) of `deft dataflow`'s managed desktops.
pub const DATAFLOW_DESKTOPS: &str = "dataflow-desktops";

/// The managed virtual desktop's state file (written by `deft desktop start`).
pub fn desktop_state(data_dir: &Path) -> PathBuf {
    data_dir.join("desktop.json")
}
