//! `get_ui_tree(max_depth)`: the selected window's raw accessibility tree as nested JSON, capped
//! in depth ([`MAX_DEPTH`]) and budgeted in nodes ([`MAX_NODES`], about 9k cl100k tokens).
//!
//! The result is `{"depth", "nodes", "tree", "note"?}`: `tree` is the window node
//! `{type, role, name, rect, children?, children_omitted?}`, `depth` the depth shown, `nodes` how
//! many nodes it holds. A node whose children are not shown carries `children_omitted` (how many).
//! When the budget cuts the tree above the depth asked for, whole levels are dropped (never part
//! of a level) and `note` says so and how to see more.

use deft_protocol::observation::{ControlType, clean_name};
use serde_json::{Value, json};

use crate::a11y::Tree;

/// `max_depth` when none is given.
pub const DEFAULT_DEPTH: usize = 8;
/// The largest `max_depth`; a larger one is clamped, with a note.
pub const MAX_DEPTH: usize = 32;
/// The most nodes one answer holds.
pub const MAX_NODES: usize = 300;

/// Parses `max_depth` leniently (`null` = default; a number or a numeric string): the depth to
/// use and a note when it was clamped. Anything else is an argument error for the model.
pub fn parse_depth(raw: Option<&Value>) -> Result<(usize, Option<String>), String> {
    let bad = |v: &dyn std::fmt::Display| {
        format!(
            "max_depth must be a whole number from 0 to {MAX_DEPTH} (default {DEFAULT_DEPTH}), got {v}."
        )
    };
    let n: u64 = match raw {
        None | Some(Value::Null) => return Ok((DEFAULT_DEPTH, None)),
        Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => u,
            (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 => f as u64,
            _ => return Err(bad(n)),
        },
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map_err(|_| bad(&Value::from(s.as_str())))?,
        Some(other) => return Err(bad(other)),
    };
    match usize::try_from(n) {
        Ok(d) if d <= MAX_DEPTH => Ok((d, None)),
        _ => Ok((
            MAX_DEPTH,
            Some(format!(
                "max_depth {n} is above the maximum of {MAX_DEPTH}; the tree is shown to depth {MAX_DEPTH}."
            )),
        )),
    }
}

/// The answer for `tree` to `depth` (already parsed), within [`MAX_NODES`]; `note` is kept
/// first in the answer's note.
pub fn render(tree: &Tree, depth: usize, note: Option<String>) -> Value {
    let mut per_level = vec![0usize; depth + 1];
    for n in &tree.nodes {
        if n.depth <= depth {
            per_level[n.depth] += 1;
        }
    }
    // The deepest full level that fits the budget.
    let mut shown = 0;
    let mut total = 0;
    for (d, count) in per_level.iter().enumerate() {
        if *count == 0 || total + count > MAX_NODES {
            break;
        }
        total += count;
        shown = d;
    }
    let mut notes: Vec<String> = note.into_iter().collect();
    if shown < depth && per_level.get(shown + 1).is_some_and(|c| *c > 0) {
        let wanted: usize = per_level.iter().sum();
        notes.push(format!(
            "The tree to depth {depth} has {wanted} nodes; shown to depth {shown} ({total} nodes) to stay within {MAX_NODES}. Nodes with children_omitted have more below: ask again with a smaller max_depth, or list a part with get_app_window_controls_info(subtree=id)."
        ));
    }
    let mut out = json!({
        "depth": shown,
        "nodes": total,
        "tree": if tree.nodes.is_empty() { Value::Null } else { node(tree, 0, shown) },
    });
    if !notes.is_empty() {
        out["note"] = Value::String(notes.join(" "));
    }
    out
}

