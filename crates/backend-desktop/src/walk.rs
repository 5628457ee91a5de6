//! Walking the accessibility tree: every node is fetched with its role, name, states,
//! interfaces, children, relations and extents in one burst of concurrent calls (`a11y`'s
//! reads), and the tree is walked level by level so that all nodes of a level are in flight at
//! once (zbus pipelines calls on one connection). Subtrees that are not on screen (closed
//! menus: extents at `i32::MIN`, or not visible) are not descended; a container too large to
//! read whole gives the cells in view of it (`big`).

use atspi::{State, StateSet};
use futures::future::join_all;
use zbus::Connection;

use crate::a11y::{self, A11yResult, Node, ObjKey, SCROLLER_ROLES, Tree};
use crate::big;

const COMPONENT: &str = "org.a11y.atspi.Component";

/// How many children the number of a node's children is read, not its children (a spreadsheet
/// table reports 2^31 - 1: asking for them all would make the application build billions of
/// objects).
pub const MAX_CHILDREN: i32 = 5_000;

/// Roles whose name may come from a `labelled-by` relation (AtspiRole): CHECK_BOX, COMBO_BOX,
/// ENTRY, LIST, LIST_BOX, PASSWORD_TEXT, RADIO_BUTTON, SLIDER, SPIN_BUTTON, TEXT, TOGGLE_BUTTON,
/// PUSH_BUTTON, DATE_EDITOR, TREE, TREE_TABLE.
const LABELLED_ROLES: [u32; 15] = [7, 11, 79, 31, 98, 40, 44, 51, 52, 61, 62, 43, 17, 65, 66];

/// Reads one node (role, name, states, interfaces, extents, relations) and its children's keys;
/// `parent`, `children`, `depth` and `scrolled` are left for the walk to fill. A node with more
/// than [`MAX_CHILDREN`] children yields the cells in view of it ([`crate::big`]), or none.
pub async fn fetch(conn: &Connection, key: ObjKey) -> A11yResult<(Node, Vec<ObjKey>)> {
    // All in one burst (extents too: a node without Component just answers with an error), so a
    // level of the tree costs one round trip, and a second for the children of the nodes that
    // have some. Relations are read afterwards, only for the roles that take their name from a
    // label.
    let (role, name, states, interfaces, count, rect) = futures::join!(
        a11y::role(conn, &key),
        a11y::name(conn, &key),
        a11y::states(conn, &key),
        a11y::interfaces(conn, &key),
        a11y::child_count(conn, &key),
        a11y::extents(conn, &key),
    );
    let role = role?;
    let interfaces = interfaces.unwrap_or_default();
    let rect = if interfaces.iter().any(|i| i == COMPONENT) {
        rect.ok().flatten()
    } else {
        None
    };
    let (kids, visible_part) = match count {
        Ok(0) => (Ok(Vec::new()), None),
        Ok(n) if n > MAX_CHILDREN => {
            let has_table = interfaces.iter().any(|i| i.ends_with(".Table"));
            let (cells, part) = big::cells_in_view(conn, &key, rect, has_table).await;
            (Ok(cells), part)
        }
        _ => (a11y::children(conn, &key).await, None),
    };
    let relations = if LABELLED_ROLES.contains(&role) {
        a11y::labelled_by(conn, &key).await
    } else {
        Vec::new()
    };
    let node = Node {
        key,
        role,
        name: name.unwrap_or_default(),
        states: states.unwrap_or_else(|_| StateSet::empty()),
        interfaces,
        rect,
        labelled_by: relations,
        parent: None,
        children: Vec::new(),
        depth: 0,
        scrolled: false,
        visible_part,
    };
    Ok((node, kids.unwrap_or_default()))
}

/// Whether the walk descends into `node`'s children: not into hidden or off-screen subtrees,
/// except rows scrolled out of a scrolled container (their labels name them).
pub fn descend(node: &Node) -> bool {
    if !node.is(State::Visible) {
        return false;
    }
    // A closed menu's items have no real extents, and are no rows scrolled out of view even
    // below a scroll pane (GTK3 puts LibreOffice's menu bar in one); a menu bar of no size (a
    // toolkit's hidden duplicate) holds nothing to see. Other containers without extents (a
    // GTK3 notebook page whose tab is hidden) still hold showing content.
    const MENU_ROLES: [u32; 6] = [33, 34, 35, 8, 45, 41];
    if MENU_ROLES.contains(&node.role) && !node.is(State::Showing) {
        return false;
    }
    if node.role == 34 && node.rect.is_none() && node.has("Component") {
        return false;
    }
    node.rect.is_some()
        || !node.has("Component")
        || node.scrolled
        || (node.is(State::Showing) && !MENU_ROLES.contains(&node.role))
}

