//! deft's private folder for the files LibreOffice reads and writes: LibreOffice never gets a
//! path in the documents folders, whose folders anyone may swap for links while it works.
//!
//! - Opening: deft copies the document out of its checked place ([`crate::place`]) into a
//!   folder of its own here; LibreOffice loads that copy.
//! - Saving: LibreOffice writes here; deft moves the file into the checked place.
//! - Afterwards, LibreOffice keeps working on the document's private file (a regular file, never
//!   a link into the documents folders); deft carries its own saves (Ctrl+S in its window) to
//!   the place ([`crate::carry`]).
//!
//! One folder per deft process (`$TMPDIR/deft-office-files-<pid>-…`, mode 0700, in the sticky
//! temporary folder), kept while the process runs — LibreOffice's documents point into it —
//! and removed by the next deft process once its own is gone.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::texts;

/// The start of the private folders' names.
const PREFIX: &str = "deft-office-files-";

/// This process's private folder, made on first use.
static FOLDER: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// This process's private folder.
pub fn folder() -> Result<&'static Path, String> {
    FOLDER
        .get_or_init(|| {
            let parent = std::env::temp_dir();
            sweep_dead(&parent, PREFIX);
            let dir = tempfile::Builder::new()
                .prefix(&format!("{PREFIX}{}-", std::process::id()))
                .tempdir_in(&parent)
                .map(tempfile::TempDir::keep)
                .map_err(|e| texts::private_failed(&e.to_string()))?;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| texts::private_failed(&e.to_string()))?;
            Ok(dir)
        })
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(Clone::clone)
}

/// A fresh subfolder of the private folder, removed on drop (a save's scratch space).
pub fn scratch() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix("scratch-")
        .tempdir_in(folder()?)
        .map_err(|e| texts::private_failed(&e.to_string()))
}

/// A path named `name` in a fresh subfolder of the private folder that stays (a document's own
/// file: LibreOffice's document points at it as long as it is open).
pub fn document_file(name: &OsStr) -> Result<PathBuf, String> {
    let dir = tempfile::Builder::new()
        .prefix("doc-")
        .tempdir_in(folder()?)
        .map(tempfile::TempDir::keep)
        .map_err(|e| texts::private_failed(&e.to_string()))?;
    Ok(dir.join(name))
}

/// Removes the folders in `parent` named `<prefix><pid>-…` whose deft process is gone.
pub(crate) fn sweep_dead(parent: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !crate::instance::alive(pid) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_private_folder_is_this_processs_own_and_only_its_owners() {
        let dir = folder().unwrap();
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(&format!("{PREFIX}{}-", std::process::id())),
            "{name}"
        );
        let mode = std::fs::metadata(dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let a = document_file(OsStr::new("r.docx")).unwrap();
        let b = document_file(OsStr::new("r.docx")).unwrap();
        assert_ne!(a, b, "each document its own subfolder");
        assert!(a.starts_with(dir) && a.ends_with("r.docx"));
    }

    #[test]
    fn folders_of_processes_that_are_gone_are_swept() {
        let parent = tempfile::tempdir().unwrap();
        let gone = parent.path().join(format!("{PREFIX}{}-x", u32::MAX - 1));
        let mine = parent
            .path()
            .join(format!("{PREFIX}{}-y", std::process::id()));
        let other = parent.path().join("unrelated-1-z");
        for d in [&gone, &mine, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        sweep_dead(parent.path(), PREFIX);
        assert!(!gone.exists());
        assert!(mine.exists() && other.exists());
    }
}
