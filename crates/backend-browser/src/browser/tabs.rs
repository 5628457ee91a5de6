//! Tabs as the device's windows: enumerating, selecting, opening and closing them.

use std::collections::HashSet;
use std::time::Duration;

use deft_protocol::observation::{WindowSummary, WindowType};
use serde_json::json;

use super::frames::prepare_session;
use super::state::Tab;
use super::{Browser, BrowserError, Result};
use crate::policy;
use crate::texts;

impl Browser {
    /// The tabs, refreshed from the browser: `(window id, title, url)`.
    pub(crate) async fn tabs(&self) -> Result<Vec<WindowSummary>> {
        // Window ids only grow: a tab numbered above this one was opened (by `new_tab`) while
        // the browser answered, so the answer may not list it yet — it is not gone.
        let newest_before = self.state().next_window;
        let targets = self
            .cdp()
            .call(None, "Target.getTargets", json!({}))
            .await?;
        let mut seen = HashSet::new();
        let mut st = self.state();
        for t in targets["targetInfos"].as_array().into_iter().flatten() {
            if t["type"] != "page"
                || t["browserContextId"]
                    .as_str()
                    .is_some_and(|c| self.is_clipboard_context(c))
            {
                continue;
            }
            let Some(target_id) = t["targetId"].as_str() else {
                continue;
            };
            if st.closed.contains(target_id) {
                continue;
            }
            let id = st.window_for_target(target_id);
            seen.insert(id);
            let title = t["title"].as_str().unwrap_or_default().to_owned();
            let url = t["url"].as_str().unwrap_or_default().to_owned();
            let tab = st.tabs.entry(id).or_insert_with(|| Tab {
                target_id: target_id.to_owned(),
                session: None,
                title: String::new(),
                url: String::new(),
                previous: None,
                last_listing: None,
            });
            tab.title = title;
            tab.url = url;
        }
        st.forget_unlisted(&seen, newest_before);
        Ok(st.tabs.iter().map(|(id, t)| summary(*id, t)).collect())
    }

    /// The selected window id.
    pub(crate) fn selected(&self) -> Option<u64> {
        self.state().selected
    }

    /// Selects tab `id`: attaches to it, brings it to front. Returns the window summary.
    pub(crate) async fn select(&self, id: u64) -> Result<WindowSummary> {
        let target_id = self.attach(id).await?;
        self.activate(&target_id).await;
        let mut st = self.state();
        st.selected = Some(id);
        let tab = st
            .tabs
            .get(&id)
            .ok_or_else(|| BrowserError::model(texts::window_gone(id)))?;
        Ok(summary(id, tab))
    }

    /// Brings a tab to the front (best effort: a browser that refuses still works on it).
    async fn activate(&self, target_id: &str) {
        self.cdp()
            .call(
                None,
                "Target.activateTarget",
                json!({"targetId": target_id}),
            )
            .await
            .ok();
    }

