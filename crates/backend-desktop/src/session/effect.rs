//! Effect detection: after an action, waiting until the application's AT-SPI events go quiet,
//! then telling `changed` from `no_change` — by the objects that announced changes, else by a
//! new walk and the digests before and after.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;

use super::{Connected, DesktopSession, Snapshot, WindowEntry};
use crate::a11y::{self, ObjKey};
use crate::describe::{self, ValueSource};
use crate::error::ToolResult;
use crate::events::Since;
use crate::walk;

/// AT-SPI events must be quiet this long before the state after an action is read.
const QUIET: Duration = Duration::from_millis(20);
/// How often the quiet wait looks at the event clock.
const POLL: Duration = Duration::from_millis(5);
/// How long an action waits for the first AT-SPI event before it reads the state.
const FIRST_EVENT: Duration = Duration::from_millis(250);
/// Longest wait for quiet events after an action.
const QUIET_CAP: Duration = Duration::from_secs(1);

impl Connected {
    /// Waits until the AT-SPI events of the application on connection `bus` have been quiet for
    /// a short window (capped at 1 s) after `since`; other applications' events do not count.
    /// Until the application's first event after `since` arrives, the window is longer
    /// ([`FIRST_EVENT`]): an app that has not yet processed the input has sent nothing.
    pub async fn settle(&self, since: Instant, bus: &str) {
        let deadline = since + QUIET_CAP;
        loop {
            let last = self.events.last_event_from(bus).unwrap_or(since);
            let ready_at = if last > since {
                last + QUIET
            } else {
                since + FIRST_EVENT
            };
            let now = Instant::now();
            if now >= ready_at || now >= deadline {
                return;
            }
            // Re-check often: an event may arrive (and move `ready_at`) while we wait.
            tokio::time::sleep((ready_at.min(deadline) - now).min(POLL)).await;
        }
    }
}

impl DesktopSession {
    /// Whether an object of `before` that sent an event after event `since` now reads
    /// differently (name, role, states but focus, rect, value or text) or is gone. Only objects
    /// that announced a change are read, so this is fast; `false` means "not shown this way",
    /// not "nothing changed".
    async fn changed_at_sources(
        &self,
        c: &Connected,
        window: &WindowEntry,
        before: &Snapshot,
        since: u64,
    ) -> bool {
        let Since::Events(events) = c.events.since(since) else {
            return false;
        };
        let index = before.tree.index();
        let sources: BTreeSet<usize> = events
            .iter()
            .filter(|e| e.source.bus == window.key.bus)
            .filter_map(|e| index.get(&e.source).copied())
            .collect();
        if sources.is_empty() {
            return false;
        }
        let valued: HashMap<&ObjKey, Option<ValueSource>> = before
            .described
            .iter()
            .filter_map(|d| match describe::value_source(d) {
                Some(src) => Some((&d.key, Some(src))),
                None => describe::digest_text(d).then_some((&d.key, None)),
            })
            .collect();
        let conn = &c.a11y;
        let (dx, dy) = before.offset;
        let now = join_all(sources.iter().map(|&i| {
            let key = before.tree.nodes[i].key.clone();
            let src = valued.get(&key).copied();
            async move {
                let (mut node, _) = walk::fetch(conn, key.clone()).await.ok()?;
                node.rect = node
                    .rect
                    .map(|r| [r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy]);
                let value = match src {
                    None => None,
                    Some(Some(ValueSource::Range)) => a11y::current_value(conn, &key)
                        .await
                        .ok()
                        .map(describe::format_number),
                    Some(_) => a11y::text(conn, &key).await.ok(),
                };
                Some((i, describe::node_digest(&node, value.as_ref())))
            }
        }))
        .await;
        now.into_iter().any(|read| match read {
            // Gone since the action: the window changed.
            None => true,
            Some((i, digest)) => {
                let old = &before.tree.nodes[i];
                digest != describe::node_digest(old, before.values.get(&old.key))
            }
        })
    }

    /// Runs `act`, then reports whether the selected window changed (`"changed"` or
    /// `"no_change"`), comparing digests before and after once AT-SPI events are quiet.
    ///
    /// Fast path: the objects that sent events after the action are read again; one that reads
    /// differently proves a change without walking the window (the walk that keeps the listing
    /// current then runs in the background). Otherwise the window is walked again and the
    /// digests compared.
    pub async fn with_effect<F, Fut, T>(self: &Arc<Self>, act: F) -> ToolResult<(T, &'static str)>
    where
        F: FnOnce(Arc<Connected>) -> Fut,
        Fut: std::future::Future<Output = ToolResult<T>>,
    {
        let window = self.selected().await?;
        let c = self.connected().await?;
        let since = c.events.generation();
        let before = self.snapshot(&window).await.ok();
        let started = Instant::now();
        let out = act(c.clone()).await?;
        c.settle(started, &window.key.bus).await;
        if let Some(b) = &before
            && c.watching
            && self.changed_at_sources(&c, &window, b, since).await
        {
            let me = self.clone();
            tokio::spawn(async move {
                let _ = me.snapshot(&window).await;
            });
            return Ok((out, "changed"));
        }
        // Not shown by the objects that announced changes (or none did): walk again, since a
        // toolkit may change things without an event, and compare everything.
        let after = self.look(&window, true).await.ok();
        let effect = match (before, after) {
            (Some(b), Some(a)) if a.digest == b.digest => "no_change",
            _ => "changed",
        };
        Ok((out, effect))
    }
}
