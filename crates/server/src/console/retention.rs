//! Retention of the run history: keep task runs N days and their images M days (0 or unset:
//! forever), set in `app_meta` and through `GET`/`PUT /api/settings/retention`, applied by
//! `deft serve` at its start and then daily on the console's clock. A pass removes the ended runs
//! started before the runs' cutoff with their steps, events and trace folders, and the images of
//! the ended runs started before the images' cutoff; a running run is never touched. What the last
//! pass removed (runs, images, bytes) is kept in `app_meta` and answered with the settings.

use std::path::Path;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Console, rfc3339, texts};
use crate::AppState;
use crate::api::{ApiError, JsonBody};

/// `app_meta` key of how many days runs are kept.
pub const KEY_RUN_DAYS: &str = "retention_run_days";
/// `app_meta` key of how many days runs' images are kept.
pub const KEY_IMAGE_DAYS: &str = "retention_image_days";
/// `app_meta` key of what the last pass removed (a [`RetentionPass`] as JSON).
pub const KEY_LAST: &str = "retention_last";
/// A day, in ms.
pub const DAY_MS: i64 = 86_400_000;
/// The longest retention one may set (about 100 years).
pub const MAX_DAYS: u32 = 36_500;
/// How soon a failed pass is tried again (on the console's clock).
const RETRY_MS: i64 = 60_000;

/// What a retention pass removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RetentionPass {
    /// When it ran (ISO-8601 UTC).
    pub at: String,
    /// Runs removed (with their steps, events and trace folders).
    pub runs: u64,
    /// Image files removed (of removed runs and of kept runs past the images' days).
    pub images: u64,
    /// Bytes those runs' folders and images held on disk.
    pub bytes: u64,
}

/// `GET /api/settings/retention` answer, and `PUT`'s body (`last` ignored there).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetentionView {
    /// Keep runs this many days; `null` or 0: forever.
    #[serde(default)]
    pub run_days: Option<u32>,
    /// Keep runs' images this many days; `null` or 0: forever.
    #[serde(default)]
    pub image_days: Option<u32>,
    /// What the last pass removed, once one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<RetentionPass>,
}

/// Days read from `app_meta` (`None`: keep forever).
async fn days(console: &Console, key: &str) -> Result<Option<u32>, ApiError> {
    let value = console.store().meta(key).await?;
    Ok(value.and_then(|v| v.parse::<u32>().ok()).filter(|d| *d > 0))
}

/// The settings and the last pass.
pub async fn view(console: &Console) -> Result<RetentionView, ApiError> {
    let last = console
        .store()
        .meta(KEY_LAST)
        .await?
        .and_then(|json| serde_json::from_str(&json).ok());
    Ok(RetentionView {
        run_days: days(console, KEY_RUN_DAYS).await?,
        image_days: days(console, KEY_IMAGE_DAYS).await?,
        last,
    })
}

/// `GET /api/settings/retention`.
pub async fn get_retention(State(app): State<AppState>) -> Result<Response, ApiError> {
    Ok(Json(view(app.console()?).await?).into_response())
}

/// `PUT /api/settings/retention` `{"run_days"?, "image_days"?}`: a number of days (0 or
/// `null`: forever); answers the settings. Applied by the next daily pass.
pub async fn put_retention(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<RetentionView>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let fields = [
        (KEY_RUN_DAYS, "run_days", body.run_days.filter(|d| *d > 0)),
        (
            KEY_IMAGE_DAYS,
            "image_days",
            body.image_days.filter(|d| *d > 0),
        ),
    ];
    // Both checked before either is stored: a refusal changes nothing.
    if let Some((_, name, Some(d))) = fields
        .iter()
        .find(|(_, _, d)| d.is_some_and(|d| d > MAX_DAYS))
    {
        return Err(ApiError(
            axum::http::StatusCode::BAD_REQUEST,
            texts::bad_retention_days(name, *d, MAX_DAYS),
        ));
    }
    for (key, _, value) in fields {
        match value {
            Some(d) => console.store().set_meta(key, &d.to_string()).await?,
            None => console.store().delete_meta(key).await?,
        }
    }
    Ok(Json(view(console).await?).into_response())
}

/// One retention pass at `now_ms`: removes what the settings say is past, records and answers
/// what it removed.
pub async fn apply(console: &Console, now_ms: i64) -> Result<RetentionPass, ApiError> {
    let store = console.store();
    let mut pass = RetentionPass {
        at: rfc3339(now_ms),
        ..RetentionPass::default()
    };
    if let Some(d) = days(console, KEY_IMAGE_DAYS).await? {
        for id in store
            .ended_task_runs_before(now_ms - i64::from(d) * DAY_MS)
            .await?
        {
            let (files, bytes) = remove_tree(&console.task_trace_dir(&id).join("images"));
            pass.images += files;
            pass.bytes += bytes;
        }
    }
    if let Some(d) = days(console, KEY_RUN_DAYS).await? {
        for id in store
            .purge_task_runs_before(now_ms - i64::from(d) * DAY_MS)
            .await?
        {
            let dir = console.task_trace_dir(&id);
            pass.images += count_files(&dir.join("images"));
            let (_, bytes) = remove_tree(&dir);
            pass.runs += 1;
            pass.bytes += bytes;
        }
    }
    let json = serde_json::to_string(&pass).unwrap_or_default();
    store.set_meta(KEY_LAST, &json).await?;
    Ok(pass)
}

/// Runs a pass now and then every day on the console's clock, until `stop`.
pub async fn daily(console: Console, stop: CancellationToken) {
    let clock = console.app().clock().clone();
    loop {
        let now = clock.now_ms();
        let next = match apply(&console, now).await {
            Ok(pass) => {
                tracing::info!(?pass, "retention pass");
                now + DAY_MS
            }
            Err(e) => {
                tracing::warn!(error = %e.1, "retention pass failed: trying again in a minute");
                now + RETRY_MS
            }
        };
        tokio::select! {
            () = clock.sleep_until(next) => {}
            () = stop.cancelled() => return,
        }
    }
}

/// How many files `dir` holds (none when it is missing).
fn count_files(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .count() as u64
    })
}

/// Removes `path` (a folder and all below it, never following links) and answers how many
/// files it held and their bytes; nothing when it is missing.
fn remove_tree(path: &Path) -> (u64, u64) {
    let (files, bytes) = measure(path);
    if let Err(e) = std::fs::remove_dir_all(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(path = %path.display(), error = %e, "retention could not remove a folder");
        return (0, 0);
    }
    (files, bytes)
}

fn measure(path: &Path) -> (u64, u64) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return (0, 0);
    };
    if !meta.is_dir() {
        return (1, meta.len());
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return (0, 0);
    };
    entries.filter_map(Result::ok).fold((0, 0), |(f, b), e| {
        let (ef, eb) = measure(&e.path());
        (f + ef, b + eb)
    })
}
