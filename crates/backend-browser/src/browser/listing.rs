//! Control listings: the page agent's raw controls across frames, turned into the compact
//! listing's controls with session ids, new-control marks and subtree cuts.

use std::collections::HashSet;

use deft_protocol::observation::{Control, ControlType, ListingOptions, StateFlag, WindowSummary};
use serde::Deserialize;
use serde_json::{Value, json};

use super::state::{ControlRef, Dialog, Hop, State};
use super::tabs::summary;
use super::{Browser, BrowserError, Result};
use crate::texts;

/// One raw control as the page agent reports it.
#[derive(Debug, Deserialize)]
pub(super) struct RawControl {
    pub(super) k: u64,
    #[serde(default)]
    pub(super) role: String,
    #[serde(default)]
    pub(super) name: String,
    #[serde(default)]
    interactive: bool,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    states: Vec<String>,
    #[serde(default)]
    rect: Option<[i32; 4]>,
    #[serde(default)]
    text: bool,
    #[serde(default)]
    row: u64,
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    origin: Option<[i32; 2]>,
    /// How many listed controls enclose this one (for subtree views).
    #[serde(default)]
    d: u32,
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

#[derive(Debug, Deserialize)]
struct RawListing {
    doc: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    controls: Vec<RawControl>,
    /// Keys whose nodes left the document since the agent's last listing.
    #[serde(default)]
    dead: Vec<u64>,
}

/// A listing: the window, its controls (ids assigned, new marked) and an open dialog, if any.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The tab as a window.
    pub window: WindowSummary,
    /// Every control found, in document order.
    pub controls: Vec<Control>,
    /// How many listed controls enclose each control (same length as `controls`), for the
    /// matcher's `within`.
    pub depths: Vec<u32>,
    /// A dialog open on the tab.
    pub dialog: Option<Dialog>,
    /// The tab's previous listing (the whole tab) when this one was marked, for the change
    /// listing.
    pub previous: Option<Vec<Control>>,
}

/// A frame's listing with every control tagged by its frame session, document and hops.
pub(super) struct FlatListing {
    title: String,
    url: String,
    pub(super) controls: Vec<(String, String, Vec<Hop>, RawControl)>,
    /// The keys of nodes that left their documents: (frame session, document, key).
    pub(super) dead: Vec<(String, String, u64)>,
}

impl Browser {
    /// Lists the selected tab's controls (frames and shadow roots included), assigning ids and
    /// marking new ones when `mark` (a listing the model sees) is set.
    pub(crate) async fn list(&self, opts: &ListingOptions, mark: bool) -> Result<Listing> {
        let (id, session) = self.current()?;
        self.ensure_no_dialog(id)?;
        let subtree = match opts.subtree.as_deref() {
            Some(given) => Some(self.control(given, None)?.0),
            None => None,
        };
        let fields = opts.fields();
        let raw = self.list_session(&session, &fields, 0).await?;
        let mut st = self.state();
        let (mut controls, ids) = st.take_controls(id, &raw, &fields, mark);
        let window = st.remember_listing(id, &raw, ids, mark)?;
        let previous = match st.tabs.get_mut(&id) {
            Some(tab) if mark => tab.last_listing.replace(controls.clone()),
            _ => None,
        };
        let dialog = st.dialog_of_window(id);
        let mut depths: Vec<u32> = raw.controls.iter().map(|(_, _, _, c)| c.d).collect();
        if let Some(root) = subtree {
            let Some(range) =
                deft_protocol::selector::subtree_of(&controls, &depths, &root.to_string())
            else {
                let name = st.controls.get(&root).map(|c| c.name.clone());
                return Err(BrowserError::model(texts::stale_control(
                    root,
                    name.as_deref().unwrap_or_default(),
                )));
            };
            controls.truncate(range.end);
            controls.drain(..range.start);
            depths.truncate(range.end);
            depths.drain(..range.start);
        }
        Ok(Listing {
            window,
            controls,
            depths,
            dialog,
            previous,
        })
    }

