//! JavaScript dialogs: which tab one blocks, answering one, waiting until one is recorded.

use std::time::Duration;

use serde_json::Value;

use super::navigation::wait_for_load;
use super::state::Dialog;
use super::{Browser, BrowserError, Result};
use crate::texts;

impl Browser {
    /// The open dialog of window `id`.
    pub(crate) fn dialog(&self, id: u64) -> Option<Dialog> {
        self.state().dialog_of_window(id)
    }

    /// Whether a dialog is open on the tab of CDP session `session` (a page or a frame).
    pub(super) fn dialog_on_session(&self, session: &str) -> bool {
        let st = self.state();
        st.window_of_session(session)
            .is_some_and(|w| st.dialog_of_window(w).is_some())
    }

    /// Fails with the dialog text when a dialog blocks window `id`.
    pub(crate) fn ensure_no_dialog(&self, id: u64) -> Result<()> {
        match self.dialog(id) {
            Some(d) => Err(BrowserError::model(texts::dialog_open(&d.kind, &d.message))),
            None => Ok(()),
        }
    }

    /// Waits (briefly) until the event loop has recorded a dialog whose opening was seen.
    pub(crate) async fn dialog_recorded(&self) {
        for _ in 0..250 {
            if !self.state().dialogs.is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Answers dialog `d` and settles; an accepted `beforeunload` lets the navigation it held
    /// back go on, so its load is awaited first. Returns the settle milliseconds.
    pub(crate) async fn answer_dialog(&self, d: &Dialog, page: &str, params: Value) -> Result<u64> {
        let leaving = d.kind == "beforeunload" && params["accept"] == true;
        let mut events = self.cdp().events();
        self.cdp()
            .call(Some(d.session()), "Page.handleJavaScriptDialog", params)
            .await?;
        self.state().dialogs.remove(d.session());
        if leaving && wait_for_load(&mut events, page).await {
            self.dialog_recorded().await;
            return Ok(0);
        }
        Ok(self.settle(page).await)
    }
}
