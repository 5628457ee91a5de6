//! A `uiautomator dump` read into a tree of views.
//!
//! Real dumps come in several dialects, and the reader takes them all: one line as
//! `uiautomator dump` writes it or pretty-printed by a tool; inside `<hierarchy rotation="R">`
//! or without it; with newer attributes (`drawing-order`, `hint`) or the androidx dumper's
//! (`visible-to-user`, `window-id`, `pane-title` …), which are ignored when unknown; after noise a
//! vendor build prints first, and before the `UI hierchary dumped to: /dev/tty` trailer that
//! `exec-out uiautomator dump /dev/tty` appends to the XML. Bounds are physical pixels; a
//! degenerate box (`[0,0][0,0]`, or `y2 < y1` at a list's clipped edge) is kept as the phone
//! said it, and [`UiNode::area`] is 0 for it.

use roxmltree::{Document, Node};

use crate::texts;

/// Why a dump could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DumpError {
    /// `uiautomator` printed an error instead of a dump (the screen animating, no window).
    #[error("{}", texts::dump_failed(.0))]
    Failed(String),
    /// The text is not XML.
    #[error("{}", texts::dump_unreadable(.0))]
    Unreadable(String),
    /// The XML holds no view.
    #[error("{}", texts::DUMP_EMPTY)]
    Empty,
}

/// One screen as a dump describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct UiScreen {
    /// The display's rotation: 0 natural, 1 = 90°, 2 = 180°, 3 = 270°.
    pub rotation: u8,
    /// The top-level views (usually one; several for a multi-window dump).
    pub roots: Vec<UiNode>,
}

/// One view of a dump, with its children in drawing order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UiNode {
    /// The view's class (`android.widget.Button`).
    pub class: String,
    /// Its text (for an edit: what is typed in it).
    pub text: String,
    /// Its resource id (`com.android.settings:id/title`), often empty.
    pub resource_id: String,
    /// The app it belongs to.
    pub package: String,
    /// Its content description (what a screen reader says; Flutter's labels live here).
    pub content_desc: String,
    /// The hint of an edit (newer Android).
    pub hint: String,
    /// `[left, top, right, bottom]` in physical pixels, as the phone said it.
    pub bounds: Option<[i32; 4]>,
    /// Can be checked.
    pub checkable: bool,
    /// Is checked.
    pub checked: bool,
    /// Reacts to a tap.
    pub clickable: bool,
    /// Reacts to a long press.
    pub long_clickable: bool,
    /// Enabled (the default when a dump does not say).
    pub enabled: bool,
    /// Can take the focus.
    pub focusable: bool,
    /// Has the focus.
    pub focused: bool,
    /// Scrolls.
    pub scrollable: bool,
    /// A password field.
    pub password: bool,
    /// Selected.
    pub selected: bool,
    /// Its children.
    pub children: Vec<UiNode>,
}

impl UiNode {
    /// The area of its bounds in pixels; 0 for no bounds or a degenerate box.
    pub fn area(&self) -> i64 {
        match self.bounds {
            Some([l, t, r, b]) if r > l && b > t => i64::from(r - l) * i64::from(b - t),
            _ => 0,
        }
    }

    /// Its centre, where a tap lands; `None` without an area.
    pub fn centre(&self) -> Option<(i32, i32)> {
        let [l, t, r, b] = self.bounds?;
        (self.area() > 0).then_some(((l + r) / 2, (t + b) / 2))
    }

    /// This view and every view below it, depth first, in drawing order.
    pub fn walk(&self) -> Vec<&UiNode> {
        let mut out = vec![self];
        for child in &self.children {
            out.extend(child.walk());
        }
        out
    }
}

impl UiScreen {
    /// Every view of the screen, depth first.
    pub fn nodes(&self) -> Vec<&UiNode> {
        self.roots.iter().flat_map(UiNode::walk).collect()
    }

    /// The app most of the screen belongs to (the package of the largest top-level view).
    pub fn package(&self) -> Option<&str> {
        self.roots
            .iter()
            .max_by_key(|r| r.area())
            .map(|r| r.package.as_str())
            .filter(|p| !p.is_empty())
    }
}

