//! Browser events: decoding the CDP events the session follows (iframe targets attaching and
//! detaching, tab titles, dialogs, loading main frames, the frames of each page), applying one
//! to the session state as a pure step that returns the CDP calls to make, and the thin loop
//! that feeds it and makes them.

use std::sync::Weak;

use serde_json::{Value, json};

use super::Inner;
use super::frames::prepare_session;
use super::state::{Dialog, Frame, State};
use crate::cdp::{Cdp, CdpEvent};

/// One browser event the session state follows, decoded from its CDP form.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Event {
    /// `Target.attachedToTarget`: a target attached under session `parent` (`None`: the browser).
    Attached {
        /// The session the target attached under.
        parent: Option<String>,
        /// The new target's own session.
        session: String,
        /// `iframe`, `worker`, …
        kind: String,
        /// The target's id (for an iframe: its frame id).
        target_id: String,
        /// The target's URL.
        url: String,
    },
    /// `Target.detachedFromTarget`: session `session` is gone.
    Detached {
        /// The session that detached.
        session: String,
    },
    /// `Target.targetInfoChanged`: a target's title or URL changed.
    InfoChanged {
        /// The target's id.
        target_id: String,
        /// `page`, `iframe`, …
        kind: String,
        /// Its title now.
        title: String,
        /// Its URL now.
        url: String,
    },
    /// `Target.targetDestroyed`: a target (a tab, for instance) is gone.
    Destroyed {
        /// The target's id.
        target_id: String,
    },
    /// `Page.javascriptDialogOpening` on `session`.
    DialogOpening {
        /// The session the dialog opened on.
        session: Option<String>,
        /// `alert`, `confirm`, `prompt` or `beforeunload`.
        kind: String,
        /// The dialog's message.
        message: String,
    },
    /// `Page.javascriptDialogClosed` on `session`.
    DialogClosed {
        /// The session whose dialog closed.
        session: Option<String>,
    },
    /// `Page.frameStartedLoading` (`started`) or `Page.frameStoppedLoading` on `session`.
    FrameLoading {
        /// The session the frame belongs to.
        session: Option<String>,
        /// The frame's id.
        frame: String,
        /// Whether it started (else stopped) loading.
        started: bool,
    },
    /// `Page.frameAttached` on `session`: a frame of its document (same-process or not yet).
    FrameAttached {
        /// The page or frame session that announced it.
        session: Option<String>,
        /// The new frame's id.
        frame: String,
    },
    /// `Page.frameDetached`: a frame is gone (or became a cross-origin frame of its own).
    FrameDetached {
        /// The frame's id.
        frame: String,
    },
}

/// A string field of an event's parameters (`""` when absent).
fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

impl Event {
    /// The event `e` stands for, or `None` for an event the session state does not follow.
    pub(super) fn decode(e: &CdpEvent) -> Option<Event> {
        let p = &e.params;
        let session = e.session.clone();
        Some(match e.method.as_str() {
            "Target.attachedToTarget" => Event::Attached {
                parent: session,
                session: text(&p["sessionId"]),
                kind: text(&p["targetInfo"]["type"]),
                target_id: text(&p["targetInfo"]["targetId"]),
                url: text(&p["targetInfo"]["url"]),
            },
            "Target.detachedFromTarget" => Event::Detached {
                session: p["sessionId"].as_str()?.to_owned(),
            },
            "Target.targetInfoChanged" => Event::InfoChanged {
                target_id: text(&p["targetInfo"]["targetId"]),
                kind: text(&p["targetInfo"]["type"]),
                title: text(&p["targetInfo"]["title"]),
                url: text(&p["targetInfo"]["url"]),
            },
            "Target.targetDestroyed" => Event::Destroyed {
                target_id: text(&p["targetId"]),
            },
            "Page.javascriptDialogOpening" => Event::DialogOpening {
                session,
                kind: p["type"].as_str().unwrap_or("alert").to_owned(),
                message: text(&p["message"]),
            },
            "Page.javascriptDialogClosed" => Event::DialogClosed { session },
            "Page.frameStartedLoading" | "Page.frameStoppedLoading" => Event::FrameLoading {
                session,
                frame: text(&p["frameId"]),
                started: e.method == "Page.frameStartedLoading",
            },
            "Page.frameAttached" => Event::FrameAttached {
                session,
                frame: p["frameId"].as_str()?.to_owned(),
            },
            "Page.frameDetached" => Event::FrameDetached {
                frame: p["frameId"].as_str()?.to_owned(),
            },
            _ => return None,
        })
    }
}

