//! LibreOffice's own saves (Ctrl+S or Save in its window) carried to the document's place.
//!
//! LibreOffice works on a regular file in deft's private folder ([`crate::private`]), never on
//! a path in the documents folders: its own save writes that private file, and a path it
//! resolved at write time could lead anywhere once the model swapped the document for a link or
//! a folder for a link to an outside one. deft watches each document's private folder (inotify:
//! a file closed after writing, or renamed in) and moves a copy of every new version in through
//! the [`Place`] it pinned when the document was opened or last saved by deft
//! ([`Place::put`]): into the folder it checked then, refusing a name that has become a link.
//!
//! What happened to each save is kept per place ([`own_saves`]), and a refused one is logged.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustix::fs::inotify::{self, CreateFlags, WatchFlags};

use crate::place::{Place, copy_new};
use crate::private;
use crate::texts;

/// A private file being followed: where its saves go, and the version last carried.
struct Followed {
    file: PathBuf,
    name: OsString,
    place: Place,
    carried: Option<Stamp>,
}

/// What tells one version of a file from the next: LibreOffice writes a new file beside it and
/// renames it over the name (a new inode), then changes its mode (not its contents: not a new
/// version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

fn stamp(file: &Path) -> Option<Stamp> {
    let meta = std::fs::symlink_metadata(file).ok()?;
    meta.is_file().then(|| Stamp {
        ino: meta.ino(),
        size: meta.size(),
        mtime: (meta.mtime(), meta.mtime_nsec()),
    })
}

/// How LibreOffice's own saves of a document went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnSaves {
    /// Saves moved into the document's place.
    pub carried: usize,
    /// Saves refused, with why (the place changed: nothing was written there).
    pub refused: Vec<String>,
}

/// The watcher: one inotify instance for the process, read by a thread of its own.
struct Watcher {
    inotify: Arc<OwnedFd>,
    followed: parking_lot::Mutex<HashMap<i32, Followed>>,
    outcomes: parking_lot::Mutex<HashMap<PathBuf, OwnSaves>>,
}

static WATCHER: OnceLock<Result<&'static Watcher, String>> = OnceLock::new();

fn watcher() -> Result<&'static Watcher, String> {
    WATCHER
        .get_or_init(|| {
            let fd = inotify::init(CreateFlags::CLOEXEC)
                .map_err(|e| texts::private_failed(&format!("inotify: {e}")))?;
            let w: &'static Watcher = Box::leak(Box::new(Watcher {
                inotify: Arc::new(fd),
                followed: parking_lot::Mutex::new(HashMap::new()),
                outcomes: parking_lot::Mutex::new(HashMap::new()),
            }));
            std::thread::Builder::new()
                .name("office-own-saves".into())
                .spawn(move || w.run())
                .map_err(|e| texts::private_failed(&e.to_string()))?;
            Ok(w)
        })
        .clone()
}

/// From now on, carries LibreOffice's saves of the private `file` (alone in its folder) to
/// `place`. The file as it is now counts as carried.
pub fn follow(file: &Path, place: &Place) -> Result<(), String> {
    let w = watcher()?;
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return Err(texts::private_failed(&file.display().to_string()));
    };
    let mut followed = w.followed.lock();
    let wd = inotify::add_watch(
        &*w.inotify,
        dir,
        WatchFlags::CLOSE_WRITE | WatchFlags::MOVED_TO,
    )
    .map_err(|e| texts::private_failed(&format!("inotify {}: {e}", dir.display())))?;
    followed.insert(
        wd,
        Followed {
            file: file.to_owned(),
            name: name.to_owned(),
            place: place.clone(),
            carried: stamp(file),
        },
    );
    Ok(())
}

/// How LibreOffice's own saves to the document at `place` (its checked path) went so far.
pub fn own_saves(place: &Path) -> OwnSaves {
    WATCHER
        .get()
        .and_then(|w| w.as_ref().ok())
        .and_then(|w| w.outcomes.lock().get(place).cloned())
        .unwrap_or_default()
}

impl Watcher {
    fn run(&self) {
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 8192];
        let mut reader = inotify::Reader::new(&*self.inotify, &mut buf);
        loop {
            let event = match reader.next() {
                Ok(e) => e,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => {
                    tracing::error!("LibreOffice's own saves are no longer followed: {e}");
                    return;
                }
            };
            let (wd, events) = (event.wd(), event.events());
            let name = event
                .file_name()
                .map(|n| std::ffi::OsStr::from_bytes(n.to_bytes()).to_owned());
            if events.contains(inotify::ReadFlags::IGNORED) {
                // The folder is gone (a document that did not open, a sweep).
                self.followed.lock().remove(&wd);
                continue;
            }
            let mut followed = self.followed.lock();
            if let Some(f) = followed.get_mut(&wd)
                && name.as_deref() == Some(f.name.as_os_str())
                && let Some(outcome) = carry(f)
            {
                let mut outcomes = self.outcomes.lock();
                let saves = outcomes.entry(f.place.path().to_owned()).or_default();
                match outcome {
                    Ok(()) => saves.carried += 1,
                    Err(e) => {
                        tracing::warn!("LibreOffice's own save was not carried: {e}");
                        saves.refused.push(e);
                    }
                }
            }
        }
    }
}

/// Moves a copy of `f`'s private file to its place when it is a version not carried yet.
fn carry(f: &mut Followed) -> Option<Result<(), String>> {
    let now = stamp(&f.file)?;
    if f.carried == Some(now) {
        return None;
    }
    f.carried = Some(now);
    Some(put_copy(&f.file, &f.place).map(drop))
}

/// Moves a copy of the private `file` to `place` — the file itself stays, LibreOffice works on
/// it — and answers the size written there.
pub fn put_copy(file: &Path, place: &Place) -> Result<u64, String> {
    let scratch = private::scratch()?;
    let copy = scratch.path().join(place.name());
    std::fs::File::open(file)
        .and_then(|mut src| copy_new(&mut src, &copy))
        .map_err(|e| texts::private_failed(&e.to_string()))?;
    place.put(&copy).map_err(|e| e.to_string())
}
