//! Step images: the application writes them under `DATA/runs/<run id>/` as `img-N`
//! ([`deft_app::run_images::FileImages`]); events carry only the names, and
//! `GET /api/runs/{run_id}/images/{image_id}` serves the files (a run another server of the
//! fleet ran: its server's, through [`deft_app::App::step_image`]).

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use deft_app::step_images::ImageOf;

use crate::AppState;
use crate::api::ApiError;

/// `GET /api/runs/{run_id}/images/{image_id}`.
pub async fn serve(
    State(app): State<AppState>,
    Path((run_id, image_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    serve_of(&app, ImageOf::Run, &run_id, &image_id).await
}

/// `GET /api/task-runs/{run_id}/images/{image_id}`: the images a task run's steps kept (in
/// its trace folder).
pub async fn serve_task_run(
    State(app): State<AppState>,
    Path((run_id, image_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    serve_of(&app, ImageOf::TaskRun, &run_id, &image_id).await
}

/// The image `image_id` of `of` run `run_id`, whatever its format — this server's copy, or the
/// copy of the fleet's server that ran it; 404 for none (and for names that are not plain ids).
async fn serve_of(
    app: &AppState,
    of: ImageOf,
    run_id: &str,
    image_id: &str,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    match console.app().step_image(of, run_id, image_id).await? {
        Some(image) => Ok((
            [
                (header::CONTENT_TYPE, image.mime),
                (header::CACHE_CONTROL, "private, max-age=86400, immutable"),
            ],
            image.bytes,
        )
            .into_response()),
        None => Err(ApiError(
            StatusCode::NOT_FOUND,
            deft_app::texts::no_step_image(run_id, image_id),
        )),
    }
}
