//! The step images runs keep (screenshots a step took), read for a watcher: from this
//! server's data folder, or — for a run another server of the fleet ran — asked of that
//! server through a fleet job ([`App::step_image_elsewhere`]) and kept here, so the next
//! request for it is local.

use std::path::PathBuf;

use deft_store::StoreError;
use serde::{Deserialize, Serialize};

use crate::app::App;

/// The image formats a step image may have, by file extension.
const FORMATS: [(&str, &str); 4] = [
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("webp", "image/webp"),
    ("gif", "image/gif"),
];

/// Whose image it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageOf {
    /// A chat or designer run's (or an action's try, `try-<id>`).
    Run,
    /// A task run's.
    TaskRun,
}

/// A step image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepImage {
    /// Its media type (`image/png` …).
    pub mime: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Whether `s` can name a run or an image: letters, digits, `-` and `_`, at most 64 (never a
/// path).
pub fn plain_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl App {
    /// Image `image_id` of `of` run `run_id`: this server's copy, else (in a fleet) the copy
    /// of the server that ran it. `None` when there is none (or the ids are not plain).
    pub async fn step_image(
        &self,
        of: ImageOf,
        run_id: &str,
        image_id: &str,
    ) -> Result<Option<StepImage>, StoreError> {
        if let Some(image) = self.local_step_image(of, run_id, image_id).await {
            return Ok(Some(image));
        }
        let Some(device) = self.run_device_elsewhere(of, run_id).await? else {
            return Ok(None);
        };
        let Some(image) = self
            .step_image_elsewhere(&device, of, run_id, image_id)
            .await?
        else {
            return Ok(None);
        };
        self.keep_step_image(of, run_id, image_id, &image).await;
        Ok(Some(image))
    }

    /// Image `image_id` of `of` run `run_id` as this server keeps it.
    pub(crate) async fn local_step_image(
        &self,
        of: ImageOf,
        run_id: &str,
        image_id: &str,
    ) -> Option<StepImage> {
        if !plain_id(run_id) || !plain_id(image_id) {
            return None;
        }
        let dir = self.step_images_dir(of, run_id);
        for (ext, mime) in FORMATS {
            if let Ok(bytes) = tokio::fs::read(dir.join(format!("{image_id}.{ext}"))).await {
                return Some(StepImage { mime, bytes });
            }
        }
        None
    }

    fn step_images_dir(&self, of: ImageOf, run_id: &str) -> PathBuf {
        match of {
            ImageOf::Run => self.run_images_dir(run_id),
            ImageOf::TaskRun => self.task_trace_dir(run_id).join("images"),
        }
    }

    /// The device of `of` run `run_id` when another server of the fleet ran it.
    async fn run_device_elsewhere(
        &self,
        of: ImageOf,
        run_id: &str,
    ) -> Result<Option<String>, StoreError> {
        if self.fleet().is_none() || !plain_id(run_id) {
            return Ok(None);
        }
        let (owner, device) = match of {
            ImageOf::Run => match self.store().run(run_id).await? {
                Some(run) => (run.owner, run.device),
                None => return Ok(None),
            },
            ImageOf::TaskRun => match self.store().task_run(run_id).await {
                Ok(run) => (run.owner, run.device),
                Err(StoreError::NotFound(_)) => return Ok(None),
                Err(e) => return Err(e),
            },
        };
        Ok(owner.filter(|o| o != self.server_id()).map(|_| device))
    }

    /// Keeps a copy of an image fetched from another server (a failure only costs a later
    /// fetch).
    async fn keep_step_image(&self, of: ImageOf, run_id: &str, image_id: &str, image: &StepImage) {
        let Some((ext, _)) = FORMATS.iter().find(|(_, mime)| *mime == image.mime) else {
            return;
        };
        let dir = self.step_images_dir(of, run_id);
        let kept = async {
            tokio::fs::create_dir_all(&dir).await?;
            let tmp = dir.join(format!(".{image_id}.{ext}.part"));
            tokio::fs::write(&tmp, &image.bytes).await?;
            tokio::fs::rename(&tmp, dir.join(format!("{image_id}.{ext}"))).await
        };
        if let Err(e) = kept.await {
            tracing::debug!(run = %run_id, image = %image_id, error = %e, "cannot keep a fetched step image");
        }
    }
}

/// The media type of a step image's format, as [`StepImage::mime`] names it.
pub(crate) fn known_mime(mime: &str) -> Option<&'static str> {
    FORMATS.iter().find(|(_, m)| *m == mime).map(|(_, m)| *m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_ids_are_plain_names() {
        assert!(plain_id("img-1") && plain_id("0b7e-11") && plain_id("try-0b7e_11"));
        assert!(!plain_id("../x") && !plain_id("") && !plain_id("a/b") && !plain_id(".."));
        assert!(!plain_id(&"a".repeat(65)));
    }

    #[test]
    fn only_the_known_formats_are_kept() {
        assert_eq!(known_mime("image/png"), Some("image/png"));
        assert_eq!(known_mime("text/html"), None);
    }
}
