//! Control ids that hold across dumps. A phone gives its views no identity that survives a
//! new `uiautomator dump`, so a view is known by what it is — its class, resource id and the
//! words it shows or holds — and, among views alike in all that, by its order on the screen.
//! A view keeps its id while it stays on the screen (scrolled, its value typed into, its state
//! changed), a view that comes back after it left gets a new one, and an id is never reused in
//! the session (docs/observation.md "Control ids").

use std::collections::{HashMap, HashSet};

use crate::ui_tree::UiNode;

/// What a view is known by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    class: String,
    resource_id: String,
    words: String,
    /// Its order among the views alike on this screen.
    nth: usize,
}

/// The ids of one device session.
#[derive(Debug, Default)]
pub struct IdBook {
    next: u64,
    /// The views of the last screen and their ids.
    shown: HashMap<Key, String>,
}

/// The ids of one screen being listed: built from the book, then kept as the book's last screen.
pub struct ScreenIds<'a> {
    book: &'a mut IdBook,
    seen: HashMap<(String, String, String), usize>,
    now: HashMap<Key, String>,
    fresh: HashSet<String>,
}

impl IdBook {
    /// A session's book: no view seen yet.
    pub fn new() -> IdBook {
        IdBook::default()
    }

    /// Starts listing a new screen.
    pub fn screen(&mut self) -> ScreenIds<'_> {
        ScreenIds {
            book: self,
            seen: HashMap::new(),
            now: HashMap::new(),
            fresh: HashSet::new(),
        }
    }
}

impl ScreenIds<'_> {
    /// The id of `node` (asked in drawing order): the one it had on the last screen, else a new
    /// one.
    pub fn id(&mut self, node: &UiNode) -> String {
        let words = if node.scrollable {
            // A list is the same list whatever rows it shows now.
            String::new()
        } else if node.text.is_empty() && node.content_desc.is_empty() {
            inner_words(node)
        } else {
            format!("{}\u{1f}{}", node.content_desc, label_text(node))
        };
        let alike = (node.class.clone(), node.resource_id.clone(), words);
        let nth = self.seen.entry(alike.clone()).or_insert(0);
        let key = Key {
            class: alike.0,
            resource_id: alike.1,
            words: alike.2,
            nth: *nth,
        };
        *nth += 1;
        let id = match self.book.shown.get(&key) {
            Some(id) => id.clone(),
            None => {
                self.book.next += 1;
                let id = self.book.next.to_string();
                self.fresh.insert(id.clone());
                id
            }
        };
        self.now.insert(key, id.clone());
        id
    }

    /// Whether `id` is new on this screen (not on the last one).
    pub fn is_new(&self, id: &str) -> bool {
        self.fresh.contains(id)
    }

    /// Ends the screen: its views are the ones the next screen is compared with.
    pub fn keep(self) {
        self.book.shown = self.now;
    }
}

/// An edit's words are not its text (typing changes them): its hint and description are.
fn label_text(node: &UiNode) -> &str {
    if deft_protocol::observation::ControlType::from_android_class(&node.class)
        == deft_protocol::observation::ControlType::Edit
    {
        &node.hint
    } else {
        &node.text
    }
}

/// The words of the views inside a wordless view (a list row is known by its title).
fn inner_words(node: &UiNode) -> String {
    node.children
        .iter()
        .flat_map(UiNode::walk)
        .map(|n| label_text(n).trim().to_owned() + n.content_desc.trim())
        .filter(|w| !w.is_empty())
        .take(2)
        .collect::<Vec<_>>()
        .join("\u{1f}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui_tree::parse_dump;

    fn row(title: &str, top: i32) -> String {
        format!(
            "<node class=\"android.widget.LinearLayout\" clickable=\"true\" bounds=\"[0,{top}][100,{}]\">\
             <node class=\"android.widget.TextView\" text=\"{title}\" bounds=\"[0,{top}][100,{}]\"/></node>",
            top + 10,
            top + 10
        )
    }

    fn ids_of(book: &mut IdBook, rows: &[(&str, i32)]) -> Vec<(String, bool)> {
        let xml = format!(
            "<hierarchy><node class=\"android.widget.FrameLayout\" bounds=\"[0,0][100,100]\">{}</node></hierarchy>",
            rows.iter().map(|(t, top)| row(t, *top)).collect::<String>()
        );
        let screen = parse_dump(&xml).unwrap();
        let mut ids = book.screen();
        let out = screen
            .nodes()
            .into_iter()
            .skip(1)
            .step_by(2)
            .map(|n| {
                let id = ids.id(n);
                let new = ids.is_new(&id);
                (id, new)
            })
            .collect();
        ids.keep();
        out
    }

    #[test]
    fn views_keep_their_ids_when_they_move_and_new_ones_get_fresh_ids() {
        let mut book = IdBook::new();
        let first = ids_of(&mut book, &[("Wi-Fi", 0), ("Bluetooth", 10), ("Apps", 20)]);
        assert!(first.iter().all(|(_, new)| *new));
        // Scrolled by one row: Wi-Fi left, the others moved up, Storage came in.
        let second = ids_of(
            &mut book,
            &[("Bluetooth", 0), ("Apps", 10), ("Storage", 20)],
        );
        assert_eq!(second[0], (first[1].0.clone(), false));
        assert_eq!(second[1], (first[2].0.clone(), false));
        assert!(second[2].1, "Storage is new");
        // Wi-Fi comes back: a new id, never one used before.
        let third = ids_of(&mut book, &[("Wi-Fi", 0), ("Bluetooth", 10)]);
        let used: Vec<&String> = first.iter().chain(&second).map(|(id, _)| id).collect();
        assert!(!used.contains(&&third[0].0));
        assert_eq!(third[1].0, first[1].0);
    }

    #[test]
    fn alike_views_are_told_apart_by_their_order() {
        let mut book = IdBook::new();
        let first = ids_of(&mut book, &[("Delete", 0), ("Delete", 10)]);
        assert_ne!(first[0].0, first[1].0);
        let again = ids_of(&mut book, &[("Delete", 0), ("Delete", 10)]);
        assert_eq!(
            again,
            vec![(first[0].0.clone(), false), (first[1].0.clone(), false)]
        );
    }
}
