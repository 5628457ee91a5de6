//! The URL policy's own connection to the browser, open while a domain list is set. It pauses
//! every request any target makes (browser-wide `Fetch`), lets through what the policy allows
//! and fails the rest (`BlockedByClient`), recording refused documents for their tab's next
//! action result; and it attaches to every page, frame and worker before its scripts run, to
//! take refused WebSocket addresses off the network there (WebSocket connections are not
//! requests `Fetch` pauses).
//!
//! A connection of its own keeps these sessions apart from the tab sessions deft drives: every
//! target is guarded, whoever else attaches it, and a new target runs only once every session
//! that asked it to wait (`waitForDebuggerOnStart`) has let it go, so the guard's rules are in
//! place before its first script.

use std::sync::{Arc, Weak};

use futures::future::join_all;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::Inner;
use super::state::{BlockedNavigation, State};
use crate::cdp::{Cdp, CdpError, CdpEvent};
use crate::policy::UrlPolicy;

/// The events the guard follows; the rest (its targets' `Network` events) are dropped unread.
const EVENTS: &[&str] = &["Target.attachedToTarget", "Fetch.requestPaused"];

/// The guard's connection and the WebSocket rules it puts on every target.
pub(super) struct Guard {
    cdp: Cdp,
    rules: Value,
}

/// One event of the guard's connection.
#[derive(Debug, Clone, PartialEq)]
enum GuardEvent {
    /// A target attached (a new one waits until it is guarded).
    Attached {
        /// Its session on the guard's connection.
        session: String,
        /// `page`, `iframe`, `worker`, `shared_worker`, `service_worker`, …
        kind: String,
    },
    /// A request waits for the policy's verdict.
    Paused {
        /// The paused request's id, as the browser gave it.
        request: Value,
        /// The frame it belongs to (for a document: the frame it loads into).
        frame: String,
        /// `Document`, `Image`, `Script`, `XHR`, `Ping`, …
        resource: String,
        /// The URL asked for.
        url: String,
    },
}

impl GuardEvent {
    fn decode(e: &CdpEvent) -> Option<GuardEvent> {
        let p = &e.params;
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        match e.method.as_str() {
            "Target.attachedToTarget" => Some(GuardEvent::Attached {
                session: p["sessionId"].as_str()?.to_owned(),
                kind: text(&p["targetInfo"]["type"]),
            }),
            "Fetch.requestPaused" => Some(GuardEvent::Paused {
                request: p["requestId"].clone(),
                frame: text(&p["frameId"]),
                resource: text(&p["resourceType"]),
                url: text(&p["request"]["url"]),
            }),
            _ => None,
        }
    }
}

/// What becomes of a paused request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// It goes on (`Fetch.continueRequest`).
    Continue,
    /// It fails as blocked by the client (`Fetch.failRequest`).
    Fail,
}

impl State {
    /// The verdict on a request paused in `frame`; a refused document is recorded for its tab's
    /// next action result.
    fn judge_request(
        &mut self,
        frame: &str,
        resource: &str,
        url: &str,
        policy: &UrlPolicy,
    ) -> Verdict {
        let Err(reason) = policy.check_request(url) else {
            return Verdict::Continue;
        };
        if resource == "Document" {
            tracing::info!("blocked a page navigation: {reason}");
            let refused = BlockedNavigation {
                url: url.to_owned(),
                reason: reason.to_string(),
            };
            self.record_blocked(frame, refused);
        } else {
            tracing::debug!("blocked a {resource} request: {reason}");
        }
        Verdict::Fail
    }
}

impl Guard {
    /// Opens the guard's connection to the browser at `ws_url` for `policy`.
    pub(super) async fn connect(ws_url: &str, policy: &UrlPolicy) -> Result<Self, CdpError> {
        Ok(Guard {
            cdp: Cdp::connect_for(ws_url, Some(EVENTS)).await?,
            rules: Value::Array(policy.websocket_rules()),
        })
    }
}