/// Reads what `uiautomator dump` printed or wrote.
pub fn parse_dump(said: &str) -> Result<UiScreen, DumpError> {
    let Some(start) = ["<?xml", "<hierarchy", "<node"]
        .iter()
        .filter_map(|m| said.find(m))
        .min()
    else {
        let said = said.trim();
        return Err(match said {
            "" => DumpError::Empty,
            _ => DumpError::Failed(said.lines().next().unwrap_or(said).to_owned()),
        });
    };
    // The `/dev/tty` trailer (and any noise after it) follows the last tag.
    let end = said.rfind('>').map_or(said.len(), |i| i + 1);
    let xml = &said[start..end.max(start)];
    let doc = Document::parse(xml).map_err(|e| DumpError::Unreadable(e.to_string()))?;
    let root = doc.root_element();
    let (rotation, tops): (u8, Vec<Node>) = if root.has_tag_name("hierarchy") {
        let rotation = root
            .attribute("rotation")
            .and_then(|r| r.trim().parse().ok())
            .unwrap_or(0);
        (rotation, element_children(root))
    } else {
        (0, vec![root])
    };
    let roots: Vec<UiNode> = tops
        .into_iter()
        .filter(|n| n.has_tag_name("node"))
        .map(read_node)
        .collect();
    if roots.is_empty() {
        return Err(DumpError::Empty);
    }
    Ok(UiScreen { rotation, roots })
}

fn element_children<'a, 'i>(node: Node<'a, 'i>) -> Vec<Node<'a, 'i>> {
    node.children().filter(Node::is_element).collect()
}

fn read_node(node: Node) -> UiNode {
    let text = |name: &str| node.attribute(name).unwrap_or_default().to_owned();
    let flag = |name: &str, default: bool| {
        node.attribute(name)
            .map_or(default, |v| v.trim().eq_ignore_ascii_case("true"))
    };
    UiNode {
        class: text("class"),
        text: text("text"),
        resource_id: text("resource-id"),
        package: text("package"),
        content_desc: text("content-desc"),
        hint: text("hint"),
        bounds: node.attribute("bounds").and_then(parse_bounds),
        checkable: flag("checkable", false),
        checked: flag("checked", false),
        clickable: flag("clickable", false),
        long_clickable: flag("long-clickable", false),
        enabled: flag("enabled", true),
        focusable: flag("focusable", false),
        focused: flag("focused", false),
        scrollable: flag("scrollable", false),
        password: flag("password", false),
        selected: flag("selected", false),
        children: element_children(node)
            .into_iter()
            .filter(|n| n.has_tag_name("node"))
            .map(read_node)
            .collect(),
    }
}

/// `[x1,y1][x2,y2]` as `[x1, y1, x2, y2]`.
fn parse_bounds(text: &str) -> Option<[i32; 4]> {
    let numbers: Vec<i32> = text
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    <[i32; 4]>::try_from(numbers).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_and_degenerate_boxes_have_no_area() {
        assert_eq!(parse_bounds("[0,63][1080,1920]"), Some([0, 63, 1080, 1920]));
        assert_eq!(parse_bounds("[1,2][3]"), None);
        assert_eq!(parse_bounds("junk"), None);
        let node = |b| UiNode {
            bounds: Some(b),
            ..UiNode::default()
        };
        assert_eq!(node([41, 2203, 184, 2183]).area(), 0);
        assert_eq!(node([0, 0, 0, 0]).centre(), None);
        assert_eq!(node([0, 0, 10, 20]).centre(), Some((5, 10)));
    }

    #[test]
    fn errors_instead_of_a_dump_are_said() {
        assert_eq!(
            parse_dump("ERROR: could not get idle state.\n"),
            Err(DumpError::Failed("ERROR: could not get idle state.".into()))
        );
        assert_eq!(parse_dump("  "), Err(DumpError::Empty));
        assert!(matches!(
            parse_dump("<hierarchy><node"),
            Err(DumpError::Unreadable(_))
        ));
        assert_eq!(
            parse_dump("<hierarchy rotation=\"0\"></hierarchy>"),
            Err(DumpError::Empty)
        );
    }

    #[test]
    fn the_tty_trailer_and_vendor_noise_are_cut_off() {
        let said = "java.io.FileNotFoundException: /sys/board_info\n<?xml version='1.0' ?>\
                    <hierarchy rotation=\"3\"><node class=\"android.widget.TextView\" \
                    text=\"a &amp; b&#10;c\" bounds=\"[0,0][10,10]\"/></hierarchy>\
                    UI hierchary dumped to: /dev/tty\n";
        let screen = parse_dump(said).unwrap();
        assert_eq!(screen.rotation, 3);
        assert_eq!(screen.roots[0].text, "a & b\nc");
        assert!(
            screen.roots[0].enabled,
            "enabled when the dump does not say"
        );
        let bare = parse_dump("<node class=\"android.view.View\" package=\"p\"/>").unwrap();
        assert_eq!(bare.roots.len(), 1);
        assert_eq!(bare.package(), Some("p"));
    }
}
