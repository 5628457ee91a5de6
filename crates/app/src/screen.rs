//! One screenshot of a device as a JPEG, for live views: taken with the device's own
//! `capture_desktop_screenshot` tool through its dispatcher (so local, browser, remote and
//! phone devices work alike) and scaled down; a device another server of the fleet holds is
//! captured there ([`App::capture_screen`]).

use std::time::Duration;

use deft_protocol::{Command, ToolType};
use deft_tools::{Device, Devices, ExecContext};

use crate::app::App;
use crate::texts;

/// Widest frame sent.
pub const MAX_WIDTH: u32 = 1280;
/// The frames' JPEG quality.
const JPEG_QUALITY: u8 = 70;
const CAPTURE_TOOL: &str = "capture_desktop_screenshot";

/// One screenshot of `device` as JPEG.
pub async fn capture(device: &Device) -> Result<Vec<u8>, String> {
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
    Ok(jpeg)
}

impl App {
    /// One screenshot of `device` of `devices` as JPEG — or, for a device another server of
    /// the fleet holds, taken by that server (a fleet job a frame).
    pub async fn capture_screen(
        &self,
        devices: &dyn Devices,
        device: &str,
    ) -> Result<Vec<u8>, String> {
        if let Some(found) = devices.get(device) {
            return capture(&found).await;
        }
        match self.holder_elsewhere(device).await {
            Ok(Some(_)) => self.capture_elsewhere(device).await,
            Ok(None) => Err(texts::device_not_connected(device, &[])),
            Err(e) => Err(e.to_string()),
        }
    }
}
