//! The session's controls: listing the selected window's controls (ids, new markers,
//! subtrees; the same controls with their nesting for the matcher), resolving a control id with the name as a check, and validating a control right
//! before an action (still there, visible, on screen, enabled).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use atspi::State;
use deft_protocol::observation::{Control, WindowSummary};
use futures::future::join_all;

use super::{ControlEntry, DesktopSession, Maps, Resolved, Snapshot, WindowEntry};
use crate::a11y::{self, ObjKey, Tree};
use crate::describe::{self, Described};
use crate::error::{ToolError, ToolResult};
use crate::texts;

/// Longest wait for a disabled control to become enabled.
const ENABLE_WAIT: Duration = Duration::from_secs(10);

impl DesktopSession {
    /// Lists the selected window's controls: assigns ids, marks new controls, remembers the list.
    /// With `subtree` (a control id), returns only that control and its descendants; an id that
    /// is unknown, stale or of another window fails with the texts of an action on it, and a
    /// failed call is not a listing (the new markers of the next one are unchanged). Also
    /// returns the window's previous listing (the whole window), for the change listing.
    pub async fn list_controls(
        &self,
        subtree: Option<&str>,
    ) -> ToolResult<(WindowSummary, Vec<Control>, Option<Vec<Control>>)> {
        let window = self.selected().await?;
        let snap = self.snapshot(&window).await?;
        let mut maps = self.maps.lock().await;
        let (listed, seen) = register(&mut maps, &window, &snap);
        let whole: Vec<Control> = listed.iter().map(|l| l.control.clone()).collect();
        let controls = match subtree {
            None => listed.into_iter().map(|l| l.control).collect(),
            Some(id) => {
                let root = resolve_control(&maps, &window, id, None)?
                    .entry
                    .described
                    .node;
                let end = subtree_end(&snap.tree, root);
                listed
                    .into_iter()
                    .filter(|l| (root..end).contains(&l.node))
                    .map(|l| l.control)
                    .collect()
            }
        };
        let root_rect = snap.tree.nodes.first().and_then(|n| n.rect);
        let mut before = None;
        if let Some(w) = maps.window_info.get_mut(&window.id) {
            w.previous = Some(seen);
            before = w.last_listing.replace(whole);
            if root_rect.is_some() {
                w.rect = root_rect;
            }
        }
        Ok((summary_of(&maps, &window), controls, before))
    }

    /// The selected window's controls exactly as a listing would give them (the same ids, which
    /// actions then accept), with their nesting depths, for the matcher. Not a listing itself:
    /// the new markers of the next listing still count from the previous one.
    pub async fn window_controls(&self) -> ToolResult<Look> {
        let window = self.selected().await?;
        self.window_controls_of(&window).await
    }

    /// [`DesktopSession::window_controls`] of `window`.
    pub(super) async fn window_controls_of(&self, window: &WindowEntry) -> ToolResult<Look> {
        let snap = self.snapshot(window).await?;
        let mut maps = self.maps.lock().await;
        let (listed, _) = register(&mut maps, window, &snap);
        let (depths, controls): (Vec<u32>, Vec<Control>) =
            listed.into_iter().map(|l| (l.depth, l.control)).unzip();
        Ok(Look {
            window: summary_of(&maps, window),
            controls,
            depths,
        })
    }

    /// Resolves a control id of the selected window (`name` as a check).
    pub async fn control(&self, id: &str, name: Option<&str>) -> ToolResult<Resolved> {
        let window = self.selected().await?;
        let maps = self.maps.lock().await;
        resolve_control(&maps, &window, id, name)
    }

    /// Resolves a control id of the selected window (`name` as a check) and checks it right
    /// before `action` ([`DesktopSession::validate`]): the control and its current rect.
    pub async fn checked_control(
        &self,
        id: &str,
        name: Option<&str>,
        action: &str,
    ) -> ToolResult<(Resolved, Option<[i32; 4]>)> {
        let resolved = self.control(id, name).await?;
        let rect = self.validate(&resolved.entry, action).await?;
        Ok((resolved, rect))
    }

