//! `GET /api/devices/{id}/live`: the device's screen as MJPEG (`multipart/x-mixed-replace`).
//!
//! One capture task per device, shared by every watcher, started by the first watcher and ended
//! at the first tick with none left — a device nobody watches costs nothing. Frames come from
//! the device's own `capture_desktop_screenshot` tool, through its dispatcher, so local,
//! browser and remote devices all work the same way.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use deft_protocol::{Command, ToolType};
use deft_tools::{Device, Devices, ExecContext};
use tokio::sync::watch;

use super::texts;
use crate::AppState;
use crate::api::ApiError;

/// The multipart boundary.
pub const BOUNDARY: &str = "frame";
/// Widest frame sent.
pub const MAX_WIDTH: u32 = 1280;
const JPEG_QUALITY: u8 = 70;
const CAPTURE_TOOL: &str = "capture_desktop_screenshot";

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

    /// A receiver of `device`'s frames, starting its capture task when none runs.
    pub fn watch(&self, device: Device) -> watch::Receiver<Frame> {
        let mut feeds = self.feeds.lock();
        if let Some(tx) = feeds.get(&device.id) {
            return tx.subscribe();
        }
        let (tx, rx) = watch::channel(None);
        feeds.insert(device.id.clone(), tx.clone());
        tokio::spawn(capture_loop(device, tx, self.feeds.clone(), self.interval));
        rx
    }

    /// Devices being captured now.
    pub fn active(&self) -> Vec<String> {
        let mut v: Vec<String> = self.feeds.lock().keys().cloned().collect();
        v.sort();
        v
    }
}

async fn capture_loop(
    device: Device,
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
                map.remove(&device.id);
                tracing::debug!(device = %device.id, "live view: nobody watches, capture stops");
                return;
            }
        }
        match capture(&device).await {
            Ok(jpeg) => {
                failures = 0;
                tx.send_replace(Some(jpeg));
            }
            Err(e) => {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(30) {
                    tracing::warn!(device = %device.id, error = %e, "live view: capture failed");
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

/// One screenshot of `device` as JPEG.
pub async fn capture(device: &Device) -> Result<Bytes, String> {
    let mut ctx = ExecContext::new(&device.id, &device.profile);
    ctx.deadline = Duration::from_secs(10);
    let cmd = Command::new(
        CAPTURE_TOOL,
        Some(ToolType::DataCollection),
        serde_json::json!({}),
    );
    let result = device
        .dispatcher
        .execute(&ctx, vec![cmd])
        .await
        .pop()
        .ok_or("no result")?;
    if !result.is_success() {
        return Err(result.error.unwrap_or_else(|| "capture failed".to_owned()));
    }
    let uri = result
        .images
        .first()
        .ok_or("the screenshot tool returned no image")?;
    let (_, bytes) = deft_agent::decode_data_uri(uri).ok_or("not a data URI")?;
    let (jpeg, _, _) = tokio::task::spawn_blocking(move || {
        deft_agent::downscale_to_jpeg(&bytes, MAX_WIDTH, JPEG_QUALITY)
    })
    .await
    .map_err(|e| e.to_string())??;
    Ok(Bytes::from(jpeg))
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
    let device = app.registry.get(&id).ok_or_else(|| {
        let known: Vec<String> = app.registry.list().into_iter().map(|d| d.id).collect();
        ApiError(
            StatusCode::NOT_FOUND,
            crate::texts::unknown_device(&id, &known),
        )
    })?;
    if !has_screen(&device.profile) {
        return Err(ApiError(
            StatusCode::CONFLICT,
            texts::no_screen(&id, &device.profile),
        ));
    }
    let rx = console.inner.live.watch(device);
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
