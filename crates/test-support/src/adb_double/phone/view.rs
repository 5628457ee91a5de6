//! The simulated phone's screens as view trees: built by the apps, read from recorded dumps,
//! written in the exact dialect of an Android 13/14 `uiautomator dump` (one line, the attribute
//! order of `AccessibilityNodeInfoDumper`, `drawing-order` and `hint` after `bounds`, empty
//! nodes self-closed), and hit by taps and swipes.

use std::fmt::Write as _;

/// A rectangle in screen pixels, `[left,top][right,bottom]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Rect {
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) right: i32,
    pub(crate) bottom: i32,
}

impl Rect {
    pub(crate) const fn new(left: i32, top: i32, right: i32, bottom: i32) -> Rect {
        Rect {
            left,
            top,
            right,
            bottom,
        }
    }

    /// Whether `(x, y)` is inside (right and bottom edges excluded, as Android's `Rect`).
    pub(crate) fn contains(&self, x: i32, y: i32) -> bool {
        self.left <= x && x < self.right && self.top <= y && y < self.bottom
    }

    /// The part inside `clip`, as uiautomator reports clipped views: the top and left clamped,
    /// the bottom and right clamped too (a view half below a list ends at the list's edge).
    pub(crate) fn clipped(&self, clip: &Rect) -> Rect {
        Rect::new(
            self.left.max(clip.left),
            self.top.max(clip.top),
            self.right.min(clip.right),
            self.bottom.min(clip.bottom),
        )
    }

    /// Whether it has no area.
    pub(crate) fn is_empty(&self) -> bool {
        self.right <= self.left || self.bottom <= self.top
    }
}

/// One view of a screen (one `<node>`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct View {
    pub(crate) class: String,
    pub(crate) text: String,
    pub(crate) id: String,
    pub(crate) package: String,
    pub(crate) desc: String,
    pub(crate) hint: String,
    pub(crate) checkable: bool,
    pub(crate) checked: bool,
    pub(crate) clickable: bool,
    pub(crate) enabled: bool,
    pub(crate) focusable: bool,
    pub(crate) focused: bool,
    pub(crate) scrollable: bool,
    pub(crate) long_clickable: bool,
    pub(crate) password: bool,
    pub(crate) selected: bool,
    pub(crate) bounds: Rect,
    pub(crate) children: Vec<View>,
}

impl View {
    /// A view of `class` (a full Android class name) in `package`.
    pub(crate) fn new(class: &str, package: &str, bounds: Rect) -> View {
        View {
            class: class.to_owned(),
            package: package.to_owned(),
            enabled: true,
            bounds,
            ..View::default()
        }
    }

    /// The same view with resource id `id`.
    pub(crate) fn id(mut self, id: &str) -> View {
        self.id = id.to_owned();
        self
    }

    /// The same view with text `text`.
    pub(crate) fn text(mut self, text: &str) -> View {
        self.text = text.to_owned();
        self
    }

    /// The same view with content description `desc`.
    pub(crate) fn desc(mut self, desc: &str) -> View {
        self.desc = desc.to_owned();
        self
    }

    /// The same view clickable and focusable (a button, a row).
    pub(crate) fn clickable(mut self) -> View {
        self.clickable = true;
        self.focusable = true;
        self
    }

    /// The same view long-clickable too.
    pub(crate) fn long_clickable(mut self) -> View {
        self.long_clickable = true;
        self
    }

    /// The same view scrollable (and focusable, as lists are).
    pub(crate) fn scrollable(mut self) -> View {
        self.scrollable = true;
        self.focusable = true;
        self
    }

    /// The same view with `children`.
    pub(crate) fn children(mut self, children: Vec<View>) -> View {
        self.children = children;
        self
    }

    /// The same view with `child` added last.
    pub(crate) fn child(mut self, child: View) -> View {
        self.children.push(child);
        self
    }

    /// An `EditText` showing `text`, or its hint when empty (Android 8+ reports the hint as the
    /// text of an empty field, and the hint again in `hint`).
    pub(crate) fn edit(package: &str, id: &str, text: &str, hint: &str, bounds: Rect) -> View {
        let shown = if text.is_empty() { hint } else { text };
        let mut edit = View::new("android.widget.EditText", package, bounds)
            .id(id)
            .text(shown)
            .clickable()
            .long_clickable();
        edit.hint = hint.to_owned();
        edit
    }

    /// Every view, depth first, with its depth.
    pub(crate) fn walk(&self) -> Vec<(usize, &View)> {
        let mut out = Vec::new();
        let mut stack = vec![(0usize, self)];
        while let Some((depth, view)) = stack.pop() {
            out.push((depth, view));
            stack.extend(view.children.iter().rev().map(|c| (depth + 1, c)));
        }
        out
    }

    /// The deepest view that `wanted` accepts and whose bounds hold `(x, y)`; among views as
    /// deep, the one drawn last (a later sibling is on top).
    pub(crate) fn hit(&self, x: i32, y: i32, wanted: impl Fn(&View) -> bool) -> Option<&View> {
        let mut best: Option<(usize, &View)> = None;
        for (depth, view) in self.walk() {
            if wanted(view) && view.bounds.contains(x, y) && best.is_none_or(|(d, _)| depth >= d) {
                best = Some((depth, view));
            }
        }
        best.map(|(_, view)| view)
    }

    /// The texts of this view and the views inside it, in order.
    pub(crate) fn texts(&self) -> Vec<String> {
        self.walk()
            .into_iter()
            .flat_map(|(_, v)| [v.text.clone(), v.desc.clone()])
            .filter(|t| !t.is_empty())
            .collect()
    }

