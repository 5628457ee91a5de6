//! Navigating a tab (an address, its history, a reload) and the navigations the URL policy
//! refused; calls that a dialog can hold back.

use std::time::Duration;

use serde_json::{Value, json};

use super::state::BlockedNavigation;
use super::{Browser, BrowserError, Result};
use crate::cdp::{CdpError, CdpEvent};
use crate::texts;

/// The longest a navigation waits for its load event.
pub const LOAD_CAP: Duration = Duration::from_secs(20);

impl Browser {
    /// Navigates the selected tab to `url` (policy-checked); waits for load and settle.
    pub(crate) async fn navigate(&self, url: &str) -> Result<u64> {
        self.inner.policy.check(url)?;
        let (id, session) = self.current_or_only().await?;
        self.ensure_no_dialog(id)?;
        let mut events = self.cdp().events();
        let Some(answer) = self
            .call_or_dialog(&session, "Page.navigate", json!({"url": url}))
            .await?
        else {
            return Ok(0);
        };
        if let Some(err) = answer["errorText"].as_str().filter(|e| !e.is_empty()) {
            // Chromium still commits its error page; let it finish before the next call.
            let _ =
                tokio::time::timeout(Duration::from_secs(5), wait_for_load(&mut events, &session))
                    .await;
            // A redirect the URL policy refused (recorded before the request was failed).
            if let Some(refused) = self.take_blocked(id).pop() {
                return Err(BrowserError::model(texts::navigation_redirect_blocked(
                    url,
                    &refused.url,
                    &refused.reason,
                )));
            }
            return Err(BrowserError::model(texts::navigation_failed(url, err)));
        }
        // A same-document navigation (#fragment) has no load event.
        if answer.get("loaderId").is_some() && wait_for_load(&mut events, &session).await {
            self.dialog_recorded().await;
            return Ok(0);
        }
        let ms = self.settle(&session).await;
        Ok(ms)
    }

    /// Goes one entry back (`delta` -1) or forward (+1) in the tab's history.
    pub(crate) async fn history(&self, delta: i64) -> Result<u64> {
        let (id, session) = self.current()?;
        self.ensure_no_dialog(id)?;
        let h = self
            .cdp()
            .call(Some(&session), "Page.getNavigationHistory", json!({}))
            .await?;
        let index = h["currentIndex"].as_i64().unwrap_or(0) + delta;
        let entries = h["entries"].as_array().cloned().unwrap_or_default();
        let Some(entry) = usize::try_from(index).ok().and_then(|i| entries.get(i)) else {
            return Err(BrowserError::model(texts::no_history(if delta < 0 {
                "back"
            } else {
                "forward"
            })));
        };
        if let Some(u) = entry["url"].as_str() {
            self.inner.policy.check(u)?;
        }
        let params = json!({"entryId": entry["id"]});
        self.load_and_settle(&session, "Page.navigateToHistoryEntry", params)
            .await
    }

    /// Reloads the selected tab.
    pub(crate) async fn reload(&self) -> Result<u64> {
        let (id, session) = self.current()?;
        self.ensure_no_dialog(id)?;
        self.load_and_settle(&session, "Page.reload", json!({}))
            .await
    }

    /// Calls `method` on page session `session`, waits for the load it starts, then settles;
    /// returns the settle milliseconds, 0 when a dialog opened first or instead.
    async fn load_and_settle(&self, session: &str, method: &str, params: Value) -> Result<u64> {
        let mut events = self.cdp().events();
        if self
            .call_or_dialog(session, method, params)
            .await?
            .is_none()
            || wait_for_load(&mut events, session).await
        {
            self.dialog_recorded().await;
            return Ok(0);
        }
        Ok(self.settle(session).await)
    }

    /// Calls `method`; `None` when a dialog (e.g. `beforeunload`) opened first and holds the
    /// answer back until it is handled.
    pub(super) async fn call_or_dialog(
        &self,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Option<Value>> {
        let mut events = self.cdp().events();
        // A dialog recorded before this call (opened between tool calls) blocks it already.
        if self.dialog_on_session(session) {
            return Ok(None);
        }
        let rx = self.cdp().send(Some(session), method, params)?;
        let dialog = crate::cdp::dialog_opening(&mut events);
        tokio::select! {
            r = rx => match r {
                Ok(answer) => Ok(Some(answer?)),
                Err(_) => Err(BrowserError::Cdp(CdpError::Closed)),
            },
            () = dialog => {
                self.dialog_recorded().await;
                Ok(None)
            }
            () = tokio::time::sleep(crate::cdp::CALL_LIMIT) => Err(BrowserError::Cdp(CdpError::Timeout {
                method: method.to_owned(),
                secs: crate::cdp::CALL_LIMIT.as_secs(),
            })),
        }
    }

    /// The navigations the URL policy refused in `window` since this was last asked.
    pub(crate) fn take_blocked(&self, window: u64) -> Vec<BlockedNavigation> {
        self.state().take_blocked(window)
    }
}

/// Waits (bounded) for the load event of `session`'s page; `true` when a dialog opened instead.
pub(super) async fn wait_for_load(
    events: &mut tokio::sync::broadcast::Receiver<CdpEvent>,
    session: &str,
) -> bool {
    tokio::time::timeout(LOAD_CAP, async {
        loop {
            match events.recv().await {
                Ok(e) if e.method == "Page.javascriptDialogOpening" => return true,
                Ok(e)
                    if e.session.as_deref() == Some(session)
                        && (e.method == "Page.loadEventFired"
                            || e.method == "Page.navigatedWithinDocument"
                            || (e.method == "Page.frameNavigated"
                                && e.params["type"] == "BackForwardCacheRestore")) =>
                {
                    return false;
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false)
}
