//! `GET /api/devices/{id}/live`: the device's screen as MJPEG (`multipart/x-mixed-replace`).
//!
//! One capture task per device, shared by every watcher, started by the first watcher and ended
//! at the first tick with none left — a device nobody watches costs nothing. Frames come from
//! the device's own `capture_desktop_screenshot` tool, through its dispatcher, so local,
//! browser and remote devices all work the same way ([`deft_app::screen`]); a device another
//! server of the fleet holds is captured by that server, a fleet job a frame.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use deft_app::App;
use deft_tools::{Device, Devices};
use futures::future::BoxFuture;
use tokio::sync::watch;

use super::texts;
use crate::AppState;
use crate::api::ApiError;

/// The multipart boundary.
pub const BOUNDARY: &str = "frame";
/// Widest frame sent.
pub const MAX_WIDTH: u32 = deft_app::screen::MAX_WIDTH;

type Frame = Option<Bytes>;

/// The capture tasks, one per watched device.
pub struct LiveFeeds {
    interval: Duration,
    feeds: Arc<Mutex<HashMap<String, watch::Sender<Frame>>>>,
}

impl LiveFeeds {
    /// Feeds that capture every `interval`.
    pub fn new(interval: Duration) -> Self {
        LiveFeeds {
            interval,
            feeds: Arc::default(),
        }
    }

    /// A receiver of `source`'s frames, starting its capture task when none runs.
    pub fn watch(&self, source: Source) -> watch::Receiver<Frame> {
        let mut feeds = self.feeds.lock();
        if let Some(tx) = feeds.get(source.id()) {
            return tx.subscribe();
        }
        let (tx, rx) = watch::channel(None);
        feeds.insert(source.id().to_owned(), tx.clone());
        tokio::spawn(capture_loop(source, tx, self.feeds.clone(), self.interval));
        rx
    }

    /// Devices being captured now.
    pub fn active(&self) -> Vec<String> {
        let mut v: Vec<String> = self.feeds.lock().keys().cloned().collect();
        v.sort();
        v
    }
}

/// Where a live view's frames come from.
pub enum Source {
    /// A device connected here.
    Here(Device),
    /// A device another server of the fleet holds (its id), captured by that server.
    Elsewhere {
        /// The device.
        id: String,
        /// This server's application core, which asks the holder.
        app: App,
        /// This server's devices.
        devices: Arc<dyn Devices>,
    },
}

impl Source {
    fn id(&self) -> &str {
        match self {
            Source::Here(device) => &device.id,
            Source::Elsewhere { id, .. } => id,
        }
    }

    /// One frame.
    fn capture(&self) -> BoxFuture<'_, Result<Bytes, String>> {
        Box::pin(async move {
            let jpeg = match self {
                Source::Here(device) => deft_app::screen::capture(device).await?,
                Source::Elsewhere { id, app, devices } => {
                    app.capture_screen(devices.as_ref(), id).await?
                }
            };
            Ok(Bytes::from(jpeg))
        })
    }
}

async fn capture_loop(
    source: Source,
    tx: watch::Sender<Frame>,
    feeds: Arc<Mutex<HashMap<String, watch::Sender<Frame>>>>,
    interval: Duration,
) {
    let mut failures = 0u32;
    // Frames start on a fixed grid (the timer's overshoot does not add up), or at once when
    // the previous frame ran past its slot.
    let mut next = tokio::time::Instant::now();
    loop {
        {
            // Decided under the map's lock, so a watcher arriving now either gets this
            // sender (still in the map) or starts a new task.
            let mut map = feeds.lock();
            if tx.receiver_count() == 0 {
                map.remove(source.id());
                tracing::debug!(device = %source.id(), "live view: nobody watches, capture stops");
                return;
            }
        }
        match source.capture().await {
            Ok(jpeg) => {
                failures = 0;
                tx.send_replace(Some(jpeg));
            }
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(30) {
                    tracing::warn!(device = %source.id(), error = %e, "live view: capture failed");
                }
            }
        }
        let pause = if failures > 0 {
            interval * failures.min(10)
        } else {
            interval
        };
        next = (next + pause).max(tokio::time::Instant::now());
        tokio::time::sleep_until(next).await;
    }
}

/// The live view's source for `id` when another server of the fleet holds it (as that server
/// lists it: with a screen); 404 naming the devices otherwise.
async fn fleet_source(app: &AppState, id: &str) -> Result<Source, ApiError> {
    let console = app.console()?;
    let elsewhere = console.app().devices_elsewhere().await?;
    let listed = app
        .registry
        .fleet_details(elsewhere)
        .into_iter()
        .find(|d| d.id == id);
    match listed {
        Some(d) if !d.has_screen => Err(ApiError(
            StatusCode::CONFLICT,
            texts::no_screen(id, &d.profile),
        )),
        Some(_) => Ok(Source::Elsewhere {
            id: id.to_owned(),
            app: console.app().clone(),
            devices: Arc::new(app.registry.clone()),
        }),
        None => {
            let known: Vec<String> = app.registry.list().into_iter().map(|d| d.id).collect();
            Err(ApiError(
                StatusCode::NOT_FOUND,
                crate::texts::unknown_device(id, &known),
            ))
        }
    }
}

/// Whether a profile has a screen to show.
pub fn has_screen(profile: &str) -> bool {
    !matches!(profile, "shell")
}

fn part(jpeg: &Bytes) -> Bytes {
    let mut out = format!(
        "--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
        jpeg.len()
    )
    .into_bytes();
    out.extend_from_slice(jpeg);
    out.extend_from_slice(b"\r\n");
    Bytes::from(out)
}

/// `GET /api/devices/{id}/live`.
pub async fn serve(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let source = match app.registry.get(&id) {
        Some(device) => {
            if !has_screen(&device.profile) {
                return Err(ApiError(
                    StatusCode::CONFLICT,
                    texts::no_screen(&id, &device.profile),
                ));
            }
            Source::Here(device)
        }
        None => fleet_source(&app, &id).await?,
    };
    let rx = console.inner.live.watch(source);
    let stopping = app.stopping.clone();
    let frames = futures::stream::unfold((rx, true), |(mut rx, first)| async move {
        if !first && rx.changed().await.is_err() {
            return None;
        }
        loop {
            let frame = rx.borrow_and_update().clone();
            match frame {
                Some(jpeg) => {
                    return Some((Ok::<_, std::convert::Infallible>(part(&jpeg)), (rx, false)));
                }
                None => {
                    if rx.changed().await.is_err() {
                        return None;
                    }
                }
            }
        }
    });
    Ok((
        [
            (
                header::CONTENT_TYPE,
                format!("multipart/x-mixed-replace; boundary={BOUNDARY}"),
            ),
            (header::CACHE_CONTROL, "no-cache, no-store".to_owned()),
        ],
        Body::from_stream(futures::StreamExt::take_until(
            frames,
            stopping.cancelled_owned(),
        )),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_framed() {
        let p = part(&Bytes::from_static(b"JPEG"));
        assert_eq!(
            &p[..],
            b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 4\r\n\r\nJPEG\r\n"
        );
        assert!(has_screen("desktop") && has_screen("browser") && !has_screen("shell"));
    }
}