    /// Attaches a page session to tab `id` unless it has one; its target id.
    async fn attach(&self, id: u64) -> Result<String> {
        let (target_id, session) = {
            let st = self.state();
            let tab = st.tabs.get(&id).ok_or_else(|| {
                BrowserError::model(texts::unknown_window(
                    &id.to_string(),
                    &st.tabs.keys().map(u64::to_string).collect::<Vec<_>>(),
                ))
            })?;
            (tab.target_id.clone(), tab.session.clone())
        };
        if session.is_none() {
            let attached = self
                .cdp()
                .call(
                    None,
                    "Target.attachToTarget",
                    json!({"targetId": target_id, "flatten": true}),
                )
                .await?;
            let s = attached["sessionId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            prepare_session(self.cdp(), &s, true).await?;
            if let Some(tab) = self.state().tabs.get_mut(&id) {
                tab.session = Some(s);
            }
        }
        Ok(target_id)
    }

    /// The selected tab's window id and page session.
    pub(crate) fn current(&self) -> Result<(u64, String)> {
        let st = self.state();
        let id = st
            .selected
            .ok_or_else(|| BrowserError::model(texts::NO_WINDOW))?;
        let tab = st
            .tabs
            .get(&id)
            .ok_or_else(|| BrowserError::model(texts::window_gone(id)))?;
        let s = tab
            .session
            .clone()
            .ok_or_else(|| BrowserError::model(texts::NO_WINDOW))?;
        Ok((id, s))
    }

    /// The selected tab, selecting the only tab when none is selected and there is exactly one.
    ///
    /// The only tab is selected only if nothing was selected meanwhile: a screenshot of the live
    /// view (which calls this while a run opens its page) must never undo the run's own
    /// selection, which may land while the only tab is being attached.
    pub(crate) async fn current_or_only(&self) -> Result<(u64, String)> {
        if let Ok(c) = self.current() {
            return Ok(c);
        }
        let tabs = self.tabs().await?;
        if let [only] = tabs.as_slice() {
            let id: u64 = only.id.parse().unwrap_or_default();
            let target_id = self.attach(id).await?;
            let chosen = self.state().select_if_none(id);
            if chosen {
                self.activate(&target_id).await;
            }
        }
        self.current()
    }

    /// The window summary of a selected tab, re-read from the browser.
    pub(crate) async fn window_summary(&self, id: u64) -> Result<WindowSummary> {
        self.tabs().await?;
        let st = self.state();
        st.tabs
            .get(&id)
            .map(|t| summary(id, t))
            .ok_or_else(|| BrowserError::model(texts::window_gone(id)))
    }

    /// The tabs as last enumerated, without asking the browser.
    pub(crate) fn known_tabs(&self) -> Vec<WindowSummary> {
        self.state()
            .tabs
            .iter()
            .map(|(id, t)| summary(*id, t))
            .collect()
    }

    /// Opens a new tab at `url` (policy-checked) and selects it.
    pub(crate) async fn new_tab(&self, url: Option<&str>) -> Result<WindowSummary> {
        if let Some(u) = url {
            self.inner.policy.check(u)?;
        }
        let created = self
            .cdp()
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await?;
        let target = created["targetId"].as_str().unwrap_or_default().to_owned();
        let id = {
            let mut st = self.state();
            let id = st.window_for_target(&target);
            st.tabs.insert(
                id,
                Tab {
                    target_id: target,
                    session: None,
                    title: String::new(),
                    url: "about:blank".into(),
                    previous: None,
                    last_listing: None,
                },
            );
            id
        };
        self.select(id).await?;
        if let Some(u) = url {
            self.navigate(u).await?;
        }
        self.window_summary(id).await
    }

    /// Closes tab `id`.
    pub(crate) async fn close_tab(&self, id: u64) -> Result<()> {
        let target = {
            let st = self.state();
            st.tabs
                .get(&id)
                .map(|t| t.target_id.clone())
                .ok_or_else(|| {
                    BrowserError::model(texts::unknown_window(
                        &id.to_string(),
                        &st.tabs.keys().map(u64::to_string).collect::<Vec<_>>(),
                    ))
                })?
        };
        let mut events = self.cdp().events();
        self.cdp()
            .call(None, "Target.closeTarget", json!({"targetId": target}))
            .await?;
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match events.recv().await {
                    Ok(e)
                        if e.method == "Target.targetDestroyed"
                            && e.params["targetId"] == target.as_str() =>
                    {
                        return;
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return,
                }
            }
        })
        .await;
        let mut st = self.state();
        st.closed.insert(target.clone());
        st.tabs.remove(&id);
        if st.selected == Some(id) {
            st.selected = None;
        }
        Ok(())
    }

    /// Whether CDP session `session` (a page or one of its frames) belongs to window `window`.
    pub(crate) fn session_in_window(&self, session: &str, window: u64) -> bool {
        self.state().window_of_session(session) == Some(window)
    }
}

pub(super) fn summary(id: u64, t: &Tab) -> WindowSummary {
    let name = if t.title.trim().is_empty() {
        t.url.clone()
    } else {
        t.title.clone()
    };
    WindowSummary::new(
        id.to_string(),
        name,
        WindowType::Page,
        policy::root_of(&t.url),
    )
}
