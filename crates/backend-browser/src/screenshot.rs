//! Viewport screenshots, optionally annotated with the ids of the visible interactive controls
//! (an overlay drawn in the page for the capture, then removed).

use deft_protocol::observation::ListingOptions;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;

use crate::browser::{Browser, BrowserError};
use crate::texts;

/// Captures the tab's viewport as PNG image content plus a text naming what was captured.
pub(crate) async fn capture(
    b: &Browser,
    window: u64,
    page: &str,
    annotated: bool,
    desktop: bool,
) -> Result<CallToolResult, BrowserError> {
    let size = b
        .eval(page, "[window.innerWidth, window.innerHeight]")
        .await?;
    let (w, h) = (size[0].as_i64().unwrap_or(0), size[1].as_i64().unwrap_or(0));
    let mut drawn = 0usize;
    if annotated {
        let listing = b.list(&ListingOptions::default(), false).await?;
        let boxes: Vec<_> = listing
            .controls
            .iter()
            .filter(|c| c.interactive)
            .filter_map(|c| {
                let [l, t, r, btm] = c.rect?;
                (r > 0 && btm > 0 && l < w as i32 && t < h as i32 && r > l && btm > t)
                    .then(|| json!([c.id, l, t, r, btm]))
            })
            .collect();
        drawn = boxes.len();
        b.eval(
            page,
            &format!(
                "(() => {{ const o = document.createElement('div'); o.id = '__deft_overlay';
                  o.style.cssText = 'position:fixed;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none';
                  for (const [id, l, t, r, b] of {boxes}) {{
                    const d = document.createElement('div');
                    d.style.cssText = `position:fixed;left:${{l}}px;top:${{t}}px;width:${{r - l}}px;height:${{b - t}}px;outline:2px solid #e0218a;box-sizing:border-box`;
                    const s = document.createElement('span'); s.textContent = id;
                    s.style.cssText = 'position:absolute;left:0;top:0;background:#e0218a;color:#fff;font:bold 11px monospace;padding:0 2px;line-height:13px';
                    d.appendChild(s); o.appendChild(d);
                  }}
                  document.documentElement.appendChild(o); return true; }})()",
                boxes = serde_json::Value::Array(boxes)
            ),
        )
        .await?;
    }
    let shot = b
        .cdp()
        .call(
            Some(page),
            "Page.captureScreenshot",
            json!({"format": "png", "optimizeForSpeed": true}),
        )
        .await;
    if annotated {
        let _ = b
            .eval(
                page,
                "(() => { const o = document.getElementById('__deft_overlay'); if (o) o.remove(); return true; })()",
            )
            .await;
    }
    let shot = shot?;
    let data = shot["data"].as_str().unwrap_or_default().to_owned();
    if data.len() < 16 || w <= 1 || h <= 1 {
        return Err(BrowserError::Model(texts::browser_failed(
            "the screenshot came back empty",
        )));
    }
    let mut text = if desktop {
        format!("desktop rect=[0,0,{w},{h}]")
    } else {
        format!("window {window} rect=[0,0,{w},{h}]")
    };
    if annotated {
        text.push_str(&format!(" annotated={drawn}"));
    }
    Ok(CallToolResult::success(vec![
        ContentBlock::text(text),
        ContentBlock::image(data, "image/png"),
    ]))
}