    /// Lists one frame target and, recursively, its cross-origin iframes.
    fn list_session<'a>(
        &'a self,
        session: &'a str,
        fields: &'a [String],
        depth: usize,
    ) -> futures::future::BoxFuture<'a, Result<FlatListing>> {
        Box::pin(async move {
            let v = self
                .eval(session, &format!("__deft.list({})", json!(fields)))
                .await?;
            let raw: RawListing = serde_json::from_value(v).map_err(|e| {
                BrowserError::model(texts::browser_failed(&format!(
                    "the page agent answered unexpectedly ({e})"
                )))
            })?;
            let mut out = FlatListing {
                title: raw.title,
                url: raw.url,
                controls: Vec::with_capacity(raw.controls.len()),
                dead: raw
                    .dead
                    .iter()
                    .map(|k| (session.to_owned(), raw.doc.clone(), *k))
                    .collect(),
            };
            let mut used: HashSet<String> = HashSet::new();
            for c in raw.controls {
                let Some(src) = c.frame.clone() else {
                    out.controls
                        .push((session.to_owned(), raw.doc.clone(), Vec::new(), c));
                    continue;
                };
                if depth >= 4 {
                    continue;
                }
                let child = self
                    .frame_of_element(session, &raw.doc, c.k, &src, &used)
                    .await;
                let Some(child) = child else { continue };
                used.insert(child.clone());
                let origin = c.origin.unwrap_or([0, 0]);
                let hop = Hop {
                    session: session.to_owned(),
                    doc: raw.doc.clone(),
                    key: c.k,
                };
                match self.list_session(&child, fields, depth + 1).await {
                    Ok(sub) => {
                        out.dead.extend(sub.dead);
                        for (s, d, mut hops, mut cc) in sub.controls {
                            hops.insert(0, hop.clone());
                            cc.d += c.d;
                            if let Some(r) = cc.rect.as_mut() {
                                r[0] += origin[0];
                                r[1] += origin[1];
                                r[2] += origin[0];
                                r[3] += origin[1];
                            }
                            out.controls.push((s, d, hops, cc));
                        }
                    }
                    Err(e) => tracing::debug!("cross-origin frame not listed: {e}"),
                }
            }
            Ok(out)
        })
    }
}

impl State {
    /// Gives every control of `raw` its session id (window `window`) and remembers what the id
    /// refers to; with `mark`, the controls the tab's previous listing did not have are new.
    fn take_controls(
        &mut self,
        window: u64,
        raw: &FlatListing,
        fields: &[String],
        mark: bool,
    ) -> (Vec<Control>, HashSet<u64>) {
        self.adopt_twins(window, raw);
        let previous = self.tabs.get(&window).and_then(|t| t.previous.clone());
        let mut controls = Vec::with_capacity(raw.controls.len());
        let mut ids = HashSet::new();
        for (sess, doc, hops, c) in &raw.controls {
            let cid = self.control_id(sess, doc, c.k);
            ids.insert(cid);
            let kind = control_kind(&c.role);
            let new = mark && previous.as_ref().is_some_and(|p| !p.contains(&cid));
            let control = to_control(c, cid, kind, fields, new);
            self.controls.insert(
                cid,
                ControlRef {
                    window,
                    session: sess.clone(),
                    doc: doc.clone(),
                    key: c.k,
                    name: c.name.clone(),
                    kind,
                    hops: hops.clone(),
                },
            );
            controls.push(control);
        }
        (controls, ids)
    }

    /// Keeps the tab's title and URL from `raw` and, for a listing the model sees (`mark`), its
    /// ids (for the next listing's new marks and the unknown-id texts). Returns the tab's summary.
    fn remember_listing(
        &mut self,
        window: u64,
        raw: &FlatListing,
        ids: HashSet<u64>,
        mark: bool,
    ) -> Result<WindowSummary> {
        let tab = self
            .tabs
            .get_mut(&window)
            .ok_or_else(|| BrowserError::model(texts::window_gone(window)))?;
        tab.title.clone_from(&raw.title);
        tab.url.clone_from(&raw.url);
        if mark {
            let lo = ids.iter().min().copied();
            let hi = ids.iter().max().copied();
            tab.previous = Some(ids);
            if let (Some(lo), Some(hi)) = (lo, hi) {
                self.listed_range.insert(window, (lo, hi));
            }
        }
        Ok(summary(window, tab))
    }
}

/// The control type of a page agent role: ARIA roles, plus the agent's `StaticText` and the
/// roles the ARIA map names otherwise.
pub(super) fn control_kind(role: &str) -> ControlType {
    match role {
        "StaticText" => ControlType::Text,
        "meter" => ControlType::Progressbar,
        "status" => ControlType::Statusbar,
        _ => ControlType::from_aria_role(role),
    }
}

/// Raw control `c` as listing control `cid` of type `kind`: the fields asked for (`role` and
/// the agent's extra fields only then), `new` when the previous listing did not have it.
fn to_control(
    c: &RawControl,
    cid: u64,
    kind: ControlType,
    fields: &[String],
    new: bool,
) -> Control {
    let mut control = Control::new(cid.to_string(), kind, c.name.clone())
        .with_interactive(c.interactive)
        .with_states(c.states.iter().filter_map(|s| s.parse::<StateFlag>().ok()));
    if let Some(v) = &c.value {
        control = control.with_value(v.clone());
    }
    if let Some(r) = c.rect {
        control = control.with_rect(r);
    }
    if c.text && c.row != 0 {
        control = control.as_row_text();
    }
    if fields.iter().any(|f| f == "role") {
        control = control.with_extra("role", c.role.clone());
    }
    for (k, v) in &c.extra {
        if fields.iter().any(|f| f == k) {
            control = control.with_extra(k.clone(), v.clone());
        }
    }
    if new {
        control = control.new_since_last();
    }
    control
}
