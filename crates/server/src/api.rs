//! The device routes of the JSON API (the device list and exec batches), the error type every
//! route answers with, and [`JsonBody`], the JSON extractor whose rejections are in that format.
//! Every route here is behind [`crate::console::sessions::authorize`]; errors are
//! `{"error": "..."}` with a status that says what kind of problem it is (400, 401, 404, 409,
//! 413). Every body is read through [`read_body`], which keeps at most the server's body limit.

use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::agent_runs::start::StartError;
use deft_protocol::ExecInput;
use deft_tools::Devices;
use serde::Deserialize;

use crate::{AppState, texts};

/// An API error: a status and a text for whoever called.
pub struct ApiError(pub StatusCode, pub String);

/// A store failure is the server's problem (500), said plainly.
impl From<deft_store::StoreError> for ApiError {
    fn from(e: deft_store::StoreError) -> Self {
        ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            crate::console::texts::store_failed(&e.to_string()),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(ErrorBody { error: self.1 })).into_response()
    }
}

/// What every error answers with: a text for whoever called.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct ErrorBody {
    /// What went wrong and what to do about it.
    pub error: String,
}

/// `GET /health`'s answer.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Health {
    /// Always `ok` while the server answers.
    pub status: &'static str,
}

/// Largest request body the API reads unless the server is configured otherwise
/// ([`crate::ServerConfig::max_body`]).
pub const MAX_JSON_BODY: usize = 1 << 20;

/// How much of a body past the limit is read and dropped before the 413, so that a caller still
/// sending it reads the answer instead of a reset connection; a longer one is cut off.
const DRAIN_LIMIT: usize = 64 << 20;

/// Reads `request`'s body, at most `limit` bytes (a larger one is 413, and never held whole:
/// what comes past the limit is dropped as it arrives).
pub async fn read_body(request: Request, limit: usize) -> Result<Bytes, ApiError> {
    use futures::StreamExt;
    let mut stream = request.into_body().into_data_stream();
    let mut kept: Vec<u8> = Vec::new();
    let mut seen = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError(
                StatusCode::BAD_REQUEST,
                texts::body_unreadable(&e.to_string()),
            )
        })?;
        seen = seen.saturating_add(chunk.len());
        if seen > limit {
            if seen > DRAIN_LIMIT {
                break;
            }
            continue;
        }
        kept.extend_from_slice(&chunk);
    }
    if seen > limit {
        return Err(ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            texts::body_too_large(limit),
        ));
    }
    Ok(Bytes::from(kept))
}

/// Reads `request`'s body as JSON `T`, at most `limit` bytes; a clear 400 when it is not JSON
/// `T`, 413 when it is too large.
pub async fn json_body<T: serde::de::DeserializeOwned>(
    request: Request,
    limit: usize,
) -> Result<T, ApiError> {
    parse_json(&read_body(request, limit).await?)
}

fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let bytes = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        bytes
    };
    serde_json::from_slice(bytes).map_err(|e| {
        ApiError(
            StatusCode::BAD_REQUEST,
            format!("the request body is not what this route takes: {e}"),
        )
    })
}

/// A JSON request body, at most the server's body limit; an empty body reads as `{}`.
/// Rejections are [`ApiError`]s.
pub struct JsonBody<T>(pub T);

impl<T: serde::de::DeserializeOwned> axum::extract::FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, app: &AppState) -> Result<Self, ApiError> {
        json_body(request, app.max_body).await.map(JsonBody)
    }
}

/// `GET /api/devices`: every device with its details.
pub async fn devices(State(app): State<AppState>) -> Result<Response, ApiError> {
    let elsewhere = devices_elsewhere(&app).await?;
    Ok(Json(app.registry.details_in_fleet(elsewhere)).into_response())
}

/// The devices other servers of the fleet hold, each lease with its holder's name (none
/// without a console or a fleet).
async fn devices_elsewhere(
    app: &AppState,
) -> Result<Vec<(deft_store::DeviceLease, String)>, ApiError> {
    match &app.console {
        Some(console) => Ok(console.app().devices_elsewhere().await?),
        None => Ok(Vec::new()),
    }
}

/// `GET /api/devices/{id}`: one device (of this server, or held by another of the fleet).
pub async fn device(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let elsewhere = devices_elsewhere(&app).await?;
    match app
        .registry
        .details_in_fleet(elsewhere)
        .into_iter()
        .find(|d| d.id == id)
    {
        Some(d) => Ok(Json(d).into_response()),
        None => Err(unknown(&app, &id)),
    }
}

fn unknown(app: &AppState, id: &str) -> ApiError {
    let known: Vec<String> = app.registry.list().into_iter().map(|d| d.id).collect();
    ApiError(StatusCode::NOT_FOUND, texts::unknown_device(id, &known))
}

/// Query of the exec route.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ExecQuery {
    /// Batch deadline in seconds (default: 600).
    pub deadline_secs: Option<f64>,
}

/// `POST /api/devices/{id}/exec`: runs a batch (or a list of batches, in order) on the device,
/// holding it busy meanwhile; 409 when it is busy already. Answers the Results (a list per batch
/// for a list of batches), as `deft exec` prints them.
pub async fn exec(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<ExecQuery>,
    request: Request,
) -> Result<Response, ApiError> {
    let body = read_body(request, app.max_body).await?;
    let deadline = match query.deadline_secs {
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
        Some(s) => return Err(ApiError(StatusCode::BAD_REQUEST, texts::bad_deadline(s))),
        None => app.batch_deadline,
    };
    let text = std::str::from_utf8(&body)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, texts::bad_batch(&e.to_string())))?;
    let input = ExecInput::parse(text)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, texts::bad_batch(&e)))?;
    let single = matches!(input, ExecInput::One(_));
    // A caller that goes away drops this future, and with it the batch in flight.
    let mut all = match &app.console {
        // The application core: the task runs told when the device is free, a device another
        // server of the fleet holds run there.
        Some(console) => console
            .app()
            .exec_batches(
                &app.registry,
                &id,
                input.into_batches(),
                deadline,
                &Default::default(),
            )
            .await
            .map_err(|e| match e {
                StartError::NotFound(_) => unknown(&app, &id),
                e => e.into(),
            })?,
        None => {
            let device = app.registry.get(&id).ok_or_else(|| unknown(&app, &id))?;
            let _busy = device
                .try_reserve()
                .ok_or_else(|| ApiError(StatusCode::CONFLICT, texts::device_busy(&id)))?;
            device
                .run_batches(input.into_batches(), deadline, &Default::default())
                .await
        }
    };
    Ok(if single {
        Json(all.pop().unwrap_or_default()).into_response()
    } else {
        Json(all).into_response()
    })
}