/// A CDP call an event asks for, made by the event loop (never while the state is locked).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum FollowUp {
    /// Prepare a new cross-origin frame session like a page's (agent, auto-attach).
    PrepareFrame {
        /// The frame's session.
        session: String,
    },
    /// Let a worker or other target we do not drive run (`Runtime.runIfWaitingForDebugger`).
    Resume {
        /// The target's session.
        session: String,
    },
}

impl State {
    /// Applies one browser event to the session state and returns the CDP calls it asks for.
    pub(super) fn apply(&mut self, event: Event) -> Vec<FollowUp> {
        match event {
            Event::Attached {
                parent: Some(parent),
                session,
                kind,
                target_id,
                url,
            } => vec![self.attached(parent, session, &kind, target_id, url)],
            // Targets of the browser itself (tabs) are found through Target.getTargets.
            Event::Attached { parent: None, .. } => Vec::new(),
            Event::Detached { session } => {
                self.frames.remove(&session);
                self.dialogs.remove(&session);
                self.loading.remove(&session);
                self.subframes.retain(|_, s| *s != session);
                Vec::new()
            }
            Event::InfoChanged {
                target_id,
                kind,
                title,
                url,
            } => {
                self.info_changed(&target_id, &kind, title, url);
                Vec::new()
            }
            Event::Destroyed { target_id } => {
                self.destroyed(&target_id);
                Vec::new()
            }
            Event::DialogOpening {
                session,
                kind,
                message,
            } => {
                if let Some(session) = session {
                    let dialog = Dialog {
                        kind,
                        message,
                        session: session.clone(),
                    };
                    self.dialogs.insert(session, dialog);
                }
                Vec::new()
            }
            Event::DialogClosed { session } => {
                if let Some(s) = session {
                    self.dialogs.remove(&s);
                }
                Vec::new()
            }
            Event::FrameLoading {
                session,
                frame,
                started,
            } => {
                if let Some(s) = session {
                    self.frame_loading(s, &frame, started);
                }
                Vec::new()
            }
            Event::FrameAttached { session, frame } => {
                if let Some(s) = session {
                    self.subframes.insert(frame, s);
                }
                Vec::new()
            }
            Event::FrameDetached { frame } => {
                self.subframes.remove(&frame);
                Vec::new()
            }
        }
    }

    /// A target attached under session `parent`: a cross-origin frame is recorded and
    /// prepared; workers and other targets we do not drive are let run.
    fn attached(
        &mut self,
        parent: String,
        session: String,
        kind: &str,
        target_id: String,
        url: String,
    ) -> FollowUp {
        if kind != "iframe" {
            return FollowUp::Resume { session };
        }
        let frame = Frame {
            parent,
            target_id,
            url,
            owner: None,
        };
        self.frames.insert(session.clone(), frame);
        FollowUp::PrepareFrame { session }
    }

    /// A target's title or URL changed: a tab keeps both, a cross-origin frame its URL (for
    /// matching it to its iframe element).
    fn info_changed(&mut self, target_id: &str, kind: &str, title: String, url: String) {
        if let Some(id) = self.window_of_target.get(target_id).copied()
            && let Some(tab) = self.tabs.get_mut(&id)
        {
            tab.title = title;
            tab.url.clone_from(&url);
        }
        if kind == "iframe" {
            for f in self
                .frames
                .values_mut()
                .filter(|f| f.target_id == target_id)
            {
                f.url.clone_from(&url);
            }
        }
    }

    /// A target is gone: a tab goes with its refused navigations and its selection.
    fn destroyed(&mut self, target_id: &str) {
        if let Some(id) = self.window_of_target.get(target_id).copied() {
            self.tabs.remove(&id);
            self.blocked.remove(&id);
            if self.selected == Some(id) {
                self.selected = None;
            }
        }
    }

    /// A frame of `session` started or stopped loading; only a tab's main frame counts.
    fn frame_loading(&mut self, session: String, frame: &str, started: bool) {
        if !self.is_main_frame(&session, frame) {
            return;
        }
        if started {
            self.loading.insert(session);
        } else {
            self.loading.remove(&session);
        }
    }
}

/// Makes the CDP call of `f`, on a task of its own (the loop never waits for the browser).
fn perform(cdp: &Cdp, f: FollowUp) {
    let cdp = cdp.clone();
    tokio::spawn(async move {
        match f {
            FollowUp::PrepareFrame { session } => {
                if let Err(err) = prepare_session(&cdp, &session, false).await {
                    tracing::debug!("iframe session not prepared: {err}");
                    // It waits for us since it started: let it run unprepared.
                    let _ = cdp
                        .call(Some(&session), "Runtime.runIfWaitingForDebugger", json!({}))
                        .await;
                }
            }
            FollowUp::Resume { session } => {
                let _ = cdp
                    .call(Some(&session), "Runtime.runIfWaitingForDebugger", json!({}))
                    .await;
            }
        }
    });
}

