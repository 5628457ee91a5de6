//! The session state behind the id maps: tabs and their frames, open dialogs, loading pages,
//! refused navigations (and the frames they belong to), and the window and control ids (unique
//! in the session, never reused).

use std::collections::{BTreeMap, HashMap, HashSet};

use deft_protocol::observation::ControlType;

/// A tab, a window of the device: its target, its page session once attached, what it shows.
#[derive(Debug, Clone)]
pub(super) struct Tab {
    pub(super) target_id: String,
    pub(super) session: Option<String>,
    pub(super) title: String,
    pub(super) url: String,
    /// Control ids of the previous listing (for the `*` new marker).
    pub(super) previous: Option<HashSet<u64>>,
    /// The previous listing's controls, the whole tab (for the change listing).
    pub(super) last_listing: Option<Vec<deft_protocol::observation::Control>>,
}

/// A cross-origin frame's session: the session it attached under, its target and URL.
#[derive(Debug, Clone)]
pub(super) struct Frame {
    pub(super) parent: String,
    pub(super) target_id: String,
    pub(super) url: String,
    /// The iframe element that owns the frame: the parent's document token and element key
    /// (found with `DOM.getFrameOwner`, once per parent document).
    pub(super) owner: Option<(String, u64)>,
}

/// A frame on the way to a control inside a cross-origin iframe: the iframe element.
#[derive(Debug, Clone)]
pub(super) struct Hop {
    pub(super) session: String,
    pub(super) doc: String,
    pub(super) key: u64,
}

/// What a control id refers to: its tab, frame session, document token and element key, the
/// name and type it was listed with, and the iframe elements on the way to it.
#[derive(Debug, Clone)]
pub(crate) struct ControlRef {
    pub window: u64,
    pub session: String,
    pub doc: String,
    pub key: u64,
    pub name: String,
    pub kind: ControlType,
    pub(super) hops: Vec<Hop>,
}

/// An open JavaScript dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// Its message.
    pub message: String,
    pub(super) session: String,
}

impl Dialog {
    /// The CDP session the dialog belongs to (a page or a frame).
    pub(crate) fn session(&self) -> &str {
        &self.session
    }
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) next_window: u64,
    pub(super) next_control: u64,
    pub(super) tabs: BTreeMap<u64, Tab>,
    pub(super) window_of_target: HashMap<String, u64>,
    pub(super) selected: Option<u64>,
    pub(super) controls: HashMap<u64, ControlRef>,
    pub(super) control_of: HashMap<(String, String, u64), u64>,
    /// Ids of each window's latest listing, for "unknown id" texts.
    pub(super) listed_range: HashMap<u64, (u64, u64)>,
    pub(super) frames: HashMap<String, Frame>,
    pub(super) dialogs: HashMap<String, Dialog>,
    /// Targets closed through close_tab (the browser may list them for a moment longer).
    pub(super) closed: HashSet<String>,
    /// Page sessions whose main frame is loading a new document (a link followed, a form
    /// posted, a redirect): settling waits for the new document instead of the old one.
    pub(super) loading: HashSet<String>,
    /// Navigations the URL policy refused since the window's last action result.
    pub(super) blocked: HashMap<u64, Vec<BlockedNavigation>>,
    /// Frames announced by a page or frame session (`Page.frameAttached`): frame id → session.
    pub(super) subframes: HashMap<String, String>,
    /// Refused documents of frames not known when they were refused (the policy's connection
    /// may hear of the request before this one hears of the frame), the latest few.
    pub(super) unattributed: Vec<(String, BlockedNavigation)>,
}

/// How many refused documents of unknown frames are kept for a later attribution.
const UNATTRIBUTED_KEPT: usize = 32;

/// A document the page tried to open and the URL policy refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedNavigation {
    /// The URL the page (a link, a redirect, a frame) asked for.
    pub url: String,
    /// The policy's reason, as the model reads it.
    pub reason: String,
}

impl State {
    /// Selects `id` unless a tab is selected already (an implicit choice never replaces one
    /// somebody made); whether it did.
    pub(super) fn select_if_none(&mut self, id: u64) -> bool {
        if self.selected.is_some() {
            return false;
        }
        self.selected = Some(id);
        true
    }

    /// Forgets the tabs a listing of the browser's targets did not show (`seen`), and the
    /// selection if its tab went — but not the tabs numbered above `newest_before`, the newest
    /// window id when the listing was asked for: those were opened while the browser answered.
    pub(super) fn forget_unlisted(&mut self, seen: &HashSet<u64>, newest_before: u64) {
        self.tabs
            .retain(|id, _| seen.contains(id) || *id > newest_before);
        if self.selected.is_some_and(|s| !self.tabs.contains_key(&s)) {
            self.selected = None;
        }
    }

    pub(super) fn window_for_target(&mut self, target_id: &str) -> u64 {
        if let Some(id) = self.window_of_target.get(target_id) {
            return *id;
        }
        self.next_window += 1;
        let id = self.next_window;
        self.window_of_target.insert(target_id.to_owned(), id);
        id
    }

    pub(super) fn control_id(&mut self, session: &str, doc: &str, key: u64) -> u64 {
        let k = (session.to_owned(), doc.to_owned(), key);
        if let Some(id) = self.control_of.get(&k) {
            return *id;
        }
        self.next_control += 1;
        let id = self.next_control;
        self.control_of.insert(k, id);
        id
    }

