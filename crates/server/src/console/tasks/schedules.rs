//! A task's schedules: `GET/POST /api/tasks/{id}/schedules`,
//! `GET/PUT/PATCH/DELETE /api/tasks/{id}/schedules/{schedule}`.
//!
//! A schedule body: `{"kind": "cron", "expr": "47 3 * * 1-5", "tz": "Europe/Berlin"}`,
//! `{"kind": "every", "seconds": 900}` or `{"kind": "once", "at": "2027-01-31T08:00:00Z"}`
//! (or `"at_ms"`), with `"misfire": "run_once"|"skip"` (default `run_once`), `"busy":
//! "wait"|"skip"` (default `skip`) and `"enabled"` (default true). Every problem is a 400 at
//! the field's path; the answer says when it fires in words and lists the coming fires.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::task_language::ScheduleSpec;
use deft_app::task_language::{Issue, Report};
use deft_store::{BusyPolicy, MisfirePolicy, NewSchedule, Schedule, ScheduleKind, StoreError};
use serde_json::{Map, Value};

use super::crud::resolve;
use super::views::ScheduleView;
use super::{TaskError, store_error};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::{Console, now_ms, texts};

/// The fields a schedule body takes.
const FIELDS: &[&str] = &[
    "kind", "expr", "tz", "seconds", "at", "at_ms", "misfire", "busy", "enabled",
];

/// Collects the problems of one body.
#[derive(Default)]
struct Problems(Vec<Issue>);

impl Problems {
    fn add(&mut self, path: &str, message: impl Into<String>) {
        self.0.push(Issue::new(path, message));
    }
}

/// Reads a schedule body; every problem at its field.
pub(crate) fn parse_body(body: &Value, now: i64) -> Result<NewSchedule, TaskError> {
    let mut p = Problems::default();
    let Some(obj) = body.as_object() else {
        return Err(TaskError::at("", texts::SCHEDULE_NOT_OBJECT));
    };
    for key in obj.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        p.add(key, texts::schedule_unknown_field(key, FIELDS));
    }
    let kind = spec_of(obj, &mut p);
    let misfire = policy(
        obj,
        "misfire",
        MisfirePolicy::RunOnce,
        MisfirePolicy::from_name,
        &mut p,
    );
    let busy = policy(obj, "busy", BusyPolicy::Skip, BusyPolicy::from_name, &mut p);
    let enabled = match obj.get("enabled") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            p.add("enabled", texts::SCHEDULE_ENABLED_BOOL);
            true
        }
    };
    let mut next = None;
    if let Some(kind) = &kind {
        match ScheduleSpec::parse(kind).and_then(|spec| spec.first_fire(now)) {
            Ok(first) => next = Some(first),
            Err(e) => {
                let at = match (e.input(), kind) {
                    ("at_ms", _) if obj.contains_key("at") => "at",
                    (key, _) => key,
                };
                p.add(at, e.to_string());
            }
        }
    }
    match (kind, misfire, busy) {
        (Some(kind), Some(misfire), Some(busy)) if p.0.is_empty() => Ok(NewSchedule {
            kind,
            misfire,
            busy,
            enabled,
            next_fire_at_ms: next.filter(|_| enabled),
        }),
        _ => Err(TaskError::Invalid(Report {
            errors: p.0,
            warnings: Vec::new(),
        })),
    }
}

/// A schedule as the body that makes it again ([`parse_body`]'s inverse): what an export
/// document carries.
pub(crate) fn body_of(s: &Schedule) -> Value {
    let mut body = match &s.kind {
        ScheduleKind::Cron { expr, tz } => {
            serde_json::json!({"kind": "cron", "expr": expr, "tz": tz})
        }
        ScheduleKind::Every { seconds } => serde_json::json!({"kind": "every", "seconds": seconds}),
        ScheduleKind::Once { at_ms } => {
            serde_json::json!({"kind": "once", "at": crate::console::rfc3339(*at_ms)})
        }
    };
    body["misfire"] = s.misfire.as_str().into();
    body["busy"] = s.busy.as_str().into();
    body["enabled"] = s.enabled.into();
    body
}

/// The spec part of a body.
fn spec_of(obj: &Map<String, Value>, p: &mut Problems) -> Option<ScheduleKind> {
    let kind = match obj.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) | None => {
            p.add("kind", texts::SCHEDULE_KIND);
            return None;
        }
    };
    let text = |key: &str, p: &mut Problems| match obj.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            p.add(key, texts::schedule_field_type(key, "a string"));
            None
        }
        None => None,
    };
    match kind {
        "cron" => {
            let expr = text("expr", p);
            if expr.is_none() && !obj.contains_key("expr") {
                p.add("expr", texts::SCHEDULE_CRON_EXPR);
            }
            let tz = text("tz", p).unwrap_or_else(|| "UTC".to_owned());
            expr.map(|expr| ScheduleKind::Cron { expr, tz })
        }
        "every" => match obj.get("seconds") {
            Some(Value::Number(n)) if n.as_u64().is_some() => Some(ScheduleKind::Every {
                seconds: n.as_u64().expect("checked"),
            }),
            _ => {
                p.add("seconds", texts::SCHEDULE_SECONDS);
                None
            }
        },
        "once" => match (obj.get("at"), obj.get("at_ms")) {
            (Some(Value::String(at)), None) => {
                match chrono::DateTime::parse_from_rfc3339(at.trim()) {
                    Ok(t) => Some(ScheduleKind::Once {
                        at_ms: t.timestamp_millis(),
                    }),
                    Err(e) => {
                        p.add("at", texts::schedule_bad_moment(at, &e.to_string()));
                        None
                    }
                }
            }
            (None, Some(Value::Number(n))) if n.as_i64().is_some() => Some(ScheduleKind::Once {
                at_ms: n.as_i64().expect("checked"),
            }),
            _ => {
                p.add("at", texts::SCHEDULE_AT);
                None
            }
        },
        other => {
            p.add("kind", texts::schedule_unknown_kind(other));
            None
        }
    }
}

