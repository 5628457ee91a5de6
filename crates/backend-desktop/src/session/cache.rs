//! The session's walk cache: a window's walked and described tree (its snapshot), reused while
//! no AT-SPI event of its application came, patched by reading again only the objects whose
//! property events came in, and walked again after structure events, bounds changes or
//! scrolling.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use futures::future::join_all;

use super::{Connected, Session, WindowEntry};
use crate::a11y::{self, ObjKey, Tree};
use crate::describe::{self, Described, ValueSource};
use crate::error::{ToolError, ToolResult};
use crate::events::{self, Since};
use crate::texts;

/// Most nodes read from one window.
const MAX_NODES: usize = 5000;
/// A cached walk is reused only this long, even without events (window moves send none).
const CACHE_MAX_AGE: Duration = Duration::from_secs(5);
/// Most objects a cached walk is brought up to date for by reading them again; more changed
/// objects mean a new walk.
const MAX_PATCHED: usize = 64;

impl Session {
    /// The selected window's tree with the values of its edits, ranges and texts: the last walk
    /// while no AT-SPI event of the window's application came since (and it is younger than
    /// [`CACHE_MAX_AGE`]), else a new walk. Waits for a walk already under way.
    pub async fn snapshot(&self, window: &WindowEntry) -> ToolResult<Snapshot> {
        self.look(window, false).await
    }

    /// [`Session::snapshot`], or with `fresh` always a new walk.
    pub(super) async fn look(&self, window: &WindowEntry, fresh: bool) -> ToolResult<Snapshot> {
        let c = self.connected().await?;
        let _walk = self.walking.lock().await;
        if !fresh {
            match self.cached(&c, window) {
                Cached::Exact(snap) => return Ok(snap),
                Cached::Patch {
                    snap,
                    generation,
                    walked_at,
                    sources,
                } => {
                    if let Some(snap) = patch_snapshot(&c, snap, &sources).await {
                        self.cache
                            .lock()
                            .insert(window.id, (generation, walked_at, snap.clone()));
                        return Ok(snap);
                    }
                }
                Cached::Stale => {}
            }
        }
        let generation = c.events.generation();
        let snap = self.walk_snapshot(&c, window).await?;
        if c.watching {
            self.cache
                .lock()
                .insert(window.id, (generation, Instant::now(), snap.clone()));
        }
        Ok(snap)
    }

    /// The cached walk of `window`: exact when no event of the window's application came since
    /// (its objects all live on that application's connection; other applications' events do
    /// not touch it); patchable when the application's events since only changed properties of
    /// objects in the walk (states, names, text, values), at most [`MAX_PATCHED`] of them.
    fn cached(&self, c: &Connected, window: &WindowEntry) -> Cached {
        if !c.watching {
            return Cached::Stale;
        }
        let mut cache = self.cache.lock();
        let Some((generation, at, snap)) = cache.get_mut(&window.id) else {
            return Cached::Stale;
        };
        if at.elapsed() >= CACHE_MAX_AGE {
            return Cached::Stale;
        }
        let Since::Events(events) = c.events.since(*generation) else {
            return Cached::Stale;
        };
        let Some(newest) = events.last().map(|e| e.seq) else {
            return Cached::Exact(snap.clone());
        };
        let mut sources: Vec<ObjKey> = Vec::new();
        for e in events.iter().filter(|e| e.source.bus == window.key.bus) {
            if e.kind != events::EventKind::Property {
                return Cached::Stale;
            }
            if !sources.contains(&e.source) {
                if sources.len() == MAX_PATCHED {
                    return Cached::Stale;
                }
                sources.push(e.source.clone());
            }
        }
        if sources.is_empty() {
            *generation = newest;
            return Cached::Exact(snap.clone());
        }
        Cached::Patch {
            snap: snap.clone(),
            generation: newest,
            walked_at: *at,
            sources,
        }
    }

    async fn walk_snapshot(&self, c: &Connected, window: &WindowEntry) -> ToolResult<Snapshot> {
        let mut tree = a11y::walk(&c.a11y, window.key.clone(), MAX_NODES)
            .await
            .map_err(|_| {
                ToolError::model(texts::window_gone(&window.id.to_string(), &window.name))
            })?;
        let (dx, dy) = self
            .offset(c, window, tree.nodes.first().and_then(|n| n.rect))
            .await;
        if (dx, dy) != (0, 0) {
            for n in &mut tree.nodes {
                if let Some(r) = n.rect.as_mut() {
                    *r = [r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy];
                }
            }
        }
        Ok(describe_snapshot(c, tree, (dx, dy)).await)
    }
}

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

/// What the cache holds for a window.
enum Cached {
    /// Up to date.
    Exact(Snapshot),
    /// Up to date once `sources` are read again (their events changed only their properties).
    Patch {
        snap: Snapshot,
        /// The event the patched walk will be current to.
        generation: u64,
        /// When the walk was taken (the age limit counts from it).
        walked_at: Instant,
        sources: Vec<ObjKey>,
    },
    /// A new walk is needed.
    Stale,
}

/// Describes a walked tree and reads the values of its edits, ranges and texts.
async fn describe_snapshot(c: &Connected, tree: Tree, offset: (i32, i32)) -> Snapshot {
    finish_snapshot(c, tree, offset, HashMap::new(), None).await
}

/// `snap` with the objects `sources` read again, or None when what they read would change the
/// walk's shape (children, what the walk descends into, a rect: the reading order) — then only
/// a new walk is exact.
async fn patch_snapshot(c: &Connected, mut snap: Snapshot, sources: &[ObjKey]) -> Option<Snapshot> {
    let targets: Vec<(usize, ObjKey)> = {
        let index = snap.tree.index();
        sources
            .iter()
            .map(|k| index.get(k).map(|&i| (i, k.clone())))
            .collect::<Option<_>>()?
    };
    let conn = &c.a11y;
    let fetched = join_all(
        targets
            .into_iter()
            .map(|(i, key)| async move { (i, a11y::fetch(conn, key).await) }),
    )
    .await;
    let (dx, dy) = snap.offset;
    for (i, read) in fetched {
        let (mut node, kids) = read.ok()?;
        let old = &snap.tree.nodes[i];
        node.rect = node
            .rect
            .map(|r| [r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy]);
        node.parent = old.parent;
        node.children = old.children.clone();
        node.depth = old.depth;
        node.scrolled = old.scrolled;
        // A scroll bar or scrolled container that changes moves content that sends no event.
        let scrolls = |n: &a11y::Node| {
            n.role == describe::role::SCROLL_BAR || a11y::SCROLLER_ROLES.contains(&n.role)
        };
        if scrolls(old)
            || scrolls(&node)
            || node.rect != old.rect
            || a11y::descend(&node) != a11y::descend(old)
        {
            return None;
        }
        if a11y::descend(old) {
            let walked: HashSet<&ObjKey> = old
                .children
                .iter()
                .map(|&k| &snap.tree.nodes[k].key)
                .collect();
            if kids.len() != walked.len() || !kids.iter().all(|k| walked.contains(k)) {
                return None;
            }
        }
        snap.tree.nodes[i] = node;
    }
    let reread: HashSet<ObjKey> = sources.iter().cloned().collect();
    Some(finish_snapshot(c, snap.tree, snap.offset, snap.values, Some(&reread)).await)
}

/// Describes `tree` and reads the values of its edits, ranges and texts: all of them, or with
/// `only` just those objects' (the others keep theirs from `values`).
async fn finish_snapshot(
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