    /// The tab (window id) a session belongs to: the page's own session or one of its frames.
    pub(super) fn window_of_session(&self, session: &str) -> Option<u64> {
        let mut s = session.to_owned();
        for _ in 0..16 {
            if let Some((id, _)) = self
                .tabs
                .iter()
                .find(|(_, t)| t.session.as_deref() == Some(s.as_str()))
            {
                return Some(*id);
            }
            s = self.frames.get(&s)?.parent.clone();
        }
        None
    }

    /// Whether `session` is a tab's own session and `frame` that tab's main frame.
    pub(super) fn is_main_frame(&self, session: &str, frame: &str) -> bool {
        self.tabs
            .values()
            .any(|t| t.session.as_deref() == Some(session) && t.target_id == frame)
    }

    /// The tab (window id) frame `frame` belongs to: a tab's main frame (its target), a
    /// cross-origin frame (its target) or a frame a session announced.
    pub(super) fn window_of_frame(&self, frame: &str) -> Option<u64> {
        if let Some(id) = self.window_of_target.get(frame)
            && self.tabs.contains_key(id)
        {
            return Some(*id);
        }
        let session = match self.subframes.get(frame) {
            Some(s) => s,
            None => self.frames.iter().find(|(_, f)| f.target_id == frame)?.0,
        };
        self.window_of_session(session)
    }

    /// Records a document the URL policy refused in `frame` for its tab's next action result.
    pub(super) fn record_blocked(&mut self, frame: &str, refused: BlockedNavigation) {
        match self.window_of_frame(frame) {
            Some(w) => self.blocked.entry(w).or_default().push(refused),
            None => {
                if self.unattributed.len() >= UNATTRIBUTED_KEPT {
                    self.unattributed.remove(0);
                }
                self.unattributed.push((frame.to_owned(), refused));
            }
        }
    }

    /// The documents the URL policy refused in `window` since this was last asked, those of
    /// frames that became known since included.
    pub(super) fn take_blocked(&mut self, window: u64) -> Vec<BlockedNavigation> {
        for (frame, refused) in std::mem::take(&mut self.unattributed) {
            self.record_blocked(&frame, refused);
        }
        self.blocked.remove(&window).unwrap_or_default()
    }

    pub(super) fn dialog_of_window(&self, window: u64) -> Option<Dialog> {
        self.dialogs
            .values()
            .find(|d| self.window_of_session(&d.session) == Some(window))
            .cloned()
    }
}

#[cfg(test)]
impl State {
    /// A state with one tab: window 1, target `T1`, page session `S1`, selected.
    pub(super) fn with_one_tab() -> State {
        let mut st = State::default();
        let id = st.window_for_target("T1");
        st.tabs.insert(
            id,
            Tab {
                target_id: "T1".into(),
                session: Some("S1".into()),
                title: "Shop".into(),
                url: "http://shop.test/".into(),
                previous: None,
                last_listing: None,
            },
        );
        st.selected = Some(id);
        st
    }
}

#[cfg(test)]
mod tests {
    use super::{BlockedNavigation, State};

    #[test]
    fn a_tab_opened_while_the_targets_were_listed_is_not_forgotten() {
        let mut st = State::with_one_tab();
        // The listing is asked for now; a new tab is opened and selected before it answers.
        let newest_before = st.next_window;
        let opened = st.window_for_target("T2");
        let tab = st.tabs[&1].clone();
        st.tabs.insert(
            opened,
            super::Tab {
                target_id: "T2".into(),
                ..tab
            },
        );
        st.selected = Some(opened);
        // The answer lists only the first tab.
        st.forget_unlisted(&[1].into(), newest_before);
        assert!(st.tabs.contains_key(&opened));
        assert_eq!(st.selected, Some(opened));
        // A later listing without either forgets both, and the selection with them.
        st.forget_unlisted(&std::collections::HashSet::new(), st.next_window);
        assert!(st.tabs.is_empty());
        assert_eq!(st.selected, None);
    }

    #[test]
    fn an_implicit_selection_never_replaces_an_explicit_one() {
        let mut st = State::default();
        assert!(st.select_if_none(1), "nothing selected: the only tab is");
        assert_eq!(st.selected, Some(1));
        st.selected = Some(2);
        assert!(
            !st.select_if_none(1),
            "a run selected its own tab meanwhile"
        );
        assert_eq!(st.selected, Some(2));
    }

    #[test]
    fn a_refused_document_of_a_frame_announced_later_still_reaches_its_tab() {
        let mut st = State::with_one_tab();
        let refused = |url: &str| BlockedNavigation {
            url: url.into(),
            reason: "no".into(),
        };
        st.record_blocked("T1", refused("http://evil.test/top"));
        st.record_blocked("late", refused("http://evil.test/frame"));
        assert_eq!(st.unattributed.len(), 1, "the frame is not known yet");
        st.subframes.insert("late".into(), "S1".into());
        assert_eq!(
            st.take_blocked(1),
            vec![
                refused("http://evil.test/top"),
                refused("http://evil.test/frame")
            ]
        );
        assert!(st.take_blocked(1).is_empty() && st.unattributed.is_empty());
        for n in 0..40 {
            st.record_blocked("popup", refused(&format!("http://evil.test/{n}")));
        }
        assert_eq!(st.unattributed.len(), 32, "only the latest are kept");
        assert_eq!(st.unattributed[0].1.url, "http://evil.test/8");
    }
}