/// Starts guarding `inner`'s browser: pauses every request, attaches to every target, and
/// returns once the targets that already exist are guarded.
pub(super) async fn start(inner: &Arc<Inner>) -> Result<(), CdpError> {
    let Some(guard) = &inner.guard else {
        return Ok(());
    };
    let cdp = &guard.cdp;
    let mut events = cdp.events();
    cdp.call(
        None,
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
    )
    .await?;
    // Frames and dedicated workers attach through their page (or frame).
    cdp.call(
        None,
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true,
               "filter": [{"type": "page"}, {"type": "shared_worker"}, {"type": "service_worker"}]}),
    )
    .await?;
    // The targets that exist were announced before the answer (their frames and workers before
    // the answer of guarding them): every one is guarded before the first tool call.
    loop {
        let mut attached = Vec::new();
        while let Ok(e) = events.try_recv() {
            match GuardEvent::decode(&e) {
                Some(GuardEvent::Attached { session, kind }) => attached.push((session, kind)),
                Some(paused) => answer(inner, guard, paused),
                None => {}
            }
        }
        if attached.is_empty() {
            break;
        }
        join_all(
            attached
                .iter()
                .map(|(s, k)| protect(cdp, s, k, &guard.rules)),
        )
        .await;
    }
    spawn_loop(Arc::downgrade(inner), events);
    Ok(())
}

/// Puts the WebSocket rules on target session `session`, attaches to its frames and workers
/// the same way, then lets it run.
async fn protect(cdp: &Cdp, session: &str, kind: &str, rules: &Value) {
    let s = Some(session);
    // No response bodies kept: the guard never reads them.
    let network =
        json!({"maxTotalBufferSize": 0, "maxResourceBufferSize": 0, "maxPostDataSize": 0});
    // Rules set before the network domain is enabled do not hold (a shared worker's socket
    // goes through), so every target's is enabled first — but a service worker answers only
    // once it runs: its rules are set while the answer is pending, which holds for it.
    let pending = if kind == "service_worker" {
        Some(cdp.send(s, "Network.enable", network))
    } else {
        if let Err(e) = cdp.call(s, "Network.enable", network).await {
            tracing::debug!("no network domain on a {kind}: {e}");
        }
        None
    };
    let params = json!({"matchedNetworkConditions": rules});
    if let Err(e) = cdp
        .call(s, "Network.emulateNetworkConditionsByRule", params)
        .await
    {
        tracing::warn!("the WebSocket connections of a {kind} escape the URL policy: {e}");
    }
    let nested = json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true});
    if let Err(e) = cdp.call(s, "Target.setAutoAttach", nested).await {
        tracing::debug!("a {kind} attaches nothing: {e}");
    }
    let _ = cdp
        .call(s, "Runtime.runIfWaitingForDebugger", json!({}))
        .await;
    if let Some(Ok(answer)) = pending
        && let Ok(Ok(Err(e))) = tokio::time::timeout(crate::cdp::CALL_LIMIT, answer).await
    {
        tracing::debug!("no network domain on a {kind}: {e}");
    }
}

/// Answers a paused request with the policy's verdict (without waiting for the browser).
fn answer(inner: &Inner, guard: &Guard, event: GuardEvent) {
    let GuardEvent::Paused {
        request,
        frame,
        resource,
        url,
    } = event
    else {
        return;
    };
    let verdict = inner
        .lock_state()
        .judge_request(&frame, &resource, &url, &inner.policy);
    let sent = match verdict {
        Verdict::Continue => {
            guard
                .cdp
                .send(None, "Fetch.continueRequest", json!({"requestId": request}))
        }
        Verdict::Fail => guard.cdp.send(
            None,
            "Fetch.failRequest",
            json!({"requestId": request, "errorReason": "BlockedByClient"}),
        ),
    };
    if let Err(e) = sent {
        tracing::debug!("a paused request was not answered: {e}");
    }
}

