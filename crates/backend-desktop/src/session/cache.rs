//! The session's walk cache: a window's walked and described tree (its snapshot), reused while
//! no AT-SPI event of its application came, patched (`patch`) by reading again only the
//! objects whose property or children events came in, and walked again after other
//! structure events or scrolling.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::patch::{self, Changes};
use super::snapshot::{MAX_NODES, Snapshot, describe_snapshot};
use super::{Connected, DesktopSession, WindowEntry};
use crate::error::{ToolError, ToolResult};
use crate::events::{self, Since};
use crate::{texts, walk};

/// A cached walk is reused only this long, even without events (window moves send none).
const CACHE_MAX_AGE: Duration = Duration::from_secs(5);

impl DesktopSession {
    /// The selected window's tree with the values of its edits, ranges and texts: the last walk
    /// while no AT-SPI event of the window's application came since (and it is younger than
    /// [`CACHE_MAX_AGE`]), else a new walk. Waits for a walk already under way.
    pub async fn snapshot(&self, window: &WindowEntry) -> ToolResult<Snapshot> {
        self.look(window, false).await
    }

    /// [`DesktopSession::snapshot`], or with `fresh` always a new walk.
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
                    changes,
                } => {
                    if let Some(snap) = patch::patch(&c, snap, &changes).await {
                        self.looks.patched.fetch_add(1, Ordering::Relaxed);
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
        self.looks.walked.fetch_add(1, Ordering::Relaxed);
        if c.watching {
            self.cache
                .lock()
                .insert(window.id, (generation, Instant::now(), snap.clone()));
        }
        Ok(snap)
    }

    /// The cached walk of `window`: exact when no event of the window's application came since
    /// (its objects all live on that application's connection; other applications' events do
    /// not touch it); patchable when the application's events since only changed properties
    /// of objects (states, names, text, values, bounds) or their children, at most
    /// [`patch::MAX_PATCHED`] objects.
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
        let mut changes = Changes::default();
        for e in events.iter().filter(|e| e.source.bus == window.key.bus) {
            let list = match e.kind {
                events::EventKind::Property => &mut changes.props,
                events::EventKind::Children => &mut changes.children,
                events::EventKind::Structure => return Cached::Stale,
            };
            if !list.contains(&e.source) {
                list.push(e.source.clone());
                if changes.len() > patch::MAX_PATCHED {
                    return Cached::Stale;
                }
            }
        }
        if changes.len() == 0 {
            *generation = newest;
            return Cached::Exact(snap.clone());
        }
        Cached::Patch {
            snap: snap.clone(),
            generation: newest,
            walked_at: *at,
            changes,
        }
    }

    async fn walk_snapshot(&self, c: &Connected, window: &WindowEntry) -> ToolResult<Snapshot> {
        let mut tree = walk::walk(&c.a11y, window.key.clone(), MAX_NODES)
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

/// What the cache holds for a window.
enum Cached {
    /// Up to date.
    Exact(Snapshot),
    /// Up to date once `changes` are read again.
    Patch {
        snap: Snapshot,
        /// The event the patched walk will be current to.
        generation: u64,
        /// When the walk was taken (the age limit counts from it).
        walked_at: Instant,
        changes: Changes,
    },
    /// A new walk is needed.
    Stale,
}
