//! `GET/POST /api/memory/experiences`, `GET/PUT/PATCH/DELETE /api/memory/experiences/{id}` and
//! `POST /api/memory/experiences/{id}/keep`. Deleting is a person's decision (the audit only
//! marks `pending`): `DELETE` is "confirm delete", `keep` is "keep" — kept for good, never
//! suggested again.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::libraries::MAX_RECIPE_CHARS;
use deft_app::task_language::Issue;
use deft_store::{AuditState, ExperienceFilter, NewExperience};
use serde::Deserialize;

use super::MemoryError;
use super::views::{ExperienceDetailView, ExperienceView, ReviewView};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::texts;

/// Longest task text of an experience.
const MAX_TASK_CHARS: usize = 2_000;
/// Longest title.
const MAX_TITLE_CHARS: usize = 200;

/// `GET /api/memory/experiences?q=&state=&limit=&offset=`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only those whose task, title or recipe contains this (any case).
    #[serde(default)]
    q: Option<String>,
    /// Only those in this audit state (`none`, `pending`, `kept`).
    #[serde(default)]
    state: Option<String>,
    /// At most this many (1–1,000, default 50).
    #[serde(default)]
    limit: Option<u32>,
    /// Skip this many.
    #[serde(default)]
    offset: Option<u64>,
}

/// `{items, total}`, most recently changed first.
pub async fn list(
    State(app): State<AppState>,
    Query(q): Query<ListQuery>,
) -> Result<Response, MemoryError> {
    let audit_state = match q.state.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Some(
            AuditState::from_name(s)
                .ok_or_else(|| ApiError(StatusCode::BAD_REQUEST, texts::unknown_audit_state(s)))?,
        ),
    };
    let filter = ExperienceFilter {
        audit_state,
        text: q.q.filter(|t| !t.trim().is_empty()),
    };
    let page = super::page(q.limit, q.offset);
    let got = app.console()?.store().experiences(&filter, page).await?;
    let items: Vec<ExperienceView> = got.items.iter().map(ExperienceView::from).collect();
    Ok(super::paged(items, got.total))
}

/// `GET /api/memory/experiences/{id}`: the experience with the audit's reviews.
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, MemoryError> {
    let store = app.console()?.store();
    let e = store.experience(&id).await?;
    let reviews = store.experience_reviews(&id).await?;
    Ok(Json(ExperienceDetailView {
        experience: ExperienceView::from(&e),
        reviews: reviews.iter().map(ReviewView::from).collect(),
    })
    .into_response())
}

/// The body of `POST` and `PUT` (every field), and of `PATCH` (any of them).
#[derive(Debug, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExperienceBody {
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    recipe: Option<String>,
}

/// `POST /api/memory/experiences {task, title?, recipe}`: 201 the experience.
pub async fn create(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<ExperienceBody>,
) -> Result<Response, MemoryError> {
    let new = checked(body, None)?;
    let console = app.console()?;
    let e = console.store().create_experience(&new).await?;
    console.memory().changed();
    Ok((StatusCode::CREATED, Json(ExperienceView::from(&e))).into_response())
}

/// `PUT /api/memory/experiences/{id} {task, title?, recipe}`: replaces its text.
pub async fn replace(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ExperienceBody>,
) -> Result<Response, MemoryError> {
    let console = app.console()?;
    let store = console.store();
    let old = store.experience(&id).await?;
    let new = checked(body, Some(&old.source_run))?;
    let e = store.update_experience(&id, &new, false).await?;
    console.memory().changed();
    Ok(Json(ExperienceView::from(&e)).into_response())
}

/// `PATCH /api/memory/experiences/{id}` with any of `task`, `title`, `recipe`.
pub async fn patch(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ExperienceBody>,
) -> Result<Response, MemoryError> {
    let store = app.console()?.store();
    let old = store.experience(&id).await?;
    let merged = ExperienceBody {
        task: body.task.or(Some(old.task)),
        title: body.title.or(Some(old.title)),
        recipe: body.recipe.or(Some(old.recipe)),
    };
    let new = checked(merged, Some(&old.source_run))?;
    let e = store.update_experience(&id, &new, false).await?;
    app.console()?.memory().changed();
    Ok(Json(ExperienceView::from(&e)).into_response())
}

/// `DELETE /api/memory/experiences/{id}`: a person deletes it (confirming a suggestion, or of
/// their own accord). 204.
pub async fn delete(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, MemoryError> {
    let console = app.console()?;
    console.store().delete_experience(&id).await?;
    console.memory().changed();
    tracing::info!(experience = %id, "a person deleted an experience");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/memory/experiences/{id}/keep`: a person keeps it; the audit never suggests it
/// again.
pub async fn keep(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, MemoryError> {
    let e = app.console()?.store().keep_experience(&id).await?;
    tracing::info!(experience = %id, "a person kept an experience");
    Ok(Json(ExperienceView::from(&e)).into_response())
}

/// The body checked: a task and a recipe within their limits (the title defaults to the
/// task's start); every problem at its field.
fn checked(
    body: ExperienceBody,
    source_run: Option<&Option<String>>,
) -> Result<NewExperience, MemoryError> {
    let mut errors = Vec::new();
    let mut field = |name: &str, value: Option<String>, max: usize, required: bool| {
        let v = value.unwrap_or_default().trim().to_owned();
        let n = v.chars().count();
        if (required && n == 0) || n > max {
            errors.push(Issue::new(name, texts::text_field(name, max, required)));
        }
        v
    };
    let task = field("task", body.task, MAX_TASK_CHARS, true);
    let title = field("title", body.title, MAX_TITLE_CHARS, false);
    let recipe = field("recipe", body.recipe, MAX_RECIPE_CHARS, true);
    if !errors.is_empty() {
        return Err(MemoryError::Invalid(
            "experience",
            deft_app::task_language::Report {
                errors,
                warnings: Vec::new(),
            },
        ));
    }
    let title = if title.is_empty() {
        task.chars().take(80).collect()
    } else {
        title
    };
    Ok(NewExperience {
        task,
        title,
        recipe,
        source_run: source_run.cloned().flatten(),
    })
}
