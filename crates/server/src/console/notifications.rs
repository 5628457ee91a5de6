//! `GET /api/notifications`, `POST /api/notifications/{id}/read`,
//! `POST /api/notifications/read-all` and `GET /api/notifications/stream`: the bell's list,
//! each reader's own read state, and the live feed (SSE: the unread count at once, then each new
//! notification with the count after it). A reader is the logged-in person (nothing from before
//! their account is unread for them) or the API token.

use std::convert::Infallible;

use axum::Json;
use axum::body::Body;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use deft_store::{Notification, Page, Reader, Store};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::sessions::Principal;
use super::{Console, rfc3339, texts};
use crate::AppState;
use crate::api::ApiError;

/// A page holds at most this many notifications.
pub const MAX_LIMIT: u32 = 200;

/// The reader key of the API token (usernames are keyed `user:<name>`, so none collides).
const API_TOKEN_READER: &str = "token:api";

/// A notification as the API shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Notification"))]
#[schemars(rename = "Notification")]
pub struct NotificationView {
    /// Notification id.
    pub id: String,
    /// What it is about (`task_run_failed`, `notify_step`, …).
    #[cfg_attr(test, ts(type = "string"))]
    pub kind: String,
    /// `info`, `warning` or `error`.
    #[cfg_attr(test, ts(type = "\"info\" | \"warning\" | \"error\""))]
    pub level: String,
    /// One line, plain text.
    pub title: String,
    /// The details, plain text.
    pub body: String,
    /// The console route of its subject.
    pub link: String,
    /// The task it is about.
    pub task_id: Option<String>,
    /// The run it is about.
    pub run_id: Option<String>,
    /// The conversation it is about.
    pub conversation_id: Option<String>,
    /// The device it is about.
    pub device: Option<String>,
    /// Made (ISO-8601 UTC).
    pub created_at: String,
    /// Whether this reader has read it.
    pub read: bool,
}

impl From<Notification> for NotificationView {
    fn from(n: Notification) -> Self {
        NotificationView {
            id: n.id,
            kind: n.kind.as_str().to_owned(),
            level: n.level.as_str().to_owned(),
            title: n.title,
            body: n.body,
            link: n.link,
            task_id: n.task_id,
            run_id: n.run_id,
            conversation_id: n.conversation_id,
            device: n.device,
            created_at: rfc3339(n.created_at_ms),
            read: n.read,
        }
    }
}

/// `GET /api/notifications`' answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "NotificationList"))]
#[schemars(rename = "NotificationList")]
pub struct NotificationList {
    /// The page, newest first.
    pub items: Vec<NotificationView>,
    /// How many the list (with the `unread` filter) holds.
    pub total: u64,
    /// How many this reader has not read.
    pub unread_count: u64,
}

/// `GET /api/notifications` query; every value is read here, so a bad one is a 400 at its name.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct ListQuery {
    #[serde(default)]
    unread: Option<String>,
    #[serde(default)]
    limit: Option<String>,
    #[serde(default)]
    offset: Option<String>,
}

/// The reader `principal` is.
async fn reader(console: &Console, principal: &Principal) -> Result<Reader, ApiError> {
    match principal {
        Principal::ApiToken => Ok(Reader {
            key: API_TOKEN_READER.to_owned(),
            since_ms: 0,
        }),
        Principal::Token(t) => Ok(Reader {
            key: format!("token:{}", t.id),
            since_ms: t.created_at_ms,
        }),
        Principal::User { username, .. } => {
            let since_ms = console
                .store()
                .user(username)
                .await?
                .map_or(0, |u| u.created_at_ms);
            Ok(Reader {
                key: format!("user:{username}"),
                since_ms,
            })
        }
    }
}

fn bad(param: &str, given: &str, takes: &str) -> ApiError {
    ApiError(
        StatusCode::BAD_REQUEST,
        texts::bad_notification_param(param, given, takes),
    )
}

impl ListQuery {
    fn read(&self) -> Result<(bool, Page), ApiError> {
        let unread = match self.unread.as_deref().map(str::trim) {
            None | Some("" | "0" | "false") => false,
            Some("1" | "true") => true,
            Some(other) => return Err(bad("unread", other, "1 or 0")),
        };
        let takes = format!("a whole number from 1 to {MAX_LIMIT}");
        let limit = match self.limit.as_deref().map(str::trim) {
            None | Some("") => 50,
            Some(text) => text
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_LIMIT).contains(n))
                .ok_or_else(|| bad("limit", text, &takes))?,
        };
        let offset = match self.offset.as_deref().map(str::trim) {
            None | Some("") => 0,
            Some(text) => text
                .parse::<u64>()
                .map_err(|_| bad("offset", text, "a whole number, 0 or more"))?,
        };
        Ok((unread, Page { limit, offset }))
    }
}