/// Follows the guard's events for as long as the browser (`inner`) lives.
fn spawn_loop(inner: Weak<Inner>, mut events: broadcast::Receiver<CdpEvent>) {
    tokio::spawn(async move {
        loop {
            let e = match events.recv().await {
                Ok(e) => e,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!("the URL policy's event loop lagged by {n} events");
                    continue;
                }
                Err(_) => return,
            };
            let Some(inner) = inner.upgrade() else { return };
            let Some(guard) = &inner.guard else { return };
            match GuardEvent::decode(&e) {
                Some(GuardEvent::Attached { session, kind }) => {
                    let cdp = guard.cdp.clone();
                    let rules = guard.rules.clone();
                    tokio::spawn(async move { protect(&cdp, &session, &kind, &rules).await });
                }
                Some(paused) => answer(&inner, guard, paused),
                None => {}
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paused(frame: &str, resource: &str, url: &str) -> GuardEvent {
        GuardEvent::decode(&CdpEvent {
            method: "Fetch.requestPaused".into(),
            params: json!({"requestId": "r1", "frameId": frame, "resourceType": resource,
                           "request": {"url": url, "method": "GET"}}),
            session: None,
        })
        .expect("followed")
    }

    fn judge(st: &mut State, event: GuardEvent, policy: &UrlPolicy) -> Verdict {
        let GuardEvent::Paused {
            frame,
            resource,
            url,
            ..
        } = event
        else {
            panic!("a paused request")
        };
        st.judge_request(&frame, &resource, &url, policy)
    }

    fn restricted() -> UrlPolicy {
        UrlPolicy {
            allowed_domains: vec!["shop.test".into()],
            blocked_domains: vec!["ads.shop.test".into()],
            ..UrlPolicy::default()
        }
    }

    #[test]
    fn the_guard_follows_attachments_and_paused_requests_only() {
        let attached = GuardEvent::decode(&CdpEvent {
            method: "Target.attachedToTarget".into(),
            params: json!({"sessionId": "G1", "targetInfo": {"type": "service_worker"}, "waitingForDebugger": true}),
            session: None,
        });
        assert_eq!(
            attached,
            Some(GuardEvent::Attached {
                session: "G1".into(),
                kind: "service_worker".into()
            })
        );
        assert_eq!(
            paused("F1", "Image", "http://shop.test/a.png"),
            GuardEvent::Paused {
                request: json!("r1"),
                frame: "F1".into(),
                resource: "Image".into(),
                url: "http://shop.test/a.png".into()
            }
        );
        let other = CdpEvent {
            method: "Network.requestWillBeSent".into(),
            params: json!({}),
            session: Some("G1".into()),
        };
        assert_eq!(GuardEvent::decode(&other), None);
        assert!(
            EVENTS.contains(&"Target.attachedToTarget") && EVENTS.contains(&"Fetch.requestPaused")
        );
    }

    #[test]
    fn allowed_requests_go_on_and_refused_ones_fail_whatever_their_kind() {
        let mut st = State::with_one_tab();
        let policy = restricted();
        for resource in [
            "Document",
            "Image",
            "Script",
            "Stylesheet",
            "XHR",
            "Ping",
            "Other",
        ] {
            let ok = paused("T1", resource, "http://a.shop.test./x");
            assert_eq!(judge(&mut st, ok, &policy), Verdict::Continue, "{resource}");
            for url in [
                "http://ads.shop.test/x",
                "http://[::ffff:127.0.0.1]/x",
                "http://cdn.test/x",
            ] {
                let refused = paused("T1", resource, url);
                assert_eq!(
                    judge(&mut st, refused, &policy),
                    Verdict::Fail,
                    "{resource} {url}"
                );
            }
        }
        let local = paused("T1", "Image", "data:image/png;base64,AAAA");
        assert_eq!(judge(&mut st, local, &policy), Verdict::Continue);
    }

    #[test]
    fn only_refused_documents_are_reported_on_their_tab() {
        let mut st = State::with_one_tab();
        let policy = restricted();
        judge(
            &mut st,
            paused("T1", "Image", "http://cdn.test/a.png"),
            &policy,
        );
        judge(&mut st, paused("T1", "XHR", "http://cdn.test/api"), &policy);
        assert!(st.take_blocked(1).is_empty(), "subresources fail quietly");
        judge(
            &mut st,
            paused("T1", "Document", "http://cdn.test/next"),
            &policy,
        );
        st.subframes.insert("sub".into(), "S1".into());
        judge(
            &mut st,
            paused("sub", "Document", "http://ads.shop.test./frame"),
            &policy,
        );
        let reasons: Vec<(String, String)> = st
            .take_blocked(1)
            .into_iter()
            .map(|b| (b.url, b.reason))
            .collect();
        assert_eq!(
            reasons,
            vec![
                (
                    "http://cdn.test/next".to_owned(),
                    crate::texts::domain_not_allowed("cdn.test", &policy.allowed_domains)
                ),
                (
                    "http://ads.shop.test./frame".to_owned(),
                    crate::texts::domain_blocked("ads.shop.test")
                ),
            ]
        );
    }
}
