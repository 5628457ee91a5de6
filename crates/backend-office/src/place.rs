//! A document's place, checked and used as one: its folder is opened once, component by
//! component from `/` without following a link (the path was checked with its links resolved,
//! so a link met now is one that appeared since), and every later step — reading the document,
//! writing a file in — goes through that open folder by name, never through the path again.
//! A folder swapped for a link after the check changes nothing: deft still reads and writes the
//! folder it checked.
//!
//! Files come in from deft's private folder ([`crate::private`]), where LibreOffice wrote them:
//! moved with `renameat` into the open folder (or, across file systems, copied to a new file
//! there and renamed over the name); a name that has become a link or a folder is refused, never
//! replaced or followed.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::texts;

/// Why a place could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// A folder on the way, or the file itself, is a link now (it was none when checked).
    #[error("{}", texts::place_changed(.0))]
    Changed(PathBuf),
    /// A folder on the way is not there (any more).
    #[error("{}", texts::no_such_folder(.0))]
    Gone(PathBuf),
    /// The name is a folder.
    #[error("{}", texts::place_is_folder(.0))]
    Folder(PathBuf),
    /// The name is something other than a regular file (a device, a pipe, a socket).
    #[error("{}", texts::not_a_file(.0))]
    NotAFile(PathBuf),
    /// There is no file by that name.
    #[error("{}", texts::no_such_document(.0))]
    Missing(PathBuf),
    /// The system refused (permissions, a full disk, …).
    #[error("{}", texts::place_failed(.0, .1))]
    Io(PathBuf, io::Error),
}

/// A file name in a folder opened once: where a document is read from or written to.
#[derive(Debug, Clone)]
pub struct Place {
    dir: Arc<OwnedFd>,
    name: OsString,
    path: PathBuf,
}

/// Folder flags: a handle for finding names in it, never following a link.
fn dir_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

static TEMPS: AtomicU64 = AtomicU64::new(0);

