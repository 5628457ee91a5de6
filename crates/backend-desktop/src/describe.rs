//! From a walked accessibility tree to the controls of docs/observation.md: names a model can
//! use, types from the numeric role, state flags, values, what is interactive and what is listed.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use atspi::State;
use deft_protocol::observation::{ControlType, StateFlag, clean_name};

use crate::a11y::{Node, ObjKey, SCROLLER_ROLES, Tree};

/// AT-SPI roles used here by number (AtspiRole).
pub(crate) mod role {
    pub const LABEL: u32 = 29;
    pub const MENU: u32 = 33;
    pub const MENU_BAR: u32 = 34;
    pub const PASSWORD_TEXT: u32 = 40;
    pub const SCROLL_BAR: u32 = 48;
    pub const SEPARATOR: u32 = 50;
    pub const STATIC: u32 = 116;
}

/// A control of a window, described for the listing and for actions.
#[derive(Debug, Clone)]
pub struct Described {
    /// Its accessible object.
    pub key: ObjKey,
    /// Control type.
    pub kind: ControlType,
    /// Raw AT-SPI role number.
    pub role: u32,
    /// A name a model can use (cleaned).
    pub name: String,
    /// Value (edits, combo boxes, sliders …), filled by the caller for edits and ranges.
    pub value: Option<String>,
    /// State flags.
    pub states: BTreeSet<StateFlag>,
    /// Screen rect.
    pub rect: Option<[i32; 4]>,
    /// Whether an action can operate it.
    pub interactive: bool,
    /// Non-interactive text in a row that holds an interactive control.
    pub row_text: bool,
    /// Whether it is listed (else it is only known for the digest and naming).
    pub listed: bool,
    /// Whether it has the Text interface.
    pub has_text: bool,
    /// Whether it has EditableText.
    pub editable: bool,
    /// Whether it has Value.
    pub has_value: bool,
    /// Index of its node in the tree.
    pub node: usize,
    /// Inside a scrolled container's content (see [`crate::a11y::Node::scrolled`]).
    pub scrolled: bool,
    /// The scrolled containers around it (scroll panes and viewports, nearest first): the
    /// overlap of their extents is its visible area.
    pub clips: Vec<ObjKey>,
}

/// GTK4 names buttons with their label twice ("7 7"): keep one.
pub fn undouble(name: &str) -> String {
    let n = clean_name(name);
    let words: Vec<&str> = n.split(' ').collect();
    if words.len() >= 2 && words.len().is_multiple_of(2) {
        let half = words.len() / 2;
        if words[..half] == words[half..] {
            return words[..half].join(" ");
        }
    }
    n
}

fn is_label(n: &Node) -> bool {
    matches!(n.role, role::LABEL | role::STATIC)
}

/// Widget class names GTK4 uses as accessible names; not names a model can use.
fn is_class_name(name: &str) -> bool {
    let n = name.trim();
    (n.starts_with("Gtk") || n.starts_with("Adw") || n.starts_with("GtkSource"))
        && !n.contains(' ')
        && n.chars().nth(3).is_some_and(char::is_uppercase)
}

fn is_container(kind: ControlType) -> bool {
    use ControlType::*;
    matches!(
        kind,
        Dialog | Table | List | Tree | Tab | Menu | Menubar | Toolbar | Group | Document
    )
}

fn listed_when_named(kind: ControlType) -> bool {
    use ControlType::*;
    matches!(
        kind,
        Text | Heading | Image | Cell | Columnheader | Progressbar | Statusbar
    )
}