/// Walks the subtree at `root` (at most `max_nodes` nodes), level by level with every node of a
/// level fetched concurrently. Nodes that vanish during the walk are skipped.
pub async fn walk(conn: &Connection, root: ObjKey, max_nodes: usize) -> A11yResult<Tree> {
    walk_from(conn, root, None, max_nodes).await
}

/// [`walk`]; with `inside` the subtree of a node that a walk of an enclosing tree reached
/// (`Some(scrolled)`: whether it lies in a scrolled container's content), walked exactly as
/// that walk would have: its children only when it [`descend`]s.
pub async fn walk_from(
    conn: &Connection,
    root: ObjKey,
    inside: Option<bool>,
    max_nodes: usize,
) -> A11yResult<Tree> {
    // Flat arena in BFS order, then re-ordered depth-first.
    let mut arena: Vec<Node> = Vec::new();
    let (mut root_node, root_kids) = fetch(conn, root).await?;
    let follow = match inside {
        None => true,
        Some(scrolled) => {
            root_node.scrolled = scrolled;
            descend(&root_node)
        }
    };
    arena.push(root_node);
    let mut frontier: Vec<(usize, Vec<ObjKey>)> = if follow && !root_kids.is_empty() {
        vec![(0, root_kids)]
    } else {
        Vec::new()
    };
    while !frontier.is_empty() && arena.len() < max_nodes {
        let jobs: Vec<(usize, ObjKey)> = frontier
            .drain(..)
            .flat_map(|(parent, kids)| kids.into_iter().map(move |k| (parent, k)))
            .take(max_nodes.saturating_sub(arena.len()))
            .collect();
        let fetched = join_all(
            jobs.into_iter()
                .map(|(parent, key)| async move { (parent, fetch(conn, key).await) }),
        )
        .await;
        for (parent, result) in fetched {
            let Ok((mut node, kids)) = result else {
                continue;
            };
            node.parent = Some(parent);
            node.depth = arena[parent].depth + 1;
            node.scrolled = arena[parent].scrolled || SCROLLER_ROLES.contains(&arena[parent].role);
            let idx = arena.len();
            let go = descend(&node);
            arena.push(node);
            arena[parent].children.push(idx);
            if go && !kids.is_empty() {
                frontier.push((idx, kids));
            }
        }
    }
    Ok(depth_first(arena))
}

/// The tree of `arena` (root at 0, children in the toolkit's order) in reading order,
/// depth-first; nodes the root does not reach are left out.
pub(crate) fn depth_first(mut arena: Vec<Node>) -> Tree {
    // Reading order: toolkits list children in their own order (GTK3 grids last-attached
    // first), so siblings that all have rects are ordered top to bottom, then left to right.
    for i in 0..arena.len() {
        let kids = arena[i].children.clone();
        if kids.len() > 1 && kids.iter().all(|c| arena[*c].rect.is_some()) {
            let mut sorted = kids;
            sorted.sort_by_key(|c| {
                let r = arena[*c].rect.unwrap_or_default();
                (r[1], r[0])
            });
            arena[i].children = sorted;
        }
    }
    let mut order = Vec::with_capacity(arena.len());
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        order.push(i);
        for &c in arena[i].children.iter().rev() {
            stack.push(c);
        }
    }
    let mut new_index = vec![0usize; arena.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let mut slots: Vec<Option<Node>> = arena.into_iter().map(Some).collect();
    let mut nodes = Vec::with_capacity(order.len());
    for &old in &order {
        if let Some(mut n) = slots[old].take() {
            n.parent = n.parent.map(|p| new_index[p]);
            n.children = n.children.iter().map(|c| new_index[*c]).collect();
            nodes.push(n);
        }
    }
    Tree { nodes }
}
