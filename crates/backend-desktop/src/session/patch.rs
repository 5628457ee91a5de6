//! Bringing a cached walk up to date from the AT-SPI events since it was taken, instead of
//! walking the window again: objects whose properties changed are read again; containers whose
//! children changed (a button appeared, a row went) have their child list read again, the new
//! children walked and the gone ones dropped — a window where one control appeared costs a few
//! reads. The result is the tree a new walk would give (the same nodes, reading order, depths);
//! whatever might make it differ asks for the walk instead (`None`).

use std::collections::{HashMap, HashSet};

use futures::future::join_all;

use super::Connected;
use super::snapshot::{MAX_NODES, Snapshot, finish_snapshot};
use crate::a11y::{self, Node, ObjKey};
use crate::{describe, walk};

/// Most objects one patch reads again (properties and child lists together); more mean a walk.
pub(super) const MAX_PATCHED: usize = 64;

/// What changed since a walk, by object.
#[derive(Debug, Default, Clone)]
pub(super) struct Changes {
    /// Objects whose properties changed.
    pub props: Vec<ObjKey>,
    /// Objects whose children changed.
    pub children: Vec<ObjKey>,
}

impl Changes {
    /// How many objects they name.
    pub fn len(&self) -> usize {
        self.props.len() + self.children.len()
    }
}

/// The walk being patched: its nodes (root first; children lists point into it), where each
/// object is, the objects read again or walked (their values are read again) and those gone,
/// and the window's offset (added to the toolkit's extents).
struct Work {
    nodes: Vec<Node>,
    index: HashMap<ObjKey, usize>,
    fresh: HashSet<ObjKey>,
    /// Objects that no longer answer.
    gone: HashSet<ObjKey>,
    offset: (i32, i32),
}

/// `snap` brought up to date with `changes`, or `None` when only a new walk is exact.
pub(super) async fn patch(c: &Connected, snap: Snapshot, changes: &Changes) -> Option<Snapshot> {
    if snap.tree.nodes.len() > MAX_NODES / 2 {
        return None;
    }
    let mut w = Work {
        index: snap
            .tree
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.key.clone(), i))
            .collect(),
        nodes: snap.tree.nodes,
        fresh: HashSet::new(),
        gone: HashSet::new(),
        offset: snap.offset,
    };
    // Child lists first: what they add is walked now, so the new objects' own property events
    // need no read.
    let mut relist: Vec<usize> = Vec::new();
    for key in &changes.children {
        let i = *w.index.get(key)?;
        if !relist.contains(&i) {
            relist.push(i);
        }
    }
    let props: Vec<usize> = changes
        .props
        .iter()
        .filter_map(|k| w.index.get(k).copied())
        .collect();
    relist.extend(reread(c, &mut w, &props).await?);
    for i in dedup(relist) {
        relist_children(c, &mut w, i).await?;
    }
    if !reach_unwalked(c, &mut w, changes, &props).await {
        return None;
    }
    let tree = reflatten(w.nodes);
    if tree.nodes.len() >= MAX_NODES || tree.nodes.iter().any(|n| w.gone.contains(&n.key)) {
        return None;
    }
    let keys: HashSet<&ObjKey> = tree.nodes.iter().map(|n| &n.key).collect();
    let mut values = snap.values;
    values.retain(|k, _| keys.contains(k));
    let reread: HashSet<ObjKey> = w.fresh;
    Some(finish_snapshot(c, tree, snap.offset, values, Some(&reread)).await)
}

/// Objects the walk did not reach that changed: walked by now (a child list read above), gone
/// (a destroyed control's last events), or new children whose events came before their
/// parent's: then the parent's child list is read now. False when one is still neither in
/// the tree nor gone (a walk then).
async fn reach_unwalked(c: &Connected, w: &mut Work, changes: &Changes, props: &[usize]) -> bool {
    let unreached = |w: &Work| -> Vec<ObjKey> {
        changes
            .props
            .iter()
            .filter(|k| !w.fresh.contains(*k) && !props.iter().any(|&i| w.nodes[i].key == **k))
            .cloned()
            .collect()
    };
    let parents = join_all(unreached(w).iter().map(|k| a11y::parent(&c.a11y, k))).await;
    let mut relist: Vec<usize> = parents
        .into_iter()
        .filter_map(|p| w.index.get(&p.ok()??).copied())
        .collect();
    relist.sort_unstable();
    relist.dedup();
    for i in relist {
        if relist_children(c, w, i).await.is_none() {
            return false;
        }
    }
    let answers = join_all(
        unreached(w)
            .into_iter()
            .map(|k| async move { walk::fetch(&c.a11y, k).await }),
    )
    .await;
    !answers.iter().any(Result::is_ok)
}

fn dedup(mut v: Vec<usize>) -> Vec<usize> {
    let mut seen = HashSet::new();
    v.retain(|i| seen.insert(*i));
    v
}