impl Place {
    /// Opens the folder of `resolved` — an absolute path whose links were resolved when it was
    /// checked — one component at a time, following no link.
    pub fn pin(resolved: &Path) -> Result<Place, PlaceError> {
        let (Some(parent), Some(name)) = (resolved.parent(), resolved.file_name()) else {
            return Err(PlaceError::Folder(resolved.to_owned()));
        };
        let io_err = |e: Errno| PlaceError::Io(resolved.to_owned(), e.into());
        let mut dir = rustix::fs::openat(CWD, "/", dir_flags(), Mode::empty()).map_err(io_err)?;
        let mut walked = PathBuf::from("/");
        for component in parent.components() {
            let Component::Normal(part) = component else {
                continue;
            };
            walked.push(part);
            let next =
                rustix::fs::openat(&dir, part, dir_flags(), Mode::empty()).map_err(
                    |e| match e {
                        Errno::LOOP | Errno::NOTDIR => PlaceError::Changed(walked.clone()),
                        Errno::NOENT => PlaceError::Gone(walked.clone()),
                        other => io_err(other),
                    },
                )?;
            // O_PATH opens a link itself when it meets one: a folder is what must be there.
            let stat = rustix::fs::fstat(&next).map_err(io_err)?;
            if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
                return Err(PlaceError::Changed(walked));
            }
            dir = next;
        }
        Ok(Place {
            dir: Arc::new(dir),
            name: name.to_owned(),
            path: resolved.to_owned(),
        })
    }

    /// The path as it was checked (for texts; never used to reach the file).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's name.
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// Another name in the same open folder.
    pub fn sibling(&self, name: &OsStr) -> Place {
        Place {
            dir: self.dir.clone(),
            name: name.to_owned(),
            path: self.path.with_file_name(name),
        }
    }

    /// Opens the document for reading: a regular file by this name, not a link.
    pub fn open(&self) -> Result<File, PlaceError> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd =
            rustix::fs::openat(&*self.dir, &self.name, flags, Mode::empty()).map_err(
                |e| match e {
                    Errno::LOOP => PlaceError::Changed(self.path.clone()),
                    Errno::NOENT => PlaceError::Missing(self.path.clone()),
                    other => self.io(other.into()),
                },
            )?;
        let file = File::from(fd);
        let meta = file.metadata().map_err(|e| self.io(e))?;
        if !meta.is_file() {
            return Err(PlaceError::NotAFile(self.path.clone()));
        }
        Ok(file)
    }

    /// Copies the document to `to` (a new file in deft's private folder), with its times, so
    /// LibreOffice sees the file's own modification time.
    pub fn copy_to(&self, to: &Path) -> Result<(), PlaceError> {
        let mut src = self.open()?;
        copy_new(&mut src, to).map_err(|e| PlaceError::Io(to.to_owned(), e))
    }

    /// Moves the file `from` (in deft's private folder) to this place: renamed into the open
    /// folder, or copied there when it is on another file system. An existing file is replaced
    /// (keeping its permissions); a link or a folder by this name is refused. Answers the size.
    pub fn put(&self, from: &Path) -> Result<u64, PlaceError> {
        let fail = |e: io::Error| PlaceError::Io(from.to_owned(), e);
        let mut perms = std::fs::metadata(from).map_err(fail)?.permissions();
        if let Some(mode) = self.existing_mode()? {
            perms.set_mode(mode);
            std::fs::set_permissions(from, perms).map_err(fail)?;
        }
        let bytes = std::fs::metadata(from).map_err(fail)?.len();
        match rustix::fs::renameat(CWD, from, &*self.dir, &self.name) {
            Ok(()) => Ok(bytes),
            Err(Errno::XDEV) => self.copy_in(from).map(|()| bytes),
            Err(e) => Err(self.io(e.into())),
        }
    }

    /// The permission bits of the regular file by this name, `None` when there is none; a link
    /// or a folder by this name is refused.
    fn existing_mode(&self) -> Result<Option<u32>, PlaceError> {
        match rustix::fs::statat(&*self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => Ok(Some(st.st_mode & 0o7777)),
                FileType::Symlink => Err(PlaceError::Changed(self.path.clone())),
                FileType::Directory => Err(PlaceError::Folder(self.path.clone())),
                _ => Err(PlaceError::NotAFile(self.path.clone())),
            },
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(self.io(e.into())),
        }
    }

    /// Across file systems: a new file in the open folder (a hidden name of its own, created
    /// exclusively), filled and renamed over the name.
    fn copy_in(&self, from: &Path) -> Result<(), PlaceError> {
        let fail = |e: io::Error| PlaceError::Io(from.to_owned(), e);
        let mut src = File::open(from).map_err(fail)?;
        let mode = src.metadata().map_err(fail)?.permissions().mode();
        let mut tmp = OsString::from(".");
        tmp.push(&self.name);
        tmp.push(format!(
            ".deft-{}-{}",
            std::process::id(),
            TEMPS.fetch_add(1, Ordering::Relaxed)
        ));
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&*self.dir, &tmp, flags, Mode::from_raw_mode(mode & 0o7777))
            .map_err(|e| self.io(e.into()))?;
        let mut dst = File::from(fd);
        let filled = io::copy(&mut src, &mut dst)
            .and_then(|_| copy_times(&src, &dst))
            .and_then(|()| dst.sync_all())
            .map_err(|e| self.io(e))
            .and_then(|()| {
                rustix::fs::renameat(&*self.dir, &tmp, &*self.dir, &self.name)
                    .map_err(|e| self.io(e.into()))
            });
        if filled.is_err() {
            let _ = rustix::fs::unlinkat(&*self.dir, &tmp, AtFlags::empty());
        } else {
            let _ = std::fs::remove_file(from);
        }
        filled
    }

    fn io(&self, e: io::Error) -> PlaceError {
        PlaceError::Io(self.path.clone(), e)
    }
}

/// Copies the open file `src` to the new file `to`, with its times.
pub(crate) fn copy_new(src: &mut File, to: &Path) -> io::Result<()> {
    let mut dst = File::create_new(to)?;
    io::copy(src, &mut dst)?;
    copy_times(src, &dst)
}

