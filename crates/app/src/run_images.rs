//! A chat or designer run's step images: the agent hands their bytes to [`FileImages`], which
//! writes them into the run's folder (`DATA/runs/<run id>/`) as `img-N`; events carry only the
//! names.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use deft_agent::ImageSink;

/// Writes a run's images into its folder.
pub struct FileImages {
    dir: PathBuf,
    next: AtomicU64,
}

impl FileImages {
    /// Images of one run, in `dir` (created on first use).
    pub fn new(dir: PathBuf) -> Self {
        FileImages {
            dir,
            next: AtomicU64::new(1),
        }
    }
}

fn extension(mime: &str) -> &'static str {
    match mime {
        "image/jpeg" | "image/jpg" => "jpg",
        "image/webp" => "webp",
        "image/gif" => "gif",
        _ => "png",
    }
}

impl ImageSink for FileImages {
    fn store(&self, bytes: &[u8], mime: &str) -> String {
        let id = format!("img-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let path = self.dir.join(format!("{id}.{}", extension(mime)));
        let written =
            std::fs::create_dir_all(&self.dir).and_then(|()| std::fs::write(&path, bytes));
        if let Err(e) = written {
            tracing::error!(path = %path.display(), error = %e, "cannot keep a step image; its card will show none");
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_land_in_the_run_folder_under_plain_names() {
        let dir = tempfile::tempdir().unwrap();
        let sink = FileImages::new(dir.path().join("r1"));
        assert_eq!(sink.store(b"png", "image/png"), "img-1");
        assert_eq!(sink.store(b"jpg", "image/jpeg"), "img-2");
        assert_eq!(
            std::fs::read(dir.path().join("r1/img-1.png")).unwrap(),
            b"png"
        );
        assert_eq!(
            std::fs::read(dir.path().join("r1/img-2.jpg")).unwrap(),
            b"jpg"
        );
    }
}
