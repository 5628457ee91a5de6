//! Step images: the application writes them under `DATA/runs/<run id>/` as `img-N`
//! ([`deft_app::run_images::FileImages`]); events carry only the names, and
//! `GET /api/runs/{run_id}/images/{image_id}` serves the files.

use std::path::PathBuf;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::api::ApiError;

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
    let dir = console.run_images_dir(&run_id);
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
    fn image_ids_are_plain_names() {
        assert!(plain_id("img-1") && plain_id("0b7e-11"));
        assert!(!plain_id("../x") && !plain_id("") && !plain_id("a/b"));
    }
}
