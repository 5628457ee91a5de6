//! Following a path the way the kernel will when the program opens it: component by component
//! from the working directory, `..` taken physically, every symbolic link (`/proc/self`,
//! `/dev/fd`, a link of anyone's) read and followed, and each place reached shown to a check
//! before anything is read there.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// The kernel's limit on links followed in one lookup.
const MAX_LINKS: usize = 40;

/// Follows `path` from `cwd` (absolute, without links, as `getcwd` gives it), calling `check`
/// on every path entered — each place on the way (`false`) and the end (`true`) — before looking
/// at it.
///
/// Returns `Ok(Some(end))`, the real path the program would open; `Ok(None)` when the lookup
/// fails on the way (a missing component, a loop, an unreadable link: the program's open would
/// fail there too, so nothing past it can be read); or the first error `check` gives.
pub(crate) fn walk<E>(
    path: &Path,
    cwd: &Path,
    check: &mut dyn FnMut(&Path, bool) -> Result<(), E>,
) -> Result<Option<PathBuf>, E> {
    let mut pending: VecDeque<OsString> = parts(path);
    let mut at = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        cwd.to_path_buf()
    };
    let mut links = 0;
    while let Some(part) = pending.pop_front() {
        match part.to_str() {
            Some("/") => at = PathBuf::from("/"),
            Some(".") => {}
            Some("..") => {
                at.pop();
            }
            _ => {
                let next = at.join(&part);
                check(&next, false)?;
                let Ok(meta) = std::fs::symlink_metadata(&next) else {
                    return Ok(None);
                };
                if !meta.file_type().is_symlink() {
                    at = next;
                    continue;
                }
                links += 1;
                let Ok(target) = std::fs::read_link(&next) else {
                    return Ok(None);
                };
                if links > MAX_LINKS {
                    return Ok(None);
                }
                // The link's target replaces it, relative to the folder holding it.
                for part in parts(&target).into_iter().rev() {
                    pending.push_front(part);
                }
            }
        }
    }
    check(&at, true)?;
    Ok(Some(at))
}

/// The components of `path` as words: `/` for the root, `.` and `..` as such.
fn parts(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::RootDir => Some(OsString::from("/")),
            Component::CurDir => Some(OsString::from(".")),
            Component::ParentDir => Some(OsString::from("..")),
            Component::Normal(name) => Some(name.to_owned()),
            Component::Prefix(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(path: &str, cwd: &Path) -> Option<PathBuf> {
        walk::<()>(Path::new(path), cwd, &mut |_, _| Ok(())).expect("no check refuses")
    }

    #[test]
    fn links_and_dot_dot_are_followed_as_the_kernel_does() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("real path");
        std::fs::create_dir_all(root.join("a/b")).expect("dirs");
        std::fs::write(root.join("a/b/file"), "x").expect("file");
        std::os::unix::fs::symlink(root.join("a/b"), root.join("to-b")).expect("link");
        std::os::unix::fs::symlink("a/b/file", root.join("rel")).expect("link");
        std::os::unix::fs::symlink("loop", root.join("loop")).expect("link");

        assert_eq!(end("a/b/file", &root), Some(root.join("a/b/file")));
        assert_eq!(end("./a/../a/b/./file", &root), Some(root.join("a/b/file")));
        // `..` after a link goes up from where the link leads, not from the link.
        assert_eq!(end("to-b/../b/file", &root), Some(root.join("a/b/file")));
        assert_eq!(end("rel", &root), Some(root.join("a/b/file")));
        assert_eq!(
            end(&format!("{}/to-b/file", root.display()), Path::new("/")),
            Some(root.join("a/b/file"))
        );
        assert_eq!(end("missing/../a", &root), None);
        assert_eq!(end("loop", &root), None);
        assert_eq!(end("/../..", &root), Some(PathBuf::from("/")));
    }

    #[test]
    fn proc_self_leads_to_this_process() {
        let me = PathBuf::from(format!("/proc/{}", std::process::id()));
        assert_eq!(end("/proc/self", Path::new("/")), Some(me.clone()));
        assert_eq!(end("/dev/fd/..", Path::new("/")), Some(me.clone()));
        assert_eq!(
            end("proc/self/status", Path::new("/")),
            Some(me.join("status"))
        );
    }

    #[test]
    fn the_check_sees_each_place_before_it_is_looked_at() {
        let mut seen = Vec::new();
        let out = walk(
            Path::new("/proc/self/status"),
            Path::new("/"),
            &mut |p, _| {
                seen.push(p.to_path_buf());
                if p.ends_with("status") {
                    Err(p.to_path_buf())
                } else {
                    Ok(())
                }
            },
        );
        let me = PathBuf::from(format!("/proc/{}", std::process::id()));
        assert_eq!(out, Err(me.join("status")));
        assert_eq!(
            seen,
            [
                PathBuf::from("/proc"),
                PathBuf::from("/proc/self"),
                me.clone(),
                me.join("status")
            ]
        );
    }
}
