//! Step images: the agent hands their bytes to [`FileImages`], which writes them under
//! `DATA/runs/<run id>/` and names them `img-N`; events carry only the names, and
//! `GET /api/runs/{run_id}/images/{image_id}` serves the files.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use deft_agent::ImageSink;

use crate::AppState;
use crate::api::ApiError;

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

fn plain_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// `GET /api/runs/{run_id}/images/{image_id}`.
pub async fn serve(
    State(app): State<AppState>,
    Path((run_id, image_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let dir = console.runs_dir().join(&run_id);
    serve_from(dir, &run_id, &image_id).await
}

/// `GET /api/task-runs/{run_id}/images/{image_id}`: the images a task run's steps kept (in
/// its trace folder).
pub async fn serve_task_run(
    State(app): State<AppState>,
    Path((run_id, image_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let dir = console.task_trace_dir(&run_id).join("images");
    serve_from(dir, &run_id, &image_id).await
}

/// The image `image_id` of run `run_id` from `dir`, whatever its format; 404 for names that
/// are not plain ids.
async fn serve_from(dir: PathBuf, run_id: &str, image_id: &str) -> Result<Response, ApiError> {
    let not_found = || {
        ApiError(
            StatusCode::NOT_FOUND,
            format!("no image '{image_id}' in run '{run_id}'"),
        )
    };
    if !plain_id(run_id) || !plain_id(image_id) {
        return Err(not_found());
    }
    for (ext, mime) in [
        ("png", "image/png"),
        ("jpg", "image/jpeg"),
        ("webp", "image/webp"),
        ("gif", "image/gif"),
    ] {
        if let Ok(bytes) = tokio::fs::read(dir.join(format!("{image_id}.{ext}"))).await {
            return Ok((
                [
                    (header::CONTENT_TYPE, mime),
                    (header::CACHE_CONTROL, "private, max-age=86400, immutable"),
                ],
                bytes,
            )
                .into_response());
        }
    }
    Err(not_found())
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
        assert!(plain_id("img-1") && plain_id("0b7e-11"));
        assert!(!plain_id("../x") && !plain_id("") && !plain_id("a/b"));
    }
}
