//! Reading the accessibility tree over the AT-SPI bus: the identity of an object, a node and a
//! walked tree (the walk itself is `walk`'s), and each read and action on one object as a D-Bus
//! call (zbus pipelines concurrent calls on one connection).

use std::collections::HashMap;

use atspi::{State, StateSet};
use zbus::Connection;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// Relation type `LABELLED_BY` of AT-SPI's `RelationType` enum.
const RELATION_LABELLED_BY: u32 = 2;

/// The identity of an accessible object: bus name and object path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjKey {
    /// Unique bus name of the application (`:1.12`).
    pub bus: String,
    /// Object path.
    pub path: String,
}

impl ObjKey {
    /// A key from its parts.
    pub fn new(bus: impl Into<String>, path: impl Into<String>) -> Self {
        ObjKey {
            bus: bus.into(),
            path: path.into(),
        }
    }

    /// Whether AT-SPI's null reference (`/org/a11y/atspi/null`).
    pub fn is_null(&self) -> bool {
        self.path.ends_with("/null") || self.bus.is_empty()
    }
}

/// One accessible node as read from the bus.
#[derive(Debug, Clone)]
pub struct Node {
    /// Identity.
    pub key: ObjKey,
    /// Numeric AT-SPI role.
    pub role: u32,
    /// Accessible name (raw).
    pub name: String,
    /// State set.
    pub states: StateSet,
    /// Interface names (`org.a11y.atspi.Action`, …).
    pub interfaces: Vec<String>,
    /// Screen rect `[left, top, right, bottom]`, when it has a Component and real extents.
    pub rect: Option<[i32; 4]>,
    /// Keys of the `labelled-by` relation targets.
    pub labelled_by: Vec<ObjKey>,
    /// Index of the parent in [`Tree::nodes`].
    pub parent: Option<usize>,
    /// Indices of the children in [`Tree::nodes`] (only those walked).
    pub children: Vec<usize>,
    /// Depth below the tree's root (root = 0).
    pub depth: usize,
    /// Inside the content of a scrolled container (below a scroll pane or viewport), where a
    /// node without extents is scrolled out of view rather than hidden.
    pub scrolled: bool,
    /// For a container too large to read whole (a spreadsheet), the part whose children were
    /// read: the names of its first and last cell in view (`A1:P46`).
    pub visible_part: Option<String>,
}

impl Node {
    /// Whether it implements `iface` (short name: `Action`, `Text`, `EditableText`, …).
    pub fn has(&self, iface: &str) -> bool {
        self.interfaces
            .iter()
            .any(|i| i.rsplit('.').next() == Some(iface))
    }

    /// Whether a state is set.
    pub fn is(&self, s: State) -> bool {
        self.states.contains(s)
    }
}

/// A walked subtree in document order (depth first): `nodes[0]` is the root.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// The nodes, depth-first.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// Index of a node by key.
    pub fn index(&self) -> HashMap<&ObjKey, usize> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (&n.key, i))
            .collect()
    }
}

/// A D-Bus failure while reading the tree.
pub type A11yResult<T> = Result<T, zbus::Error>;

async fn call<B, R>(
    conn: &Connection,
    key: &ObjKey,
    iface: &str,
    method: &str,
    body: &B,
) -> A11yResult<R>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
    R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
{
    let reply = conn
        .call_method(
            Some(key.bus.as_str()),
            key.path.as_str(),
            Some(iface),
            method,
            body,
        )
        .await?;
    reply.body().deserialize()
}

/// A property of `key` (via `org.freedesktop.DBus.Properties.Get`).
pub async fn get_property(
    conn: &Connection,
    key: &ObjKey,
    iface: &str,
    prop: &str,
) -> A11yResult<OwnedValue> {
    call(conn, key, PROPERTIES, "Get", &(iface, prop)).await
}