fn state_flags(
    n: &Node,
    kind: ControlType,
    editable: bool,
    visible_area: Option<[i32; 4]>,
) -> BTreeSet<StateFlag> {
    let mut s = BTreeSet::new();
    if !enabled(n) {
        s.insert(StateFlag::Disabled);
    }
    if n.is(State::Focused) {
        s.insert(StateFlag::Focused);
    }
    if n.is(State::Indeterminate) && matches!(kind, ControlType::Checkbox | ControlType::Radio) {
        s.insert(StateFlag::Mixed);
    } else if n.is(State::Checked) || (n.is(State::Pressed) && kind == ControlType::Button) {
        s.insert(StateFlag::Checked);
    }
    if n.is(State::Selected)
        && matches!(
            kind,
            ControlType::Listitem
                | ControlType::Tabitem
                | ControlType::Treeitem
                | ControlType::Row
                | ControlType::Cell
        )
    {
        s.insert(StateFlag::Selected);
    }
    if n.is(State::Expandable) || n.is(State::Expanded) {
        s.insert(if n.is(State::Expanded) {
            StateFlag::Expanded
        } else {
            StateFlag::Collapsed
        });
    }
    if kind == ControlType::Edit && editable && !n.is(State::Editable) {
        s.insert(StateFlag::Readonly);
    }
    if n.is(State::Required) {
        s.insert(StateFlag::Required);
    }
    if n.is(State::InvalidEntry) {
        s.insert(StateFlag::Invalid);
    }
    if offscreen(n, visible_area) {
        s.insert(StateFlag::Offscreen);
    }
    s
}

/// Whether a node is outside the visible area: scrolled out of a scrolled container (no extents
/// there), or extents that miss the area (the window, clipped by the scrolled containers around).
fn offscreen(n: &Node, visible_area: Option<[i32; 4]>) -> bool {
    match (n.rect, visible_area) {
        (None, _) => n.scrolled,
        (Some(r), Some(area)) => intersect(r, area).is_none(),
        (Some(_), None) => false,
    }
}

/// The overlap of two rects, if they overlap.
pub fn intersect(a: [i32; 4], b: [i32; 4]) -> Option<[i32; 4]> {
    let r = [
        a[0].max(b[0]),
        a[1].max(b[1]),
        a[2].min(b[2]),
        a[3].min(b[3]),
    ];
    (r[0] < r[2] && r[1] < r[3]).then_some(r)
}

/// Per node: the visible area, the window's rect clipped by every scroll pane and viewport
/// around the node. Nodes are in depth-first order, so a parent comes before its children.
fn visible_areas(tree: &Tree) -> Vec<Option<[i32; 4]>> {
    let mut out: Vec<Option<[i32; 4]>> = Vec::with_capacity(tree.nodes.len());
    for n in &tree.nodes {
        let area = match n.parent {
            None => n.rect,
            Some(p) => {
                let (area, parent) = (out[p], &tree.nodes[p]);
                match (area, parent.rect) {
                    (Some(a), Some(r)) if SCROLLER_ROLES.contains(&parent.role) => {
                        Some(intersect(a, r).unwrap_or([r[0], r[1], r[0], r[1]]))
                    }
                    (a, _) => a,
                }
            }
        };
        out.push(area);
    }
    out
}

/// The keys of the scroll panes and viewports around node `i`, nearest first.
fn scrollers_around(tree: &Tree, i: usize) -> Vec<ObjKey> {
    let mut out = Vec::new();
    let mut p = tree.nodes[i].parent;
    while let Some(pi) = p {
        if SCROLLER_ROLES.contains(&tree.nodes[pi].role) {
            out.push(tree.nodes[pi].key.clone());
        }
        p = tree.nodes[pi].parent;
    }
    out
}

/// Enabled in the toolkit's terms: GTK4 children report only `sensitive`.
pub fn enabled(n: &Node) -> bool {
    n.is(State::Enabled) || n.is(State::Sensitive)
}

/// Describes every node under the window root (`tree.nodes[0]`).
pub fn describe(tree: &Tree) -> Vec<Described> {
    let index = tree.index();
    let areas = visible_areas(tree);
    // Labels that name another control are not listed again.
    let mut used_labels: HashSet<usize> = HashSet::new();
    let mut out: Vec<Described> = tree
        .nodes
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, n)| shown(n))
        .map(|(i, _)| describe_node(tree, &index, i, areas[i], &mut used_labels))
        .collect();
    decide_listed(&mut out, &used_labels);
    out
}

