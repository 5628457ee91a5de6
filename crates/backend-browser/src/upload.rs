//! File inputs: which files may be put into one, and putting them in.
//!
//! The rule, in the spirit of the URL policy: a page may only receive files the device meant to
//! share. `set_edit_text` on a file input takes absolute paths (one per line); each must name an
//! existing regular file whose real path (symbolic links resolved) lies inside one of the upload
//! roots — the device's downloads folder, the system temp folder, or a folder of the
//! `upload_dirs` option. Anything else is refused with a text saying which rule failed.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::browser::{AGENT_JS, Browser, BrowserError, ControlRef};
use crate::texts;

/// Checks the paths of `text` (one per line, blank lines ignored) against `roots` (canonical
/// folders) and returns them canonical, in order. An empty text clears the input.
pub(crate) fn upload_paths(text: &str, roots: &[PathBuf]) -> Result<Vec<String>, BrowserError> {
    let mut files = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let path = Path::new(line);
        if !path.is_absolute() {
            return Err(BrowserError::Model(texts::upload_not_absolute(line)));
        }
        let real = match path.canonicalize() {
            Ok(p) => p,
            Err(_) => return Err(BrowserError::Model(texts::upload_missing(line))),
        };
        if !real.is_file() {
            return Err(BrowserError::Model(texts::upload_not_a_file(line)));
        }
        if !roots.iter().any(|r| real.starts_with(r)) {
            let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
            return Err(BrowserError::Model(texts::upload_refused(line, &roots)));
        }
        files.push(real.to_string_lossy().into_owned());
    }
    Ok(files)
}

impl Browser {
    /// Puts the files named by `text` (see [`upload_paths`]) into file input `c`; the page gets
    /// its `input` and `change` events.
    pub(crate) async fn set_files(
        &self,
        id: u64,
        c: &ControlRef,
        text: &str,
    ) -> Result<(), BrowserError> {
        let files = upload_paths(text, &self.upload_roots())?;
        let expression = format!(
            "{AGENT_JS}\n;(__deft.doc === {} ? __deft.find({}) : null)",
            json!(c.doc),
            c.key
        );
        let r = self
            .cdp()
            .call(
                Some(&c.session),
                "Runtime.evaluate",
                json!({"expression": expression}),
            )
            .await?;
        let Some(object) = r["result"]["objectId"].as_str() else {
            return Err(BrowserError::Model(texts::stale_control(id, &c.name)));
        };
        self.cdp()
            .call(
                Some(&c.session),
                "DOM.setFileInputFiles",
                json!({"files": files, "objectId": object}),
            )
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `upload_paths` with the refusal as the model reads it.
    fn checked(text: &str, roots: &[PathBuf]) -> Result<Vec<String>, String> {
        upload_paths(text, roots).map_err(|e| e.to_string())
    }

    fn roots(dir: &Path) -> Vec<PathBuf> {
        vec![dir.canonicalize().expect("canonical")]
    }

    #[test]
    fn files_inside_a_root_pass_and_come_back_canonical() {
        let dir = tempfile::tempdir().expect("dir");
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.txt");
        std::fs::write(&a, "a").expect("write");
        std::fs::write(&b, "b").expect("write");
        let text = format!("{}\n\n  {}  \n", a.display(), b.display());
        let got = checked(&text, &roots(dir.path())).expect("allowed");
        assert_eq!(got.len(), 2);
        assert!(
            got[0].ends_with("/a.txt") && got[1].ends_with("/b.txt"),
            "{got:?}"
        );
        assert_eq!(checked("", &roots(dir.path())), Ok(Vec::new()));
    }

    #[test]
    fn relative_missing_folder_and_outside_paths_are_refused_with_their_reason() {
        let dir = tempfile::tempdir().expect("dir");
        let r = roots(dir.path());
        assert_eq!(
            checked("notes.txt", &r),
            Err(texts::upload_not_absolute("notes.txt"))
        );
        let missing = dir.path().join("missing.txt");
        let missing = missing.to_string_lossy();
        assert_eq!(checked(&missing, &r), Err(texts::upload_missing(&missing)));
        let folder = dir.path().to_string_lossy();
        assert_eq!(checked(&folder, &r), Err(texts::upload_not_a_file(&folder)));
        let shown: Vec<String> = r.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            checked("/etc/passwd", &r),
            Err(texts::upload_refused("/etc/passwd", &shown))
        );
    }

    #[test]
    fn a_link_inside_a_root_to_a_file_outside_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let link = dir.path().join("passwd");
        std::os::unix::fs::symlink("/etc/passwd", &link).expect("symlink");
        let link = link.to_string_lossy();
        let r = roots(dir.path());
        let shown: Vec<String> = r.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            checked(&link, &r),
            Err(texts::upload_refused(&link, &shown))
        );
    }
}
