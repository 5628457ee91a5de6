//! Conversations and their messages (seed 001 §2.3, §3.2).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::texts;
use super::views::{ConversationDetailView, ConversationView};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use deft_app::title::clean_title;

/// `GET /api/conversations`.
pub async fn list(State(app): State<AppState>) -> Result<Response, ApiError> {
    let all = app.console()?.store().conversations().await?;
    Ok(Json(all.iter().map(ConversationView::from).collect::<Vec<_>>()).into_response())
}

/// Create body.
#[derive(Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ConversationCreate")]
pub struct CreateBody {
    #[serde(default)]
    title: Option<String>,
}

/// `POST /api/conversations`.
pub async fn create(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<CreateBody>,
) -> Result<Response, ApiError> {
    let title = clean_title(body.title.as_deref().unwrap_or(""));
    let title = if title.is_empty() {
        "New conversation".to_owned()
    } else {
        title
    };
    let s = app.console()?.store().create_conversation(&title).await?;
    Ok((StatusCode::CREATED, Json(ConversationView::from(&s))).into_response())
}

/// `GET /api/conversations/{id}`.
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let store = app.console()?.store();
    match store.conversation(&id).await? {
        Some(c) => {
            let runs: Vec<String> = c.messages.iter().filter_map(|m| m.run_id.clone()).collect();
            let notes = store.run_notes(&runs).await?;
            let outputs = super::runs::typed_results(store, &runs).await?;
            Ok(Json(ConversationDetailView::new(&c, &notes, &outputs)).into_response())
        }
        None => Err(ApiError(
            StatusCode::NOT_FOUND,
            texts::unknown_conversation(&id),
        )),
    }
}

/// Rename body.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ConversationRename")]
pub struct RenameBody {
    title: String,
}

/// `PATCH /api/conversations/{id}`.
pub async fn rename(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<RenameBody>,
) -> Result<Response, ApiError> {
    let title = clean_title(&body.title);
    if title.is_empty() {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "the title is empty".to_owned(),
        ));
    }
    match app
        .console()?
        .store()
        .rename_conversation(&id, &title)
        .await?
    {
        Some(s) => Ok(Json(ConversationView::from(&s)).into_response()),
        None => Err(ApiError(
            StatusCode::NOT_FOUND,
            texts::unknown_conversation(&id),
        )),
    }
}

/// `DELETE /api/conversations/{id}`.
pub async fn delete(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    if console
        .app()
        .current_run()
        .is_some_and(|r| r.conversation == id)
    {
        return Err(ApiError(
            StatusCode::CONFLICT,
            texts::CONVERSATION_RUNNING.to_owned(),
        ));
    }
    if console.store().delete_conversation(&id).await? {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(ApiError(
            StatusCode::NOT_FOUND,
            texts::unknown_conversation(&id),
        ))
    }
}