/// The accessible name of `key`.
pub async fn name(conn: &Connection, key: &ObjKey) -> A11yResult<String> {
    let v = get_property(conn, key, ACCESSIBLE, "Name").await?;
    Ok(String::try_from(v).unwrap_or_default())
}

/// The children of `key`.
pub async fn children(conn: &Connection, key: &ObjKey) -> A11yResult<Vec<ObjKey>> {
    let kids: Vec<(String, OwnedObjectPath)> =
        call(conn, key, ACCESSIBLE, "GetChildren", &()).await?;
    Ok(kids
        .into_iter()
        .map(|(b, p)| ObjKey::new(b, p.as_str()))
        .filter(|k| !k.is_null())
        .collect())
}

/// The parent of `key` (`None` at the top, or when it has none any more).
pub async fn parent(conn: &Connection, key: &ObjKey) -> A11yResult<Option<ObjKey>> {
    let v = get_property(conn, key, ACCESSIBLE, "Parent").await?;
    let (bus, path): (String, OwnedObjectPath) = v
        .try_into()
        .map_err(|e: zbus::zvariant::Error| zbus::Error::Variant(e))?;
    let parent = ObjKey::new(bus, path.as_str());
    Ok((!parent.is_null()).then_some(parent))
}

/// Role of `key`.
pub async fn role(conn: &Connection, key: &ObjKey) -> A11yResult<u32> {
    call(conn, key, ACCESSIBLE, "GetRole", &()).await
}

/// State set of `key`.
pub async fn states(conn: &Connection, key: &ObjKey) -> A11yResult<StateSet> {
    let words: Vec<u32> = call(conn, key, ACCESSIBLE, "GetState", &()).await?;
    let bits = u64::from(words.first().copied().unwrap_or(0))
        | (u64::from(words.get(1).copied().unwrap_or(0)) << 32);
    // Unknown bits from a newer toolkit are dropped, the known ones kept.
    let mut set = StateSet::empty();
    for i in 0..64 {
        if bits & (1 << i) != 0
            && let Ok(one) = StateSet::from_bits(1 << i)
        {
            for st in one.iter() {
                set.insert(st);
            }
        }
    }
    Ok(set)
}

/// Screen extents of `key` as `[left, top, right, bottom]`; `None` for none or off-screen
/// sentinels (closed GTK3 menus report `i32::MIN`).
pub async fn extents(conn: &Connection, key: &ObjKey) -> A11yResult<Option<[i32; 4]>> {
    let (x, y, w, h): (i32, i32, i32, i32) =
        call(conn, key, COMPONENT, "GetExtents", &(0u32,)).await?;
    Ok(rect_of(x, y, w, h))
}

fn rect_of(x: i32, y: i32, w: i32, h: i32) -> Option<[i32; 4]> {
    if x <= -1_000_000 || y <= -1_000_000 || w <= 0 || h <= 0 {
        return None;
    }
    Some([x, y, x.saturating_add(w), y.saturating_add(h)])
}

/// Targets of `key`'s `labelled-by` relations (none on error).
pub async fn labelled_by(conn: &Connection, key: &ObjKey) -> Vec<ObjKey> {
    call::<_, Vec<(u32, Vec<(String, OwnedObjectPath)>)>>(
        conn,
        key,
        ACCESSIBLE,
        "GetRelationSet",
        &(),
    )
    .await
    .unwrap_or_default()
    .into_iter()
    .filter(|(t, _)| *t == RELATION_LABELLED_BY)
    .flat_map(|(_, targets)| targets)
    .map(|(b, p)| ObjKey::new(b, p.as_str()))
    .collect()
}

/// AtspiRole SCROLL_PANE and VIEWPORT: containers that clip their content to their extents.
pub const SCROLLER_ROLES: [u32; 2] = [49, 68];

/// The number of children of `key`.
pub async fn child_count(conn: &Connection, key: &ObjKey) -> A11yResult<i32> {
    let v = get_property(conn, key, ACCESSIBLE, "ChildCount").await?;
    Ok(i32::try_from(v).unwrap_or(0))
}