/// A policy field: its default when absent, its named value, else a problem.
fn policy<T>(
    obj: &Map<String, Value>,
    key: &str,
    default: T,
    from_name: fn(&str) -> Option<T>,
    p: &mut Problems,
) -> Option<T> {
    match obj.get(key) {
        None => Some(default),
        Some(Value::String(s)) if from_name(s).is_some() => from_name(s),
        Some(_) => {
            let allowed = if key == "busy" {
                "\"wait\" or \"skip\""
            } else {
                "\"run_once\" or \"skip\""
            };
            p.add(key, texts::schedule_policy(key, allowed));
            None
        }
    }
}

/// `GET /api/tasks/{id}/schedules`.
pub async fn list(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let task = resolve(console, &id).await?;
    let all = console.store().schedules_of_task(&task.id).await?;
    let views: Vec<ScheduleView> = all.iter().map(ScheduleView::from).collect();
    Ok(Json(views).into_response())
}

/// `POST /api/tasks/{id}/schedules`: 201 with the schedule; 400 with every problem at its
/// field, nothing stored.
pub async fn create(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let task = resolve(console, &id).await?;
    let new = parse_body(&body, now_ms())?;
    let schedule = console.store().create_schedule(&task.id, &new).await?;
    console.tasks().schedules_changed();
    Ok((StatusCode::CREATED, Json(ScheduleView::from(&schedule))).into_response())
}

/// The schedule `schedule` of the task `id`; 404 when either is unknown or they do not belong
/// together.
async fn owned(console: &Console, id: &str, schedule: &str) -> Result<Schedule, TaskError> {
    let task = resolve(console, id).await?;
    let not_found = || {
        TaskError::Api(ApiError(
            StatusCode::NOT_FOUND,
            texts::unknown_schedule(schedule, &task.name),
        ))
    };
    match console.store().schedule(schedule).await {
        Ok(s) if s.task_id == task.id => Ok(s),
        Ok(_) | Err(StoreError::NotFound(_)) => Err(not_found()),
        Err(e) => Err(store_error(e).into()),
    }
}

/// `GET /api/tasks/{id}/schedules/{schedule}`.
pub async fn get_one(
    State(app): State<AppState>,
    Path((id, schedule)): Path<(String, String)>,
) -> Result<Response, TaskError> {
    let s = owned(app.console()?, &id, &schedule).await?;
    Ok(Json(ScheduleView::from(&s)).into_response())
}

/// `PUT /api/tasks/{id}/schedules/{schedule}`: a new spec and policies (its first fire from
/// now).
pub async fn replace(
    State(app): State<AppState>,
    Path((id, schedule)): Path<(String, String)>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let old = owned(console, &id, &schedule).await?;
    let new = parse_body(&body, now_ms())?;
    let s = console.store().update_schedule(&old.id, &new).await?;
    console.tasks().schedules_changed();
    Ok(Json(ScheduleView::from(&s)).into_response())
}

/// `PATCH /api/tasks/{id}/schedules/{schedule}` body.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "SchedulePatch")]
pub struct PatchBody {
    /// On or off.
    enabled: bool,
}

/// `PATCH /api/tasks/{id}/schedules/{schedule}` `{"enabled"}`: switched on, it fires from
/// now on (a once schedule whose moment passed: 400).
pub async fn patch(
    State(app): State<AppState>,
    Path((id, schedule)): Path<(String, String)>,
    JsonBody(body): JsonBody<PatchBody>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let old = owned(console, &id, &schedule).await?;
    let next = if body.enabled {
        let spec =
            ScheduleSpec::parse(&old.kind).map_err(|e| TaskError::at(e.input(), e.to_string()))?;
        Some(
            spec.first_fire(now_ms())
                .map_err(|e| TaskError::at(e.input(), e.to_string()))?,
        )
    } else {
        None
    };
    let s = console
        .store()
        .set_schedule_enabled(&old.id, body.enabled, next)
        .await?;
    console.tasks().schedules_changed();
    Ok(Json(ScheduleView::from(&s)).into_response())
}

/// `DELETE /api/tasks/{id}/schedules/{schedule}`: 204.
pub async fn delete(
    State(app): State<AppState>,
    Path((id, schedule)): Path<(String, String)>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let s = owned(console, &id, &schedule).await?;
    console.store().delete_schedule(&s.id).await?;
    console.tasks().schedules_changed();
    Ok(StatusCode::NO_CONTENT.into_response())
}