    /// The whole dump: the XML declaration, `<hierarchy rotation="0">`, the tree; no newline
    /// at the end (uiautomator writes none).
    pub(crate) fn dump(&self) -> String {
        let mut out = String::with_capacity(4096);
        out.push_str(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
        );
        self.write(&mut out, 0, 0);
        out.push_str("</hierarchy>");
        out
    }

    fn write(&self, out: &mut String, index: usize, drawing_order: usize) {
        let flag = |b: bool| if b { "true" } else { "false" };
        let b = &self.bounds;
        let _ = write!(
            out,
            "<node index=\"{index}\" text=\"{}\" resource-id=\"{}\" class=\"{}\" package=\"{}\" \
             content-desc=\"{}\" checkable=\"{}\" checked=\"{}\" clickable=\"{}\" enabled=\"{}\" \
             focusable=\"{}\" focused=\"{}\" scrollable=\"{}\" long-clickable=\"{}\" \
             password=\"{}\" selected=\"{}\" bounds=\"[{},{}][{},{}]\" drawing-order=\"{}\" \
             hint=\"{}\"",
            escape(&self.text),
            escape(&self.id),
            escape(&self.class),
            escape(&self.package),
            escape(&self.desc),
            flag(self.checkable),
            flag(self.checked),
            flag(self.clickable),
            flag(self.enabled),
            flag(self.focusable),
            flag(self.focused),
            flag(self.scrollable),
            flag(self.long_clickable),
            flag(self.password),
            flag(self.selected),
            b.left,
            b.top,
            b.right,
            b.bottom,
            drawing_order,
            escape(&self.hint),
        );
        if self.children.is_empty() {
            out.push_str(" />");
            return;
        }
        out.push('>');
        for (i, child) in self.children.iter().enumerate() {
            child.write(out, i, i + 1);
        }
        out.push_str("</node>");
    }
}

/// Text as kxml escapes an attribute value (newlines as `&#10;`).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

/// A recorded dump read back as a view tree (the `hierarchy`'s nodes under one root); `None`
/// when it is no dump.
pub(crate) fn parse(xml: &str) -> Option<View> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let hierarchy = doc.root_element();
    let nodes: Vec<View> = hierarchy
        .children()
        .filter(|n| n.has_tag_name("node"))
        .map(read_node)
        .collect();
    match <[View; 1]>::try_from(nodes) {
        Ok([root]) => Some(root),
        Err(nodes) => {
            let mut root = View::new("", "", Rect::default());
            root.bounds = nodes
                .iter()
                .map(|n| n.bounds)
                .reduce(|a, b| {
                    Rect::new(
                        a.left.min(b.left),
                        a.top.min(b.top),
                        a.right.max(b.right),
                        a.bottom.max(b.bottom),
                    )
                })
                .unwrap_or_default();
            Some(root.children(nodes))
        }
    }
}

fn read_node(node: roxmltree::Node) -> View {
    let text = |name: &str| node.attribute(name).unwrap_or("").to_owned();
    let flag = |name: &str| node.attribute(name) == Some("true");
    View {
        class: text("class"),
        text: text("text"),
        id: text("resource-id"),
        package: text("package"),
        desc: text("content-desc"),
        hint: text("hint"),
        checkable: flag("checkable"),
        checked: flag("checked"),
        clickable: flag("clickable"),
        enabled: flag("enabled"),
        focusable: flag("focusable"),
        focused: flag("focused"),
        scrollable: flag("scrollable"),
        long_clickable: flag("long-clickable"),
        password: flag("password"),
        selected: flag("selected"),
        bounds: node
            .attribute("bounds")
            .and_then(parse_bounds)
            .unwrap_or_default(),
        children: node
            .children()
            .filter(|n| n.has_tag_name("node"))
            .map(read_node)
            .collect(),
    }
}

/// `[l,t][r,b]`.
fn parse_bounds(text: &str) -> Option<Rect> {
    let numbers: Vec<i32> = text
        .split(['[', ']', ','])
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match numbers.as_slice() {
        [l, t, r, b] => Some(Rect::new(*l, *t, *r, *b)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_written_in_uiautomators_dialect_and_read_back() {
        let tree = View::new("android.widget.FrameLayout", "p", Rect::new(0, 0, 100, 200)).child(
            View::new("android.widget.Button", "p", Rect::new(0, 0, 50, 50))
                .id("p:id/b")
                .text("A & \"B\"")
                .clickable(),
        );
        let xml = tree.dump();
        assert!(xml.starts_with(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\""
        ));
        assert!(xml.contains("text=\"A &amp; &quot;B&quot;\" resource-id=\"p:id/b\""));
        assert!(xml.contains(
            "bounds=\"[0,0][50,50]\" drawing-order=\"1\" hint=\"\" /></node></hierarchy>"
        ));
        assert!(!xml.contains('\n'));
        assert_eq!(parse(&xml), Some(tree));
    }

    #[test]
    fn the_deepest_wanted_view_under_the_point_is_hit() {
        let tree = View::new("root", "p", Rect::new(0, 0, 100, 100))
            .clickable()
            .child(
                View::new("row", "p", Rect::new(0, 0, 100, 50))
                    .clickable()
                    .child(View::new("label", "p", Rect::new(0, 0, 100, 50)).text("x")),
            );
        let hit = tree.hit(10, 10, |v| v.clickable).map(|v| v.class.as_str());
        assert_eq!(hit, Some("row"));
        let below = tree.hit(10, 70, |v| v.clickable).map(|v| v.class.as_str());
        assert_eq!(below, Some("root"));
        assert_eq!(tree.hit(500, 5, |v| v.clickable), None);
    }
}