fn node(tree: &Tree, i: usize, max: usize) -> Value {
    let n = &tree.nodes[i];
    let mut v = json!({
        "type": ControlType::from_atspi_role(n.role).as_str(),
        "role": n.role,
        "name": clean_name(&n.name),
        "rect": n.rect,
    });
    if !n.children.is_empty() {
        if n.depth < max {
            v["children"] = Value::Array(n.children.iter().map(|c| node(tree, *c, max)).collect());
        } else {
            v["children_omitted"] = n.children.len().into();
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a11y::{Node, ObjKey};

    /// A root with `wide` children, each with one child.
    fn tree(wide: usize) -> Tree {
        let blank = |i: usize, depth: usize, parent: Option<usize>| Node {
            key: ObjKey::new(":1.1", format!("/n{i}")),
            role: 43,
            name: format!("n{i}"),
            states: atspi::StateSet::empty(),
            interfaces: Vec::new(),
            rect: None,
            labelled_by: Vec::new(),
            parent,
            children: Vec::new(),
            depth,
            scrolled: false,
            visible_part: None,
        };
        let mut nodes = vec![blank(0, 0, None)];
        for _ in 0..wide {
            let i = nodes.len();
            nodes.push(blank(i, 1, Some(0)));
            nodes.push(blank(i + 1, 2, Some(i)));
            nodes[0].children.push(i);
            nodes[i].children.push(i + 1);
        }
        Tree { nodes }
    }

    #[test]
    fn depth_is_parsed_leniently_clamped_with_a_note_and_refused_when_meaningless() {
        assert_eq!(parse_depth(None), Ok((DEFAULT_DEPTH, None)));
        assert_eq!(parse_depth(Some(&Value::Null)), Ok((DEFAULT_DEPTH, None)));
        assert_eq!(parse_depth(Some(&json!(3))), Ok((3, None)));
        assert_eq!(parse_depth(Some(&json!(3.0))), Ok((3, None)));
        assert_eq!(parse_depth(Some(&json!(" 4 "))), Ok((4, None)));
        assert_eq!(
            parse_depth(Some(&json!(500))),
            Ok((
                MAX_DEPTH,
                Some(
                    "max_depth 500 is above the maximum of 32; the tree is shown to depth 32."
                        .to_owned()
                )
            ))
        );
        assert_eq!(
            parse_depth(Some(&json!(-1))),
            Err("max_depth must be a whole number from 0 to 32 (default 8), got -1.".to_owned())
        );
        assert_eq!(
            parse_depth(Some(&json!(2.5))),
            Err("max_depth must be a whole number from 0 to 32 (default 8), got 2.5.".to_owned())
        );
        assert_eq!(
            parse_depth(Some(&json!("deep"))),
            Err(
                "max_depth must be a whole number from 0 to 32 (default 8), got \"deep\"."
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_small_tree_is_shown_to_the_depth_asked_and_marks_what_is_below() {
        let t = tree(3);
        let v = render(&t, 1, None);
        assert_eq!(v["depth"], 1);
        assert_eq!(v["nodes"], 4);
        assert!(v.get("note").is_none(), "{v}");
        let kids = v["tree"]["children"].as_array().unwrap();
        assert_eq!(kids.len(), 3);
        assert!(kids.iter().all(|k| k["children_omitted"] == 1), "{v}");
        let full = render(&t, 8, None);
        assert_eq!(full["depth"], 2);
        assert_eq!(full["nodes"], 7);
        assert_eq!(render(&t, 0, None)["tree"]["children_omitted"], 3);
    }

    #[test]
    fn a_large_tree_drops_whole_levels_to_stay_within_the_budget() {
        // 1 + 200 + 200 nodes: level 2 does not fit in 300.
        let t = tree(200);
        let v = render(&t, 8, Some("clamped.".to_owned()));
        assert_eq!(v["depth"], 1);
        assert_eq!(v["nodes"], 201);
        assert_eq!(
            v["note"],
            "clamped. The tree to depth 8 has 401 nodes; shown to depth 1 (201 nodes) to stay within 300. Nodes with children_omitted have more below: ask again with a smaller max_depth, or list a part with get_app_window_controls_info(subtree=id)."
        );
        assert!(
            serde_json::to_string(&v).unwrap().len() < 40_000,
            "the answer stays small"
        );
    }
}
