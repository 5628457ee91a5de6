//! A window's snapshot: its walked tree (at most [`MAX_NODES`] nodes), described, with the
//! values of its edits, ranges and texts read — what a new walk (`cache`) and a patched one
//! (`patch`) both give.

use std::collections::{HashMap, HashSet};

use futures::future::join_all;

use super::Connected;
use crate::a11y::{self, ObjKey, Tree};
use crate::describe::{self, Described, ValueSource};

/// Most nodes read from one window.
pub(super) const MAX_NODES: usize = 5000;

/// A walked and described window.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The raw tree.
    pub tree: Tree,
    /// The described nodes.
    pub described: Vec<Described>,
    /// Digest of names, states and values.
    pub digest: u64,
    /// The values read (edits, ranges, texts), by object.
    pub values: HashMap<ObjKey, String>,
    /// What was added to the toolkit's extents to get screen coordinates.
    pub offset: (i32, i32),
}

/// Describes a walked tree and reads the values of its edits, ranges and texts.
pub(super) async fn describe_snapshot(c: &Connected, tree: Tree, offset: (i32, i32)) -> Snapshot {
    finish_snapshot(c, tree, offset, HashMap::new(), None).await
}

/// Describes `tree` and reads the values of its edits, ranges and texts: all of them, or with
/// `only` just those objects' (the others keep theirs from `values`).
pub(super) async fn finish_snapshot(
    c: &Connected,
    tree: Tree,
    offset: (i32, i32),
    mut values: HashMap<ObjKey, String>,
    only: Option<&HashSet<ObjKey>>,
) -> Snapshot {
    let mut described = describe::describe(&tree);
    let jobs: Vec<_> = described
        .iter()
        .filter(|d| only.is_none_or(|o| o.contains(&d.key)))
        .filter_map(|d| {
            let src = describe::value_source(d);
            (src.is_some() || describe::digest_text(d)).then(|| (d.key.clone(), src))
        })
        .collect();
    let conn = &c.a11y;
    let read = join_all(jobs.into_iter().map(|(key, src)| async move {
        let v = match src {
            Some(ValueSource::Text) | None => a11y::text(conn, &key).await.ok(),
            Some(ValueSource::Range) => a11y::current_value(conn, &key)
                .await
                .ok()
                .map(describe::format_number),
        };
        (key, v)
    }))
    .await;
    for (key, v) in read {
        match v {
            Some(v) => values.insert(key, v),
            None => values.remove(&key),
        };
    }
    for d in &mut described {
        if describe::value_source(d).is_some()
            && let Some(v) = values.get(&d.key)
        {
            d.value = Some(v.clone());
        }
        if describe::digest_text(d)
            && let Some(v) = values.get(&d.key)
        {
            describe::name_from_text(d, v);
        }
    }
    let digest = describe::digest(&tree, &values);
    Snapshot {
        tree,
        described,
        digest,
        values,
        offset,
    }
}