/// The applications on the desktop (children of the registry root).
pub async fn applications(conn: &Connection) -> A11yResult<Vec<ObjKey>> {
    children(
        conn,
        &ObjKey::new("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root"),
    )
    .await
}

/// Asks `org.a11y.Bus` on the session bus `session` for the accessibility bus address; the
/// reply's body is the address.
pub async fn ask_a11y_address(session: &Connection) -> A11yResult<zbus::Message> {
    session
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.a11y.Bus"),
            "GetAddress",
            &(),
        )
        .await
}

/// Unix pid of the process owning bus name `bus` on the bus of `conn` (the accessibility bus,
/// or any other).
pub async fn bus_pid(conn: &Connection, bus: &str) -> Option<u32> {
    let reply = conn
        .call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus"),
            "GetConnectionUnixProcessID",
            &(bus,),
        )
        .await
        .ok()?;
    reply.body().deserialize().ok()
}

/// Text of a node with the Text interface (all characters).
pub async fn text(conn: &Connection, key: &ObjKey) -> A11yResult<String> {
    call(conn, key, "org.a11y.atspi.Text", "GetText", &(0i32, -1i32)).await
}

/// Current value of a node with the Value interface.
pub async fn current_value(conn: &Connection, key: &ObjKey) -> A11yResult<f64> {
    let v = get_property(conn, key, "org.a11y.atspi.Value", "CurrentValue").await?;
    Ok(f64::try_from(v).unwrap_or(0.0))
}

/// Runs action `index` of a node with the Action interface.
pub async fn do_action(conn: &Connection, key: &ObjKey, index: i32) -> A11yResult<bool> {
    call(conn, key, "org.a11y.atspi.Action", "DoAction", &(index,)).await
}

/// Replaces the whole text of a node with EditableText.
pub async fn set_text_contents(conn: &Connection, key: &ObjKey, text: &str) -> A11yResult<bool> {
    call(
        conn,
        key,
        "org.a11y.atspi.EditableText",
        "SetTextContents",
        &(text,),
    )
    .await
}

/// Gives keyboard focus to a node with Component.
pub async fn grab_focus(conn: &Connection, key: &ObjKey) -> A11yResult<bool> {
    call(conn, key, COMPONENT, "GrabFocus", &()).await
}

/// Selects child `index` of a node with Selection.
pub async fn select_child(conn: &Connection, key: &ObjKey, index: i32) -> A11yResult<bool> {
    call(
        conn,
        key,
        "org.a11y.atspi.Selection",
        "SelectChild",
        &(index,),
    )
    .await
}

/// The interface names of a node (`org.a11y.atspi.Table`, …).
pub async fn interfaces(conn: &Connection, key: &ObjKey) -> A11yResult<Vec<String>> {
    call(conn, key, ACCESSIBLE, "GetInterfaces", &()).await
}

/// The table row of child `index` of a node with Table (-1 for a column header).
pub async fn row_at_index(conn: &Connection, key: &ObjKey, index: i32) -> A11yResult<i32> {
    call(
        conn,
        key,
        "org.a11y.atspi.Table",
        "GetRowAtIndex",
        &(index,),
    )
    .await
}

/// Selects table row `row` of a node with Table (the toolkit's selection mode applies: a
/// single-selection table drops the previous row).
pub async fn add_row_selection(conn: &Connection, key: &ObjKey, row: i32) -> A11yResult<bool> {
    call(
        conn,
        key,
        "org.a11y.atspi.Table",
        "AddRowSelection",
        &(row,),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_screen_sentinels_have_no_rect() {
        assert_eq!(rect_of(i32::MIN, i32::MIN, 1, 1), None);
        assert_eq!(rect_of(10, 20, 0, 5), None);
        assert_eq!(rect_of(10, 20, 30, 5), Some([10, 20, 40, 25]));
    }
}
