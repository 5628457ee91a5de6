//! Browser events: the loop that follows iframe targets attaching and detaching, tab titles,
//! dialogs, loading main frames and paused document requests, and keeps the session state.

use std::sync::Weak;

use serde_json::json;

use super::Inner;
use super::frames::prepare_session;
use super::state::{BlockedNavigation, Dialog, Frame};
use crate::cdp::CdpEvent;

/// Follows browser events: iframe targets attaching and detaching, tab titles, dialogs.
pub(super) fn spawn_event_loop(
    inner: Weak<Inner>,
    mut events: tokio::sync::broadcast::Receiver<CdpEvent>,
) {
    tokio::spawn(async move {
        loop {
            let e = match events.recv().await {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!("browser event loop lagged by {n} events");
                    continue;
                }
                Err(_) => return,
            };
            let Some(inner) = inner.upgrade() else { return };
            let mut st = inner
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match e.method.as_str() {
                "Target.attachedToTarget" => {
                    let info = &e.params["targetInfo"];
                    let child = e.params["sessionId"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    if info["type"] == "iframe" {
                        if let Some(parent) = e.session.clone() {
                            st.frames.insert(
                                child.clone(),
                                Frame {
                                    parent,
                                    target_id: info["targetId"]
                                        .as_str()
                                        .unwrap_or_default()
                                        .to_owned(),
                                    url: info["url"].as_str().unwrap_or_default().to_owned(),
                                    owner: None,
                                },
                            );
                            let cdp = inner.cdp.clone();
                            let intercept = inner.policy.restricts();
                            tokio::spawn(async move {
                                if let Err(err) =
                                    prepare_session(&cdp, &child, false, intercept).await
                                {
                                    tracing::debug!("iframe session not prepared: {err}");
                                }
                            });
                        }
                    } else if let Some(_parent) = e.session.clone() {
                        // Workers and other targets: let them run, we do not drive them.
                        let cdp = inner.cdp.clone();
                        tokio::spawn(async move {
                            let _ = cdp
                                .call(Some(&child), "Runtime.runIfWaitingForDebugger", json!({}))
                                .await;
                        });
                    }
                }
                "Target.detachedFromTarget" => {
                    if let Some(s) = e.params["sessionId"].as_str() {
                        st.frames.remove(s);
                        st.dialogs.remove(s);
                        st.loading.remove(s);
                    }
                }
                "Target.targetInfoChanged" => {
                    let info = &e.params["targetInfo"];
                    let tid = info["targetId"].as_str().unwrap_or_default();
                    if let Some(id) = st.window_of_target.get(tid).copied()
                        && let Some(tab) = st.tabs.get_mut(&id)
                    {
                        tab.title = info["title"].as_str().unwrap_or_default().to_owned();
                        tab.url = info["url"].as_str().unwrap_or_default().to_owned();
                    }
                    if info["type"] == "iframe" {
                        // A cross-origin frame navigated: keep its URL for matching.
                        let url = info["url"].as_str().unwrap_or_default().to_owned();
                        for f in st.frames.values_mut().filter(|f| f.target_id == tid) {
                            f.url.clone_from(&url);
                        }
                    }
                }
                "Target.targetDestroyed" => {
                    let tid = e.params["targetId"].as_str().unwrap_or_default();
                    if let Some(id) = st.window_of_target.get(tid).copied() {
                        st.tabs.remove(&id);
                        st.blocked.remove(&id);
                        if st.selected == Some(id) {
                            st.selected = None;
                        }
                    }
                }
                "Page.javascriptDialogOpening" => {
                    if let Some(s) = e.session.clone() {
                        st.dialogs.insert(
                            s.clone(),
                            Dialog {
                                kind: e.params["type"].as_str().unwrap_or("alert").to_owned(),
                                message: e.params["message"]
                                    .as_str()
                                    .unwrap_or_default()
                                    .to_owned(),
                                session: s,
                            },
                        );
                    }
                }
                "Page.frameStartedLoading" | "Page.frameStoppedLoading" => {
                    if let Some(s) = e.session.as_deref() {
                        let frame = e.params["frameId"].as_str().unwrap_or_default();
                        if st.is_main_frame(s, frame) {
                            if e.method == "Page.frameStartedLoading" {
                                st.loading.insert(s.to_owned());
                            } else {
                                st.loading.remove(s);
                            }
                        }
                    }
                }
                "Fetch.requestPaused" => {
                    let url = e.params["request"]["url"].as_str().unwrap_or_default();
                    let request = e.params["requestId"].clone();
                    let allowed = inner.policy.check(url);
                    if let Err(reason) = &allowed {
                        tracing::info!("blocked a page navigation: {reason}");
                        let window = e.session.as_deref().and_then(|s| st.window_of_session(s));
                        if let Some(w) = window {
                            st.blocked.entry(w).or_default().push(BlockedNavigation {
                                url: url.to_owned(),
                                reason: reason.clone(),
                            });
                        }
                    }
                    let cdp = inner.cdp.clone();
                    let session = e.session.clone();
                    tokio::spawn(async move {
                        let (method, params) = match allowed {
                            Ok(()) => ("Fetch.continueRequest", json!({"requestId": request})),
                            Err(_) => (
                                "Fetch.failRequest",
                                json!({"requestId": request, "errorReason": "BlockedByClient"}),
                            ),
                        };
                        let _ = cdp.call(session.as_deref(), method, params).await;
                    });
                }
                "Page.javascriptDialogClosed" => {
                    if let Some(s) = e.session.as_deref() {
                        st.dialogs.remove(s);
                    }
                }
                _ => {}
            }
        }
    });
}