/// Whether a node is shown: visible or showing, and with extents. No extents: hidden (a closed
/// menu), unless scrolled out of a scrolled container (listed, flagged offscreen). A scroll
/// pane's hidden scroll bar is no row.
fn shown(n: &Node) -> bool {
    if !n.is(State::Visible) && !n.is(State::Showing) {
        return false;
    }
    // A closed menu's items are hidden, even below a scroll pane.
    if is_menu_item(n) && !n.is(State::Showing) {
        return false;
    }
    !(n.has("Component") && n.rect.is_none() && !(n.scrolled && n.role != role::SCROLL_BAR))
}

/// Menus and their items (MENU, MENU_ITEM, CHECK_MENU_ITEM, RADIO_MENU_ITEM).
fn is_menu_item(n: &Node) -> bool {
    matches!(n.role, 33 | 35 | 8 | 45)
}

/// Describes node `i`, shown in `area`; the labels that name it go into `used_labels`.
fn describe_node(
    tree: &Tree,
    index: &HashMap<&ObjKey, usize>,
    i: usize,
    area: Option<[i32; 4]>,
    used_labels: &mut HashSet<usize>,
) -> Described {
    let n = &tree.nodes[i];
    let (kind, interactive) = kind_of(tree, n);
    let (name, mut value) = name_of(tree, index, i, kind, interactive, used_labels);
    // A table read only in part (a spreadsheet) says which part is in view.
    if let Some(part) = &n.visible_part {
        value = Some(format!("in view {part}"));
    }
    let editable = n.has("EditableText");
    Described {
        key: n.key.clone(),
        kind,
        role: n.role,
        name,
        value,
        states: state_flags(n, kind, editable, area),
        rect: n.rect,
        interactive,
        row_text: false,
        listed: false,
        has_text: n.has("Text"),
        editable,
        has_value: n.has("Value"),
        node: i,
        scrolled: n.scrolled,
        clips: scrollers_around(tree, i),
    }
}

/// The control type of node `n`, and whether a model can act on it.
fn kind_of(tree: &Tree, n: &Node) -> (ControlType, bool) {
    let mut kind = ControlType::from_atspi_role(n.role);
    // GTK3 menu bar entries and submenus are menus; to a model they are menu items it clicks.
    if kind == ControlType::Menu
        && n.parent
            .is_some_and(|p| matches!(tree.nodes[p].role, role::MENU_BAR | role::MENU))
    {
        kind = ControlType::Menuitem;
    }
    let editable = n.has("EditableText");
    let has_action = n.has("Action");
    // GTK4 puts Action on every widget, and makes containers focusable: neither makes a
    // container or a text interactive.
    // GTK3 menu separators are menu items with an action; they do nothing.
    let plain = is_container(kind)
        || is_label(n)
        || n.role == role::SEPARATOR
        || matches!(
            kind,
            ControlType::Text | ControlType::Image | ControlType::Window
        );
    let interactive =
        kind.is_widget() || editable || (!plain && (has_action || n.is(State::Focusable)));
    let kind = if kind == ControlType::Other && interactive && has_action {
        ControlType::Button
    } else {
        kind
    };
    (kind, interactive)
}

