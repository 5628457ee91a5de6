//! The views of a screen as deft's controls (docs/observation.md): what a model can act on or
//! read, typed from the view's class, named as a person would call it, with states and rects.
//!
//! Android puts a list row's words in its children: a clickable `LinearLayout` holds a title
//! and a summary `TextView`. Such a row is one control named by its first words, and the words
//! inside it are its row text (listed with `field_list: ["text"]`). Layout containers with
//! nothing to say and nothing to do are left out (their children are not). A view with no area
//! on the screen (a list's clipped edge, a hidden bar) is left out: nothing can tap it.

use deft_protocol::observation::{Control, ControlType, StateFlag};

use crate::ui_tree::{UiNode, UiScreen};

/// A screen's controls in drawing order with how many listed controls enclose each (the
/// matcher's `within` and the listing's `subtree` read the nesting from it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed {
    /// The controls, in drawing order.
    pub controls: Vec<Control>,
    /// `depths[i]`: how many listed controls enclose `controls[i]`.
    pub depths: Vec<u32>,
}

/// A screen's controls in drawing order; `id` names each (the session keeps ids stable).
pub fn controls(screen: &UiScreen, id: impl FnMut(&UiNode) -> String) -> Vec<Control> {
    listed(screen, id).controls
}

/// A screen's controls with their nesting depths; `id` names each.
pub fn listed(screen: &UiScreen, mut id: impl FnMut(&UiNode) -> String) -> Listed {
    let mut out = Listed::default();
    for root in &screen.roots {
        collect(root, Parent::Screen, 0, &mut id, &mut out);
    }
    out
}

/// What holds a view, as far as naming it goes.
#[derive(Clone, Copy, PartialEq)]
enum Parent {
    /// Nothing that acts: its words stand on their own.
    Screen,
    /// A list: an acting child is an item of it.
    List,
    /// A control that acts: words inside it are its row text.
    Acting,
}

fn collect(
    node: &UiNode,
    parent: Parent,
    depth: u32,
    id: &mut impl FnMut(&UiNode) -> String,
    out: &mut Listed,
) {
    let class_type = ControlType::from_android_class(&node.class);
    let acting = acts(node, class_type);
    let kind = control_type(node, class_type, acting, parent);
    let labelled = !label(node).is_empty();
    let shown = node.area() > 0 && (acting || labelled || class_type == ControlType::List);
    if shown {
        out.controls
            .push(control(node, kind, acting, parent, id(node)));
        out.depths.push(depth);
    }
    let depth = if shown { depth + 1 } else { depth };
    let inner = match (acting, class_type) {
        (_, ControlType::List) => Parent::List,
        (true, _) => Parent::Acting,
        (false, _) => parent,
    };
    for child in &node.children {
        collect(child, inner, depth, id, out);
    }
}

/// Whether a tap, a long press, typing or a scroll does something on it.
fn acts(node: &UiNode, class_type: ControlType) -> bool {
    node.clickable
        || node.long_clickable
        || node.checkable
        || node.scrollable
        || class_type == ControlType::Edit
}

fn control_type(
    node: &UiNode,
    class_type: ControlType,
    acting: bool,
    parent: Parent,
) -> ControlType {
    match class_type {
        ControlType::Group | ControlType::Other if node.checkable => ControlType::Checkbox,
        ControlType::Group | ControlType::Other if acting && parent == Parent::List => {
            ControlType::Listitem
        }
        ControlType::Group | ControlType::Other if node.scrollable => ControlType::List,
        ControlType::Group | ControlType::Other if acting => ControlType::Button,
        ControlType::Group | ControlType::Other if !label(node).is_empty() => ControlType::Text,
        other => other,
    }
}

/// What the view says of itself: its text, else its content description (an edit's text is
/// its value, not its name).
fn label(node: &UiNode) -> &str {
    let text = node.text.trim();
    if !text.is_empty() && ControlType::from_android_class(&node.class) != ControlType::Edit {
        text
    } else {
        node.content_desc.trim()
    }
}

/// The words of the views inside `node`, in drawing order.
fn inner_words(node: &UiNode) -> Vec<&str> {
    node.children
        .iter()
        .flat_map(UiNode::walk)
        .map(label)
        .filter(|w| !w.is_empty())
        .collect()
}

/// The id part of a resource id (`com.app:id/search_bar` → `search_bar`).
fn resource_name(node: &UiNode) -> &str {
    node.resource_id
        .rsplit_once(":id/")
        .map_or(node.resource_id.as_str(), |(_, name)| name)
}

fn control(node: &UiNode, kind: ControlType, acting: bool, parent: Parent, id: String) -> Control {
    let name = match kind {
        ControlType::Edit => [
            node.hint.trim(),
            node.content_desc.trim(),
            resource_name(node),
        ]
        .into_iter()
        .find(|n| !n.is_empty())
        .unwrap_or_default()
        .to_owned(),
        _ => match label(node) {
            "" if acting => inner_words(node)
                .into_iter()
                .next()
                .unwrap_or("")
                .to_owned(),
            own => own.to_owned(),
        },
    };
    let mut c = Control::new(id, kind, name).with_interactive(acting);
    if kind == ControlType::Edit {
        // An empty field shows its hint as its text on older Android.
        let typed = if node.text == node.hint {
            ""
        } else {
            &node.text
        };
        c = c.with_value(typed);
    }
    let states = [
        (!node.enabled, StateFlag::Disabled),
        (node.focused, StateFlag::Focused),
        (node.checked, StateFlag::Checked),
        (node.selected, StateFlag::Selected),
    ];
    c = c.with_states(states.into_iter().filter(|(on, _)| *on).map(|(_, f)| f));
    if let Some(rect) = node.bounds {
        c = c.with_rect(rect);
    }
    if !acting && parent == Parent::Acting {
        c = c.as_row_text();
    }
    if !node.resource_id.is_empty() {
        c = c.with_extra("resource_id", node.resource_id.clone());
    }
    if acting && label(node).is_empty() {
        let words = inner_words(node);
        if words.len() > 1 {
            c = c.with_extra("text", words.join(" · "));
        }
    }
    c.with_extra("role", node.class.clone())
}