/// Gives `dst` the access and modification times of `src`.
fn copy_times(src: &File, dst: &File) -> io::Result<()> {
    let meta = src.metadata()?;
    let times = std::fs::FileTimes::new()
        .set_accessed(meta.accessed()?)
        .set_modified(meta.modified()?);
    dst.set_times(times)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let (docs, outside) = (root.join("docs"), root.join("outside"));
        std::fs::create_dir_all(docs.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        (tmp, docs, outside)
    }

    #[test]
    fn a_folder_that_became_a_link_is_refused() {
        let (_tmp, docs, outside) = tree();
        std::fs::remove_dir(docs.join("sub")).unwrap();
        symlink(&outside, docs.join("sub")).unwrap();
        let e = Place::pin(&docs.join("sub/a.docx")).unwrap_err();
        assert!(
            matches!(&e, PlaceError::Changed(p) if *p == docs.join("sub")),
            "{e:?}"
        );
    }

    #[test]
    fn put_moves_a_file_in_keeping_the_replaced_ones_permissions_and_refuses_links() {
        let (tmp, docs, outside) = tree();
        let place = Place::pin(&docs.join("sub/a.txt")).unwrap();
        std::fs::write(place.path(), "old").unwrap();
        std::fs::set_permissions(place.path(), std::fs::Permissions::from_mode(0o600)).unwrap();
        let new = tmp.path().join("new.txt");
        std::fs::write(&new, "new!").unwrap();
        assert_eq!(place.put(&new).unwrap(), 4);
        assert_eq!(std::fs::read_to_string(place.path()).unwrap(), "new!");
        let mode = std::fs::metadata(place.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(!new.exists(), "moved, not copied");

        // The name became a link to a file outside: refused, the outside file untouched.
        std::fs::write(outside.join("x.txt"), "outside").unwrap();
        std::fs::remove_file(place.path()).unwrap();
        symlink(outside.join("x.txt"), place.path()).unwrap();
        std::fs::write(&new, "again").unwrap();
        assert!(matches!(place.put(&new), Err(PlaceError::Changed(_))));
        assert_eq!(
            std::fs::read_to_string(outside.join("x.txt")).unwrap(),
            "outside"
        );
        // …and reading it is refused the same way.
        assert!(matches!(place.open(), Err(PlaceError::Changed(_))));
    }

    #[test]
    fn across_file_systems_the_copy_lands_in_the_checked_folder_with_its_times() {
        let (tmp, docs, outside) = tree();
        let place = Place::pin(&docs.join("sub/b.txt")).unwrap();
        let new = tmp.path().join("b.txt");
        std::fs::write(&new, "copied").unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        File::options()
            .write(true)
            .open(&new)
            .unwrap()
            .set_modified(old)
            .unwrap();
        // The folder is swapped for a link after it was opened: the copy still goes in.
        std::fs::rename(docs.join("sub"), docs.join("sub.real")).unwrap();
        symlink(&outside, docs.join("sub")).unwrap();
        place.copy_in(&new).unwrap();
        assert_eq!(
            std::fs::read_to_string(docs.join("sub.real/b.txt")).unwrap(),
            "copied"
        );
        assert_eq!(
            std::fs::metadata(docs.join("sub.real/b.txt"))
                .unwrap()
                .modified()
                .unwrap(),
            old
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        let names: Vec<_> = std::fs::read_dir(docs.join("sub.real"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["b.txt"], "no temporary file left");
    }

    #[test]
    fn a_copy_out_has_the_documents_bytes_and_times() {
        let (tmp, docs, _outside) = tree();
        std::fs::write(docs.join("sub/c.txt"), "content").unwrap();
        let place = Place::pin(&docs.join("sub/c.txt")).unwrap();
        let copy = tmp.path().join("copy.txt");
        place.copy_to(&copy).unwrap();
        assert_eq!(std::fs::read_to_string(&copy).unwrap(), "content");
        let m = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        assert_eq!(m(&copy), m(&docs.join("sub/c.txt")));
        let missing = place.sibling(OsStr::new("none.txt"));
        assert!(matches!(
            missing.copy_to(&tmp.path().join("x")),
            Err(PlaceError::Missing(_))
        ));
    }
}