/// `GET /api/notifications?unread=1&limit=&offset=`: newest first, with the unread count.
pub async fn list(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
    Query(q): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let (unread, page) = q.read()?;
    let reader = reader(console, &principal).await?;
    let got = console.store().notifications(&reader, unread, page).await?;
    Ok(Json(NotificationList {
        items: got.items.into_iter().map(NotificationView::from).collect(),
        total: got.total,
        unread_count: got.unread_count,
    })
    .into_response())
}

/// `POST /api/notifications/{id}/read`: `{"unread_count"}` after it; 404 for an unknown id.
pub async fn read_one(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let reader = reader(console, &principal).await?;
    let store = console.store();
    match store.mark_notification_read(&reader, &id).await {
        Ok(()) => {}
        Err(deft_store::StoreError::NotFound(_)) => {
            return Err(ApiError(
                StatusCode::NOT_FOUND,
                texts::unknown_notification(&id),
            ));
        }
        Err(e) => return Err(e.into()),
    }
    unread_answer(store, &reader).await
}

/// `POST /api/notifications/read-all`: every notification read for this reader;
/// `{"unread_count": 0}`.
pub async fn read_all(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let reader = reader(console, &principal).await?;
    console.store().mark_all_notifications_read(&reader).await?;
    unread_answer(console.store(), &reader).await
}

async fn unread_answer(store: &Store, reader: &Reader) -> Result<Response, ApiError> {
    let unread_count = store.unread_notifications(reader).await?;
    Ok(Json(UnreadCount { unread_count }).into_response())
}

/// How many notifications the caller has not read (the answer of the read routes, and the
/// stream's `unread` event).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct UnreadCount {
    /// Unread notifications.
    pub unread_count: u64,
}

/// The stream's `notification` event: the new one and the unread count after it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NotificationArrived {
    /// The new notification.
    pub notification: NotificationView,
    /// Unread notifications now (`null` when the count could not be read).
    pub unread_count: Option<u64>,
}

/// `GET /api/notifications/stream`: SSE — `unread` (`{"unread_count"}`) at once and whenever
/// the feed lost track, then `notification` (`{"notification", "unread_count"}`) for each new
/// one, until the server stops.
pub async fn stream(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let reader = reader(console, &principal).await?;
    let store = console.store().clone();
    let feed = console.app().notifier().subscribe();
    let first = unread_frame(&store, &reader).await?;
    let frames = futures::stream::once(async move { first })
        .chain(feed_frames(store, reader, feed))
        .take_until(cancelled(app.stopping.clone()));
    let body = super::stream::keep_alive(frames.boxed(), super::stream::KEEP_ALIVE);
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache, no-store"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(body.map(Ok::<_, Infallible>)),
    )
        .into_response())
}

async fn cancelled(token: CancellationToken) {
    token.cancelled().await;
}

/// One SSE frame.
fn frame(kind: &str, data: &impl Serialize) -> Bytes {
    let data = serde_json::to_string(data).unwrap_or_default();
    Bytes::from(format!("event: {kind}\ndata: {data}\n\n"))
}

async fn unread_frame(store: &Store, reader: &Reader) -> Result<Bytes, ApiError> {
    let unread_count = store.unread_notifications(reader).await?;
    Ok(frame("unread", &UnreadCount { unread_count }))
}

/// The frames of the notifications that arrive on `feed`.
fn feed_frames(
    store: Store,
    reader: Reader,
    feed: broadcast::Receiver<Notification>,
) -> impl futures::Stream<Item = Bytes> + Send + 'static {
    futures::stream::unfold(
        (store, reader, feed),
        |(store, reader, mut feed)| async move {
            let next = loop {
                match feed.recv().await {
                    Ok(n) => {
                        let count = store.unread_notifications(&reader).await.ok();
                        let data = NotificationArrived {
                            notification: NotificationView::from(n),
                            unread_count: count,
                        };
                        break frame("notification", &data);
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        if let Ok(f) = unread_frame(&store, &reader).await {
                            break f;
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            };
            Some((next, (store, reader, feed)))
        },
    )
}
