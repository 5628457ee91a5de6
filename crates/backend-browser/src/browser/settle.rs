//! Settling after an action (no request in flight, the short timers, animation frames and
//! animations its own handlers started done, the DOM quiet, a new document loaded) and the page
//! fingerprint that tells `effect`, taken before the action with the page agents armed.

use std::time::{Duration, Instant};

use super::Browser;

/// How long the DOM must stay quiet for the page to count as settled.
pub(crate) const SETTLE_QUIET_MS: u64 = 20;
/// The longest an action waits for the page to settle.
pub(crate) const SETTLE_CAP_MS: u64 = 3000;

impl Browser {
    /// Waits until the page settles: no XHR/fetch in flight, nothing the armed action started
    /// still running (timers up to `settle_timers_ms`, animation frames, animations) and the DOM
    /// quiet for [`SETTLE_QUIET_MS`], capped at [`SETTLE_CAP_MS`]. Returns the milliseconds
    /// waited.
    pub(crate) async fn settle(&self, session: &str) -> u64 {
        let t0 = Instant::now();
        let call = format!("__deft.settle({SETTLE_QUIET_MS}, {SETTLE_CAP_MS})");
        let mut events = self.cdp().events();
        for _ in 0..3 {
            let eval = self.eval(session, &call);
            let dialog = crate::cdp::dialog_opening(&mut events);
            tokio::select! {
                r = eval => {
                    if self.dialog_on_session(session)
                        || (r.is_ok() && !self.is_loading(session))
                    {
                        break;
                    }
                    // A new document is on its way (a link, a form, a redirect) or the context
                    // went away: wait for the document, then settle that one.
                    if !self.document_loaded(session, t0 + Duration::from_millis(SETTLE_CAP_MS)).await {
                        break;
                    }
                }
                () = dialog => {
                    self.dialog_recorded().await;
                    break;
                }
                () = tokio::time::sleep(Duration::from_millis(SETTLE_CAP_MS + 500)) => break,
            }
        }
        t0.elapsed().as_millis() as u64
    }

    /// Waits until cross-origin frame session `frame` settles like [`Browser::settle`] (its
    /// loads are the page's business); a frame that went away or a dialog ends the wait.
    pub(crate) async fn settle_frame(&self, frame: &str) {
        let call = format!("__deft.settle({SETTLE_QUIET_MS}, {SETTLE_CAP_MS})");
        let mut events = self.cdp().events();
        tokio::select! {
            _ = self.eval(frame, &call) => {}
            () = crate::cdp::dialog_opening(&mut events) => {}
            () = tokio::time::sleep(Duration::from_millis(SETTLE_CAP_MS + 500)) => {}
        }
    }

    pub(super) fn is_loading(&self, session: &str) -> bool {
        self.state().loading.contains(session)
    }

    /// Waits until `session`'s main frame has stopped loading, or `deadline`; `false` on the
    /// deadline. The event loop keeps the loading state; events only wake the check.
    pub(super) async fn document_loaded(&self, session: &str, deadline: Instant) -> bool {
        let mut events = self.cdp().events();
        // The context went away just now: the new document's loading may not be recorded yet.
        let started = Instant::now();
        while self.is_loading(session) || started.elapsed() < Duration::from_millis(5) {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            let step = (deadline - now).min(Duration::from_millis(10));
            let _ = tokio::time::timeout(step, events.recv()).await;
        }
        true
    }

    /// A page fingerprint for `effect`: URL, title, DOM mutations, focus, form state and scroll
    /// of the page, its same-origin frames and its cross-origin frames (their own sessions).
    pub(crate) async fn fingerprint(&self, session: &str) -> String {
        self.fingerprint_arming(session, &[]).await
    }

    /// [`Browser::fingerprint`] taken just before an action's input is dispatched, arming the
    /// page agents of `session` and of the frame sessions in `armed` (with their same-origin
    /// frames): the short timers, animation frames and animations the action's handlers start
    /// from now on hold the settle that follows.
    pub(crate) async fn fingerprint_before_action(&self, session: &str, armed: &[&str]) -> String {
        let mut all = vec![session];
        all.extend_from_slice(armed);
        self.fingerprint_arming(session, &all).await
    }

    async fn fingerprint_arming(&self, session: &str, armed: &[&str]) -> String {
        let mut sessions = self.child_frames(session);
        sessions.sort();
        sessions.insert(0, session.to_owned());
        let arm = format!(
            "(__deft.arm({}), __deft.fingerprint())",
            self.inner.settle_timers_ms
        );
        let parts = futures::future::join_all(sessions.iter().map(|s| {
            let call = if armed.contains(&s.as_str()) {
                arm.as_str()
            } else {
                "__deft.fingerprint()"
            };
            self.eval(s, call)
        }))
        .await;
        parts
            .into_iter()
            .map(|v| v.map(|v| v.to_string()).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\u{3}")
    }
}