/// Follows browser events for as long as the browser (`inner`) lives: each decoded event is
/// applied to the session state, then its follow-ups are made.
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
            let Some(event) = Event::decode(&e) else {
                continue;
            };
            let follow_ups = inner.lock_state().apply(event);
            for f in follow_ups {
                perform(&inner.cdp, f);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::super::state::BlockedNavigation;
    use super::*;

    fn event(method: &str, session: Option<&str>, params: Value) -> Event {
        Event::decode(&CdpEvent {
            method: method.into(),
            params,
            session: session.map(str::to_owned),
        })
        .unwrap_or_else(|| panic!("{method} is followed"))
    }

    fn attach_frame(st: &mut State, parent: &str, session: &str) -> Vec<FollowUp> {
        st.apply(
            event(
                "Target.attachedToTarget",
                Some(parent),
                json!({"sessionId": session, "targetInfo": {"type": "iframe", "targetId": format!("F-{session}"), "url": "http://ads.test/frame"}}),
            ),
        )
    }

    #[test]
    fn events_the_state_does_not_follow_decode_to_nothing() {
        let e = CdpEvent {
            method: "Network.requestWillBeSent".into(),
            params: json!({}),
            session: Some("S1".into()),
        };
        assert_eq!(Event::decode(&e), None);
        let no_session = CdpEvent {
            method: "Target.detachedFromTarget".into(),
            params: json!({}),
            session: None,
        };
        assert_eq!(Event::decode(&no_session), None);
    }

    #[test]
    fn an_iframe_attaching_is_recorded_under_its_parent_and_prepared() {
        let mut st = State::with_one_tab();
        let f = attach_frame(&mut st, "S1", "C1");
        assert_eq!(
            f,
            vec![FollowUp::PrepareFrame {
                session: "C1".into(),
            }]
        );
        let frame = &st.frames["C1"];
        assert_eq!(
            (
                frame.parent.as_str(),
                frame.target_id.as_str(),
                frame.url.as_str()
            ),
            ("S1", "F-C1", "http://ads.test/frame")
        );
        assert_eq!(
            st.window_of_session("C1"),
            Some(1),
            "the frame belongs to the tab"
        );

        // A frame of a frame: prepared too, still the same tab.
        let f = attach_frame(&mut st, "C1", "C2");
        assert_eq!(
            f,
            vec![FollowUp::PrepareFrame {
                session: "C2".into(),
            }]
        );
        assert_eq!(st.window_of_session("C2"), Some(1));
    }

    #[test]
    fn workers_are_let_run_and_browser_level_attachments_ignored() {
        let mut st = State::with_one_tab();
        let worker = event(
            "Target.attachedToTarget",
            Some("S1"),
            json!({"sessionId": "W1", "targetInfo": {"type": "worker", "targetId": "W", "url": ""}}),
        );
        assert_eq!(
            st.apply(worker),
            vec![FollowUp::Resume {
                session: "W1".into()
            }]
        );
        let top = event(
            "Target.attachedToTarget",
            None,
            json!({"sessionId": "S9", "targetInfo": {"type": "page", "targetId": "T9"}}),
        );
        assert_eq!(st.apply(top), Vec::new());
        assert!(st.frames.is_empty(), "no frame recorded: {:?}", st.frames);
    }

    #[test]
    fn a_detached_session_forgets_its_frame_dialog_and_loading() {
        let mut st = State::with_one_tab();
        attach_frame(&mut st, "S1", "C1");
        st.apply(event(
            "Page.javascriptDialogOpening",
            Some("C1"),
            json!({"type": "confirm", "message": "Leave?"}),
        ));
        st.loading.insert("C1".into());
        let f = st.apply(event(
            "Target.detachedFromTarget",
            Some("S1"),
            json!({"sessionId": "C1"}),
        ));
        assert_eq!(f, Vec::new());
        assert!(st.frames.is_empty() && st.dialogs.is_empty() && st.loading.is_empty());
    }

    #[test]
    fn target_info_keeps_tab_titles_and_frame_urls_current() {
        let mut st = State::with_one_tab();
        attach_frame(&mut st, "S1", "C1");
        st.apply(
            event(
                "Target.targetInfoChanged",
                None,
                json!({"targetInfo": {"targetId": "T1", "type": "page", "title": "Cart", "url": "http://shop.test/cart"}}),
            ),
        );
        assert_eq!(
            (st.tabs[&1].title.as_str(), st.tabs[&1].url.as_str()),
            ("Cart", "http://shop.test/cart")
        );
        st.apply(
            event(
                "Target.targetInfoChanged",
                None,
                json!({"targetInfo": {"targetId": "F-C1", "type": "iframe", "title": "", "url": "http://ads.test/next"}}),
            ),
        );
        assert_eq!(st.frames["C1"].url, "http://ads.test/next");
        assert_eq!(
            st.tabs[&1].title, "Cart",
            "a frame's change leaves the tab alone"
        );
    }

    #[test]
    fn a_destroyed_tab_goes_with_its_selection_and_blocked_list() {
        let mut st = State::with_one_tab();
        st.blocked.entry(1).or_default().push(BlockedNavigation {
            url: "http://evil.test/".into(),
            reason: "no".into(),
        });
        st.apply(event(
            "Target.targetDestroyed",
            None,
            json!({"targetId": "T-other"}),
        ));
        assert_eq!(st.selected, Some(1), "another target's end changes nothing");
        st.apply(event(
            "Target.targetDestroyed",
            None,
            json!({"targetId": "T1"}),
        ));
        assert!(st.tabs.is_empty() && st.blocked.is_empty());
        assert_eq!(st.selected, None);
        assert_eq!(
            st.window_for_target("T1"),
            1,
            "the id map keeps the target's id (never reused)"
        );
    }

    #[test]
    fn dialogs_open_and_close_per_session() {
        let mut st = State::with_one_tab();
        let f = st.apply(event(
            "Page.javascriptDialogOpening",
            Some("S1"),
            json!({"type": "prompt", "message": "Your name?"}),
        ));
        assert_eq!(f, Vec::new());
        assert_eq!(
            st.dialog_of_window(1),
            Some(Dialog {
                kind: "prompt".into(),
                message: "Your name?".into(),
                session: "S1".into()
            })
        );
        // A dialog without a type counts as an alert.
        st.apply(event(
            "Page.javascriptDialogOpening",
            Some("S2"),
            json!({"message": "Hi"}),
        ));
        assert_eq!(st.dialogs["S2"].kind, "alert");
        st.apply(event("Page.javascriptDialogClosed", Some("S1"), json!({})));
        assert_eq!(st.dialog_of_window(1), None);
        assert!(
            st.dialogs.contains_key("S2"),
            "only that session's dialog closed"
        );
    }

    #[test]
    fn only_a_tabs_main_frame_marks_it_loading() {
        let mut st = State::with_one_tab();
        st.apply(event(
            "Page.frameStartedLoading",
            Some("S1"),
            json!({"frameId": "sub"}),
        ));
        assert!(st.loading.is_empty(), "a subframe's load is not the page's");
        st.apply(event(
            "Page.frameStartedLoading",
            Some("S1"),
            json!({"frameId": "T1"}),
        ));
        assert!(st.loading.contains("S1"));
        st.apply(event(
            "Page.frameStoppedLoading",
            Some("S1"),
            json!({"frameId": "T1"}),
        ));
        assert!(st.loading.is_empty());
    }

    #[test]
    fn the_frames_of_a_page_belong_to_its_tab_until_they_or_their_session_go() {
        let mut st = State::with_one_tab();
        for frame in ["sub1", "sub2"] {
            st.apply(event(
                "Page.frameAttached",
                Some("S1"),
                json!({"frameId": frame, "parentFrameId": "T1"}),
            ));
        }
        attach_frame(&mut st, "S1", "C1");
        assert_eq!(
            st.window_of_frame("T1"),
            Some(1),
            "the main frame is the tab's target"
        );
        assert_eq!(st.window_of_frame("sub1"), Some(1));
        assert_eq!(
            st.window_of_frame("F-C1"),
            Some(1),
            "a cross-origin frame's target"
        );
        assert_eq!(st.window_of_frame("elsewhere"), None);
        st.apply(event(
            "Page.frameDetached",
            Some("S1"),
            json!({"frameId": "sub1", "reason": "remove"}),
        ));
        assert_eq!(st.window_of_frame("sub1"), None);
        st.apply(event(
            "Target.detachedFromTarget",
            None,
            json!({"sessionId": "S1"}),
        ));
        assert_eq!(st.window_of_frame("sub2"), None, "its session is gone");
    }
}
