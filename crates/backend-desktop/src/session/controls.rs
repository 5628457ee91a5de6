//! The session's controls: listing the selected window's controls (ids, new markers,
//! subtrees), resolving a control id with the name as a check, and validating a control right
//! before an action (still there, visible, on screen, enabled).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use atspi::State;
use deft_protocol::observation::{Control, WindowSummary};
use futures::future::join_all;

use super::{ControlEntry, Maps, Resolved, Session, WindowEntry};
use crate::a11y::{self, Tree};
use crate::describe::{self, Described};
use crate::error::{ToolError, ToolResult};
use crate::texts;

/// Longest wait for a disabled control to become enabled.
const ENABLE_WAIT: Duration = Duration::from_secs(10);

impl Session {
    /// Lists the selected window's controls: assigns ids, marks new controls, remembers the list.
    /// With `subtree` (a control id), returns only that control and its descendants; an id that
    /// is unknown, stale or of another window fails with the texts of an action on it, and a
    /// failed call is not a listing (the new markers of the next one are unchanged).
    pub async fn list_controls(
        &self,
        subtree: Option<&str>,
    ) -> ToolResult<(WindowSummary, Vec<Control>)> {
        let window = self.selected().await?;
        let snap = self.snapshot(&window).await?;
        let mut maps = self.maps.lock().await;
        let previous = maps
            .window_info
            .get(&window.id)
            .and_then(|w| w.previous.clone());
        let mut seen = HashSet::new();
        let mut controls = Vec::new();
        for d in snap.described {
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
            c = c.with_extra("role", d.role);
            controls.push((d.node, c));
            maps.control_info.insert(
                id,
                ControlEntry {
                    id,
                    window: window.id,
                    alive: true,
                    described: d,
                },
            );
        }
        // Controls of this window that are gone keep their ids (never reused) but fail.
        for entry in maps.control_info.values_mut() {
            if entry.window == window.id && !seen.contains(&entry.described.key) {
                entry.alive = false;
            }
        }
        let controls = match subtree {
            None => controls.into_iter().map(|(_, c)| c).collect(),
            Some(id) => {
                let root = resolve_control(&maps, &window, id, None)?
                    .entry
                    .described
                    .node;
                let end = subtree_end(&snap.tree, root);
                controls
                    .into_iter()
                    .filter(|(node, _)| (root..end).contains(node))
                    .map(|(_, c)| c)
                    .collect()
            }
        };
        let root_rect = snap.tree.nodes.first().and_then(|n| n.rect);
        if let Some(w) = maps.window_info.get_mut(&window.id) {
            w.previous = Some(seen);
            if root_rect.is_some() {
                w.rect = root_rect;
            }
        }
        let summary = maps
            .window_info
            .get(&window.id)
            .map(WindowEntry::summary)
            .unwrap_or_else(|| window.summary());
        Ok((summary, controls))
    }

    /// Resolves a control id of the selected window (`name` as a check).
    pub async fn control(&self, id: &str, name: Option<&str>) -> ToolResult<Resolved> {
        let window = self.selected().await?;
        let maps = self.maps.lock().await;
        resolve_control(&maps, &window, id, name)
    }

    /// Resolves a control id of the selected window (`name` as a check) and checks it right
    /// before `action` ([`Session::validate`]): the control and its current rect.
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
                })
                .collect(),
        }
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
