//! The browser's clipboard, reached through a page of its own: a blank page in a browser
//! context of its own (the tab list leaves it out), with focus emulated, so that the editing
//! commands work there headless whatever the tabs show — an insecure page, a dialog, no tab at
//! all — and no tab sees a key, a selection or a DOM change. Setting copies through a `copy`
//! event whose data is the text; reading pastes (Ctrl+V with the `paste` command) into a
//! `paste` event that keeps the data and inserts nothing. The browser keeps one clipboard for
//! all its pages, so a tab's `^v` pastes what was set here and a tab's `^c` is read here.

use serde_json::{Value, json};

use super::{Browser, BrowserError, Result};
use crate::texts;

/// The clipboard's page: its browser context, target and session.
#[derive(Debug, Clone)]
pub(crate) struct ClipboardPage {
    context: String,
    target: String,
    session: String,
}

/// The clipboard page of a browser, made on first use (and again after it died); its lock
/// also keeps clipboard calls one at a time.
#[derive(Debug, Default)]
pub(crate) struct ClipboardSlot {
    page: tokio::sync::Mutex<Option<ClipboardPage>>,
    /// The page's browser context, for the tab list to leave out.
    context: parking_lot::Mutex<Option<String>>,
}

/// What a read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClipboardRead {
    /// The clipboard's text.
    Text(String),
    /// Nothing was copied.
    Empty,
    /// Something that is not text; the types it has.
    NotText(Vec<String>),
}

/// What runs on the clipboard page.
enum Op {
    /// Evaluate this expression.
    Eval(String),
    /// Paste and take what the page's `paste` event kept.
    Paste,
}

/// Copies `text` through a `copy` event of the clipboard page.
const SET_JS: &str = r"(text) => {
  let set = false;
  const copy = (e) => {
    e.stopImmediatePropagation();
    e.preventDefault();
    e.clipboardData.setData('text/plain', text);
    set = true;
  };
  window.addEventListener('copy', copy, {capture: true});
  try { document.execCommand('copy'); } finally { window.removeEventListener('copy', copy, {capture: true}); }
  return set;
}";

/// Arms a `paste` event that keeps what is pasted in `window.__deftPasted`.
const ARM_PASTE_JS: &str = r"(() => {
  window.__deftPasted = null;
  window.__deftPaste = (e) => {
    e.stopImmediatePropagation();
    e.preventDefault();
    const types = Array.from(e.clipboardData.types);
    window.__deftPasted = {types, text: types.includes('text/plain') ? e.clipboardData.getData('text/plain') : null};
  };
  window.addEventListener('paste', window.__deftPaste, {capture: true, once: true});
  return true;
})()";

/// Disarms the `paste` event and answers what it kept.
const TAKE_PASTE_JS: &str = r"(() => {
  window.removeEventListener('paste', window.__deftPaste, {capture: true});
  return window.__deftPasted;
})()";

impl Browser {
    /// Puts `text` on the browser's clipboard.
    pub(crate) async fn set_clipboard(&self, text: &str) -> Result<()> {
        let call = format!("({SET_JS})({})", Value::String(text.to_owned()));
        let done = self.on_clipboard_page(&Op::Eval(call)).await?;
        if done == Value::Bool(true) {
            Ok(())
        } else {
            Err(BrowserError::model(texts::CLIPBOARD_NOT_SET))
        }
    }

    /// Reads the browser's clipboard.
    pub(crate) async fn read_clipboard(&self) -> Result<ClipboardRead> {
        let pasted = self.on_clipboard_page(&Op::Paste).await?;
        if pasted.is_null() {
            return Err(BrowserError::model(texts::CLIPBOARD_NOT_READ));
        }
        let types: Vec<String> = pasted["types"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect();
        Ok(match pasted["text"].as_str() {
            Some(text) => ClipboardRead::Text(text.to_owned()),
            None if types.is_empty() => ClipboardRead::Empty,
            None => ClipboardRead::NotText(types),
        })
    }

    /// Whether `context` is the clipboard page's browser context (not a tab's).
    pub(crate) fn is_clipboard_context(&self, context: &str) -> bool {
        self.inner.clipboard.context.lock().as_deref() == Some(context)
    }

    /// Runs `op` on the clipboard page, made when there is none; when the call fails on a
    /// page that existed, the page is made again and `op` runs once more (it was closed or
    /// crashed).
    async fn on_clipboard_page(&self, op: &Op) -> Result<Value> {
        let mut slot = self.inner.clipboard.page.lock().await;
        let had = slot.is_some();
        let page = match slot.clone() {
            Some(p) => p,
            None => self.open_clipboard_page(&mut slot).await?,
        };
        match self.run_op(&page, op).await {
            Err(BrowserError::Cdp(e)) if had => {
                tracing::debug!("the clipboard page failed ({e}); making it again");
                self.drop_clipboard_page(&mut slot).await;
                let page = self.open_clipboard_page(&mut slot).await?;
                self.run_op(&page, op).await
            }
            other => other,
        }
    }

    async fn run_op(&self, page: &ClipboardPage, op: &Op) -> Result<Value> {
        match op {
            Op::Eval(expression) => self.page_eval(page, expression).await,
            Op::Paste => self.paste_into(page).await,
        }
    }

    async fn open_clipboard_page(&self, slot: &mut Option<ClipboardPage>) -> Result<ClipboardPage> {
        let cdp = self.cdp();
        let context = cdp
            .call(
                None,
                "Target.createBrowserContext",
                json!({"disposeOnDetach": true}),
            )
            .await?["browserContextId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        *self.inner.clipboard.context.lock() = Some(context.clone());
        let target = cdp
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": context, "background": true}),
            )
            .await?["targetId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let session = cdp
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await?["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        // A page without focus may not copy or paste.
        cdp.call(
            Some(&session),
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        )
        .await?;
        let page = ClipboardPage {
            context,
            target,
            session,
        };
        *slot = Some(page.clone());
        Ok(page)
    }

    async fn drop_clipboard_page(&self, slot: &mut Option<ClipboardPage>) {
        if let Some(p) = slot.take() {
            let cdp = self.cdp();
            let _ = cdp
                .call(None, "Target.closeTarget", json!({"targetId": p.target}))
                .await;
            let _ = cdp
                .call(
                    None,
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": p.context}),
                )
                .await;
        }
    }

    /// Evaluates `expression` on the clipboard page, as if a person acted (user gesture).
    async fn page_eval(&self, page: &ClipboardPage, expression: &str) -> Result<Value> {
        let r = self
            .cdp()
            .call(
                Some(&page.session),
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "userGesture": true}),
            )
            .await?;
        if let Some(ex) = r.get("exceptionDetails") {
            let why = ex["exception"]["description"]
                .as_str()
                .or_else(|| ex["text"].as_str())
                .unwrap_or("script error");
            return Err(BrowserError::model(texts::browser_failed(why)));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Pastes into the clipboard page's armed `paste` event and takes what it kept.
    async fn paste_into(&self, page: &ClipboardPage) -> Result<Value> {
        self.page_eval(page, ARM_PASTE_JS).await?;
        for kind in ["keyDown", "keyUp"] {
            let mut key = json!({
                "type": kind, "modifiers": 2, "key": "v", "code": "KeyV",
                "windowsVirtualKeyCode": 86,
            });
            if kind == "keyDown" {
                key["commands"] = json!(["paste"]);
            }
            self.cdp()
                .call(Some(&page.session), "Input.dispatchKeyEvent", key)
                .await?;
        }
        self.page_eval(page, TAKE_PASTE_JS).await
    }
}