/// The name of node `i` and, for a combo box, its value: its own name, else (when it has none
/// a model can use) a label's — the one it is labelled by, its own label child, or the label
/// beside it. The labels it takes go into `used_labels`.
fn name_of(
    tree: &Tree,
    index: &HashMap<&ObjKey, usize>,
    i: usize,
    kind: ControlType,
    interactive: bool,
    used_labels: &mut HashSet<usize>,
) -> (String, Option<String>) {
    let n = &tree.nodes[i];
    let mut name = undouble(&n.name);
    if is_class_name(&name) {
        name.clear();
    }
    let mut value = None;
    // A GTK3 combo box is named after its current value; with a label it gets the label.
    let labelled: Option<usize> = n.labelled_by.iter().find_map(|k| index.get(k).copied());
    if let Some(li) = labelled {
        let label = undouble(&tree.nodes[li].name);
        if !label.is_empty() {
            if kind == ControlType::Combobox && !name.is_empty() {
                value = Some(name.clone());
            }
            name = strip_mnemonic(&label);
            used_labels.insert(li);
        }
    }
    let own_label = interactive && !matches!(kind, ControlType::Edit | ControlType::Combobox);
    if name.is_empty() && interactive {
        if own_label && let Some(li) = child_label(tree, i) {
            name = undouble(&tree.nodes[li].name);
            used_labels.insert(li);
        } else if matches!(
            kind,
            ControlType::Edit | ControlType::Combobox | ControlType::Slider | ControlType::Spinner
        ) && let Some(li) = label_by_geometry(tree, i)
        {
            name = strip_mnemonic(&undouble(&tree.nodes[li].name));
            used_labels.insert(li);
        }
    } else if own_label {
        // A button's own label child is not listed again.
        if let Some(li) = child_label(tree, i) {
            used_labels.insert(li);
        }
    }
    if is_class_name(&name) {
        name.clear();
    }
    if kind == ControlType::Combobox && value.is_none() && labelled.is_none() {
        value = Some(name.clone());
    }
    (name, value)
}

/// Decides what is listed: interactive controls, and named texts and containers that name no
/// other control; an edit without a value lists an empty one.
fn decide_listed(out: &mut [Described], used_labels: &HashSet<usize>) {
    for d in out.iter_mut() {
        let labels_other = used_labels.contains(&d.node);
        d.listed = if d.interactive {
            true
        } else if labels_other {
            false
        } else if listed_when_named(d.kind) || is_container(d.kind) {
            !d.name.is_empty()
        } else {
            false
        };
        if d.kind == ControlType::Edit && d.value.is_none() {
            d.value = Some(String::new());
        }
    }
}

fn strip_mnemonic(label: &str) -> String {
    label
        .replace('_', "")
        .trim_end_matches(':')
        .trim()
        .to_owned()
}

/// The first label among a node's descendants (a button's own label, GTK4's child labels).
fn child_label(tree: &Tree, i: usize) -> Option<usize> {
    let mut stack: Vec<usize> = tree.nodes[i].children.iter().rev().copied().collect();
    let mut seen = 0;
    while let Some(c) = stack.pop() {
        seen += 1;
        if seen > 12 {
            break;
        }
        let n = &tree.nodes[c];
        if is_label(n) && !clean_name(&n.name).is_empty() && !is_class_name(&n.name) {
            return Some(c);
        }
        stack.extend(n.children.iter().rev().copied());
    }
    None
}

/// Whether a node sits inside a widget (a button's own label is no label for its neighbours).
fn inside_widget(tree: &Tree, i: usize) -> bool {
    let mut p = tree.nodes[i].parent;
    for _ in 0..3 {
        let Some(pi) = p else { return false };
        if pi == 0 {
            return false;
        }
        if ControlType::from_atspi_role(tree.nodes[pi].role).is_widget() {
            return true;
        }
        p = tree.nodes[pi].parent;
    }
    false
}

/// The nearest label to the left on the same row, else just above.
fn label_by_geometry(tree: &Tree, i: usize) -> Option<usize> {
    let r = tree.nodes[i].rect?;
    let cy = (r[1] + r[3]) / 2;
    let mut best: Option<(i32, usize)> = None;
    for (j, n) in tree.nodes.iter().enumerate() {
        // Field labels are short; a sentence above an editor is a message, not its name.
        let text = clean_name(&n.name);
        if j == i
            || !is_label(n)
            || text.is_empty()
            || text.chars().count() > 40
            || inside_widget(tree, j)
        {
            continue;
        }
        let Some(l) = n.rect else { continue };
        let lcy = (l[1] + l[3]) / 2;
        let score = if l[2] <= r[0] + 4 && (lcy - cy).abs() <= (r[3] - r[1]) / 2 + 2 {
            r[0] - l[2]
        } else if l[3] <= r[1] + 4 && l[0] < r[2] && l[2] > r[0] {
            (r[1] - l[3]) + 1000
        } else {
            continue;
        };
        if score < 2000 && best.is_none_or(|(s, _)| score < s) {
            best = Some((score, j));
        }
    }
    best.map(|(_, j)| j)
}

