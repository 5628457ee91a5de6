//! The fleet in the console (docs/console-api.md "Fleet"): `GET /api/fleet`, every server on
//! the database with its state and the devices it holds. deft-app's [`deft_app::fleet`] keeps
//! the membership; this route renders it. A named token reads it with `devices:read`.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::api::ApiError;

/// `GET /api/fleet`: the fleet's servers and their devices (on SQLite: `enabled: false`, no
/// servers).
pub async fn view(State(app): State<AppState>) -> Result<Response, ApiError> {
    let console = app.console()?;
    let view = console.app().fleet_view().await?;
    Ok(Json(view).into_response())
}