    /// Checks a control right before acting: it still exists, is visible, on screen and enabled
    /// (waits up to 10 s for enabled). Returns its current rect.
    pub async fn validate(
        &self,
        entry: &ControlEntry,
        action: &str,
    ) -> ToolResult<Option<[i32; 4]>> {
        let c = self.connected().await?;
        let key = &entry.described.key;
        let id = entry.id.to_string();
        let name = entry.described.name.clone();
        let deadline = Instant::now() + ENABLE_WAIT;
        loop {
            let states = a11y::states(&c.a11y, key)
                .await
                .map_err(|_| ToolError::model(texts::vanished(&id, &name)))?;
            if states.contains(State::Defunct) {
                return Err(ToolError::model(texts::vanished(&id, &name)));
            }
            if !states.contains(State::Visible) && !states.contains(State::Showing) {
                return Err(ToolError::model(texts::not_interactable(
                    &id,
                    &name,
                    action,
                    "not visible",
                )));
            }
            let enabled = states.contains(State::Enabled) || states.contains(State::Sensitive);
            if enabled {
                // The visible area: the overlap of the scrolled containers around it (a GTK3
                // viewport may lose its extents once scrolled far; its scroll pane keeps them).
                let (rect, clips) = futures::join!(
                    a11y::extents(&c.a11y, key),
                    join_all(
                        entry
                            .described
                            .clips
                            .iter()
                            .map(|k| a11y::extents(&c.a11y, k))
                    )
                );
                let clip_rect = clips
                    .into_iter()
                    .filter_map(|r| r.ok().flatten())
                    .reduce(|a, b| describe::intersect(a, b).unwrap_or([a[0], a[1], a[0], a[1]]));
                let window = self.selected().await?;
                let (dx, dy) = self.offset(&c, &window, None).await;
                let shift = |r: [i32; 4]| [r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy];
                let rect = rect.ok().flatten().map(shift);
                // Scrolled out of its container: the tools do not scroll (docs/observation.md
                // `offscreen`). Partly visible: act on the visible part.
                let scrolled_out = || {
                    ToolError::model(texts::not_interactable(
                        &id,
                        &name,
                        action,
                        texts::SCROLLED_OUT,
                    ))
                };
                let rect = if entry.described.scrolled {
                    match (rect, clip_rect.map(shift)) {
                        (None, _) => return Err(scrolled_out()),
                        (Some(r), Some(area)) => {
                            Some(describe::intersect(r, area).ok_or_else(scrolled_out)?)
                        }
                        (Some(r), None) => Some(r),
                    }
                } else {
                    rect
                };
                let (sw, sh) = (i32::from(c.x.size.0), i32::from(c.x.size.1));
                if let Some(r) = rect
                    && (r[2] <= 0 || r[3] <= 0 || r[0] >= sw || r[1] >= sh)
                {
                    return Err(ToolError::model(texts::not_interactable(
                        &id,
                        &name,
                        action,
                        "off screen; scroll it into view first",
                    )));
                }
                return Ok(rect);
            }
            if Instant::now() >= deadline {
                return Err(ToolError::model(texts::not_interactable(
                    &id, &name, action, "disabled",
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Controls of the last listing of the selected window (for annotation).
    pub async fn listed_controls(&self, window: u64) -> Vec<(u64, Described)> {
        let maps = self.maps.lock().await;
        let mut v: Vec<(u64, Described)> = maps
            .control_info
            .values()
            .filter(|c| c.window == window && c.alive)
            .map(|c| (c.id, c.described.clone()))
            .collect();
        v.sort_by_key(|(id, _)| *id);
        v
    }
}

/// The selected window's controls as a listing gives them, in document order.
#[derive(Debug, Clone)]
pub struct Look {
    /// The window, as the listing's header names it.
    pub window: WindowSummary,
    /// The listed controls.
    pub controls: Vec<Control>,
    /// Per control, how many listed controls it is nested in: a control's subtree is the run of
    /// deeper controls after it, as `deft_protocol::selector::find` reads it.
    pub depths: Vec<u32>,
}

/// One listed control: its node in the walk, its nesting among listed controls, and its line.
struct Listed {
    node: usize,
    depth: u32,
    control: Control,
}

/// Gives the listed controls of `snap` their ids (new ones for objects not seen before) and
/// their new markers against the window's previous listing, and marks the window's controls
/// that are gone; returns them with every object described.
fn register(
    maps: &mut Maps,
    window: &WindowEntry,
    snap: &Snapshot,
) -> (Vec<Listed>, HashSet<ObjKey>) {
    let previous = maps
        .window_info
        .get(&window.id)
        .and_then(|w| w.previous.clone());
    let depths = listed_depths(
        &snap.tree,
        snap.described.iter().filter(|d| d.listed).map(|d| d.node),
    );
    let mut seen = HashSet::new();
    let mut listed = Vec::new();
    for d in &snap.described {
        seen.insert(d.key.clone());
        if !d.listed {
            continue;
        }
        let id = match maps.controls.get(&d.key) {
            Some(id) => *id,
            None => {
                maps.next_control += 1;
                let id = maps.next_control;
                maps.controls.insert(d.key.clone(), id);
                id
            }
        };
        let is_new = previous.as_ref().is_some_and(|p| !p.contains(&d.key));
        listed.push(Listed {
            node: d.node,
            depth: depths[d.node],
            control: control_of(id, d, is_new),
        });
        maps.control_info.insert(
            id,
            ControlEntry {
                id,
                window: window.id,
                alive: true,
                described: d.clone(),
            },
        );
    }
    // Controls of this window that are gone keep their ids (never reused) but fail.
    for entry in maps.control_info.values_mut() {
        if entry.window == window.id && !seen.contains(&entry.described.key) {
            entry.alive = false;
        }
    }
    (listed, seen)
}

/// A described control as its listing line shows it.
fn control_of(id: u64, d: &Described, is_new: bool) -> Control {
    let mut c = Control::new(id.to_string(), d.kind, &d.name)
        .with_states(d.states.iter().copied())
        .with_interactive(d.interactive);
    if let Some(v) = &d.value {
        c = c.with_value(v.clone());
    }
    if let Some(r) = d.rect {
        c = c.with_rect(r);
    }
    if is_new {
        c = c.new_since_last();
    }
    if d.row_text {
        c = c.as_row_text();
    }
    c.with_extra("role", d.role)
}

/// Per node of `tree`, how many listed controls are among its ancestors. Not the walk's depth:
/// the unlisted containers between controls would let a control of a neighbouring branch
/// look nested in one that ends before it.
fn listed_depths(tree: &Tree, listed_nodes: impl Iterator<Item = usize>) -> Vec<u32> {
    let mut listed = vec![false; tree.nodes.len()];
    for i in listed_nodes {
        listed[i] = true;
    }
    let mut depths = vec![0u32; tree.nodes.len()];
    // Depth-first order: a parent comes before its children.
    for (i, n) in tree.nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            depths[i] = depths[p] + u32::from(listed[p]);
        }
    }
    depths
}

/// The window's summary as the id maps know it now.
fn summary_of(maps: &Maps, window: &WindowEntry) -> WindowSummary {
    maps.window_info
        .get(&window.id)
        .map(WindowEntry::summary)
        .unwrap_or_else(|| window.summary())
}

/// Resolves a control id against the id maps for `window`: the texts of an unknown id, an id of
/// another window, a vanished control, and the name-mismatch warning.
fn resolve_control(
    maps: &Maps,
    window: &WindowEntry,
    id: &str,
    name: Option<&str>,
) -> ToolResult<Resolved> {
    let mut in_window: Vec<&ControlEntry> = maps
        .control_info
        .values()
        .filter(|c| c.window == window.id && c.alive)
        .collect();
    in_window.sort_by_key(|c| c.id);
    if in_window.is_empty() && maps.control_info.is_empty() {
        return Err(ToolError::model(texts::NO_CONTROLS));
    }
    if id.trim().is_empty() {
        return Err(ToolError::model(texts::empty_id("control")));
    }
    let known: Vec<String> = in_window.iter().map(|c| c.id.to_string()).collect();
    let entry = id
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| maps.control_info.get(&n))
        .ok_or_else(|| ToolError::model(texts::unknown_control(id, &known)))?;
    if entry.window != window.id {
        let (wid, wname) = maps
            .window_info
            .get(&entry.window)
            .map(|w| (w.id.to_string(), w.name.clone()))
            .unwrap_or_else(|| (entry.window.to_string(), String::new()));
        return Err(ToolError::model(texts::other_window(id, &wid, &wname)));
    }
    if !entry.alive {
        return Err(ToolError::model(texts::vanished(id, &entry.described.name)));
    }
    let warning = name
        .filter(|n| describe::undouble(n) != entry.described.name)
        .map(|n| texts::name_mismatch(id, &entry.described.name, n));
    Ok(Resolved {
        entry: entry.clone(),
        warning,
    })
}

/// One past the last node of the subtree at `root` (nodes are in depth-first order, so a
/// subtree is the run of deeper nodes that follows its root).
fn subtree_end(tree: &Tree, root: usize) -> usize {
    let depth = tree.nodes.get(root).map_or(0, |n| n.depth);
    tree.nodes
        .iter()
        .enumerate()
        .skip(root + 1)
        .find(|(_, n)| n.depth <= depth)
        .map_or(tree.nodes.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a11y::ObjKey;

    fn tree_of_depths(depths: &[usize]) -> Tree {
        Tree {
            nodes: depths
                .iter()
                .enumerate()
                .map(|(i, d)| a11y::Node {
                    key: ObjKey::new(":1.1", format!("/n{i}")),
                    role: 0,
                    name: String::new(),
                    states: atspi::StateSet::empty(),
                    interfaces: Vec::new(),
                    rect: None,
                    labelled_by: Vec::new(),
                    parent: None,
                    children: Vec::new(),
                    depth: *d,
                    scrolled: false,
                    visible_part: None,
                })
                .collect(),
        }
    }

    #[test]
    fn listed_depths_count_listed_ancestors_only() {
        // 0 window ─ 1 group (listed) ─ 2 filler ─ 3 button (listed)
        //          └ 4 filler ─ 5 filler ─ 6 button (listed): not inside the group.
        let mut t = tree_of_depths(&[0, 1, 2, 3, 1, 2, 3]);
        for (child, parent) in [(1, 0), (2, 1), (3, 2), (4, 0), (5, 4), (6, 5)] {
            t.nodes[child].parent = Some(parent);
        }
        let depths = listed_depths(&t, [1, 3, 6].into_iter());
        assert_eq!(depths, [0, 0, 1, 1, 0, 0, 0]);
        // As the matcher reads them: the group's subtree holds the first button only.
        let listed: Vec<u32> = [1, 3, 6].iter().map(|&n| depths[n]).collect();
        assert_eq!(listed, [0, 1, 0]);
    }

    #[test]
    fn a_subtree_is_the_run_of_deeper_nodes_after_its_root() {
        //            0  1  2  3  4  5  6
        let t = tree_of_depths(&[0, 1, 2, 3, 2, 1, 2]);
        assert_eq!(subtree_end(&t, 0), 7);
        assert_eq!(subtree_end(&t, 1), 5);
        assert_eq!(subtree_end(&t, 2), 4);
        assert_eq!(subtree_end(&t, 3), 4);
        assert_eq!(subtree_end(&t, 5), 7);
        assert_eq!(subtree_end(&t, 6), 7);
    }
}