/// A digest of the window's state (names, roles, states and values of every node) to tell
/// whether an action changed anything.
pub fn digest(tree: &Tree, values: &HashMap<ObjKey, String>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for n in &tree.nodes {
        hash_node(n, values.get(&n.key), &mut h);
    }
    h.finish()
}

/// The digest of one node (as [`digest`] counts it): tells whether an object that sent an
/// event reads differently now.
pub fn node_digest(n: &Node, value: Option<&String>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hash_node(n, value, &mut h);
    h.finish()
}

fn hash_node(n: &Node, value: Option<&String>, h: &mut impl Hasher) {
    n.key.hash(h);
    n.role.hash(h);
    n.name.hash(h);
    // Focus moves alone are not an effect.
    let mut bits = n.states.bits();
    bits &= !(State::Focused as u64);
    bits.hash(h);
    n.rect.hash(h);
    if let Some(v) = value {
        v.hash(h);
    }
}

/// Whether the control's type takes a value read through Text (edits, a spreadsheet's cells) or
/// Value (ranges).
pub fn value_source(d: &Described) -> Option<ValueSource> {
    match d.kind {
        ControlType::Edit if d.role == role::PASSWORD_TEXT => None,
        ControlType::Edit | ControlType::Cell if d.has_text => Some(ValueSource::Text),
        ControlType::Slider
        | ControlType::Spinner
        | ControlType::Scrollbar
        | ControlType::Progressbar
            if d.has_value =>
        {
            Some(ValueSource::Range)
        }
        _ => None,
    }
}

/// Whether a text's content is read (labels whose accessible name is fixed while their text
/// changes, like a result label; a document's paragraphs and headings, which have no name: their
/// text names them, see [`name_from_text`]).
pub fn digest_text(d: &Described) -> bool {
    matches!(d.kind, ControlType::Text | ControlType::Heading) && d.has_text
}

/// A paragraph or heading without a name (a document's body text) is named by its text and
/// listed, so a listing shows what the document says where it shows.
pub fn name_from_text(d: &mut Described, text: &str) {
    if matches!(d.kind, ControlType::Text | ControlType::Heading) && d.name.is_empty() {
        d.name = clean_name(text);
        if !d.name.is_empty() && d.kind == ControlType::Heading {
            d.listed = true;
        }
        if !d.name.is_empty() && d.kind == ControlType::Text && !d.row_text {
            d.listed = true;
        }
    }
}

/// Where a value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueSource {
    /// The Text interface.
    Text,
    /// The Value interface.
    Range,
}

/// Formats a range value as the toolkit reports it (integers without a fraction).
pub fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtk4_doubled_labels_are_cleaned() {
        assert_eq!(undouble("7 7"), "7");
        assert_eq!(undouble("= ="), "=");
        assert_eq!(undouble("Save As"), "Save As");
        assert_eq!(undouble("a b a b"), "a b");
    }

    #[test]
    fn widget_class_names_are_not_names() {
        assert!(is_class_name("GtkButton"));
        assert!(is_class_name("AdwGizmo"));
        assert!(!is_class_name("Gtk"));
        assert!(!is_class_name("Gtkfoo bar"));
    }

    #[test]
    fn numbers_print_like_the_toolkit() {
        assert_eq!(format_number(40.0), "40");
        assert_eq!(format_number(2.5), "2.5");
    }
}