/// Reads the objects `props` again: their own fields change, their place in the tree does
/// not. Answers the containers whose child list must be read again: a node that now descends
/// (or no longer does), and the parent of a node whose rect changed when it orders its
/// children by rect. `None` when a change moves content that sends no event (a scroll bar or
/// scrolled container).
async fn reread(c: &Connected, w: &mut Work, props: &[usize]) -> Option<Vec<usize>> {
    let conn = &c.a11y;
    let fetched = join_all(props.iter().map(|&i| {
        let key = w.nodes[i].key.clone();
        async move { (i, walk::fetch(conn, key).await) }
    }))
    .await;
    let (dx, dy) = w.offset;
    let mut relist = Vec::new();
    for (i, read) in fetched {
        let Ok((mut node, _kids)) = read else {
            // Gone (a destroyed control's last events, often before its parent says so): its
            // parent's child list is read again, and must no longer have it (checked at the
            // end).
            w.gone.insert(w.nodes[i].key.clone());
            relist.push(w.nodes[i].parent?);
            continue;
        };
        let old = &w.nodes[i];
        node.rect = node
            .rect
            .map(|r| [r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy]);
        node.parent = old.parent;
        node.children = old.children.clone();
        node.depth = old.depth;
        node.scrolled = old.scrolled;
        let scrolls = |n: &Node| {
            n.role == describe::role::SCROLL_BAR || a11y::SCROLLER_ROLES.contains(&n.role)
        };
        if scrolls(old) || scrolls(&node) {
            return None;
        }
        if i != 0 && walk::descend(&node) != walk::descend(old) {
            relist.push(i);
        }
        if node.rect != old.rect {
            // The window moved or resized: its offset may be another now.
            let p = old.parent?;
            // Its siblings may be in another reading order: the parent's list in the
            // toolkit's order is read again.
            relist.push(p);
        }
        w.fresh.insert(node.key.clone());
        w.nodes[i] = node;
    }
    Some(relist)
}

/// Reads the child list of node `i` again: children already walked keep their subtrees, new
/// ones are walked as a walk of the window would walk them, gone ones are dropped (a node
/// that no longer descends keeps none).
async fn relist_children(c: &Connected, w: &mut Work, i: usize) -> Option<()> {
    let (node, kids) = walk::fetch(&c.a11y, w.nodes[i].key.clone()).await.ok()?;
    if node.role != w.nodes[i].role {
        return None;
    }
    // The window root is always entered (a walk of the window starts there).
    if i != 0 && !walk::descend(&w.nodes[i]) {
        w.nodes[i].children.clear();
        return Some(());
    }
    let inside = w.nodes[i].scrolled || a11y::SCROLLER_ROLES.contains(&w.nodes[i].role);
    let mut children = Vec::with_capacity(kids.len());
    for kid in kids {
        match w.index.get(&kid) {
            Some(&k) if w.nodes[k].parent == Some(i) => children.push(k),
            Some(_) => return None,
            None => {
                let budget = MAX_NODES.saturating_sub(w.nodes.len());
                let Ok(sub) = walk::walk_from(&c.a11y, kid, Some(inside), budget).await else {
                    // Gone already: a walk would skip it too.
                    continue;
                };
                children.push(splice(w, sub, i));
            }
        }
    }
    w.nodes[i].children = children;
    Some(())
}

/// Appends the walked subtree `sub` (root first) under node `parent`; the index of its root.
fn splice(w: &mut Work, sub: a11y::Tree, parent: usize) -> usize {
    let base = w.nodes.len();
    let (dx, dy) = w.offset;
    let depth = w.nodes[parent].depth + 1;
    for mut n in sub.nodes {
        n.parent = Some(n.parent.map_or(parent, |p| p + base));
        n.children = n.children.iter().map(|c| c + base).collect();
        n.depth += depth;
        n.rect = n.rect.map(|r| [r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy]);
        w.fresh.insert(n.key.clone());
        w.index.insert(n.key.clone(), w.nodes.len());
        w.nodes.push(n);
    }
    base
}

/// The patched nodes as a walk gives them: reading order, depth-first, without the dropped
/// subtrees, depths and scrolled flags as a walk sets them.
fn reflatten(nodes: Vec<Node>) -> a11y::Tree {
    let mut tree = walk::depth_first(nodes);
    for i in 1..tree.nodes.len() {
        if let Some(p) = tree.nodes[i].parent {
            let (depth, scrolled) = {
                let parent = &tree.nodes[p];
                (
                    parent.depth + 1,
                    parent.scrolled || a11y::SCROLLER_ROLES.contains(&parent.role),
                )
            };
            tree.nodes[i].depth = depth;
            tree.nodes[i].scrolled = scrolled;
        }
    }
    tree
}
