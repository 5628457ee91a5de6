//! One desktop session: the connections to the desktop, the window and control id maps (unique in
//! the device session, never reused), the selected window, and the operations the tools share
//! (list windows, select, list controls, resolve and validate a control, detect an effect).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use atspi::State;
use deft_protocol::observation::{Control, WindowSummary, WindowType};
use futures::future::join_all;
use tokio::sync::{Mutex, OnceCell};
use zbus::Connection;

use crate::a11y::{self, ObjKey, Tree};
use crate::describe::{self, Described, ValueSource};
use crate::events::{self, EventLog, Since};
use crate::texts;
use crate::target::DesktopTarget;
use crate::x11::X11;

/// Most nodes read from one window.
pub const MAX_NODES: usize = 5000;

/// AT-SPI events must be quiet this long before the state after an action is read.
const QUIET: Duration = Duration::from_millis(20);
/// How often the quiet wait looks at the event clock.
const POLL: Duration = Duration::from_millis(5);
/// How long an action waits for the first AT-SPI event before it reads the state.
const FIRST_EVENT: Duration = Duration::from_millis(250);
/// Longest wait for quiet events after an action.
const QUIET_CAP: Duration = Duration::from_secs(1);
/// A cached walk is reused only this long, even without events (window moves send none).
const CACHE_MAX_AGE: Duration = Duration::from_secs(5);
/// Most objects a cached walk is brought up to date for by reading them again; more changed
/// objects mean a new walk.
const MAX_PATCHED: usize = 64;
/// Longest wait for a disabled control to become enabled.
const ENABLE_WAIT: Duration = Duration::from_secs(10);

/// Roles of top-level windows (AtspiRole): FRAME, WINDOW, DIALOG, ALERT, FILE_CHOOSER.
const WINDOW_ROLES: &[u32] = &[23, 69, 16, 2, 22];
const DIALOG_ROLES: &[u32] = &[16, 2, 22];

/// A tool-facing failure: the text is for the model.
pub type ToolResult<T> = Result<T, String>;

/// The live connections.
pub struct Connected {
    /// The accessibility bus.
    pub a11y: Connection,
    /// The X display.
    pub x: Arc<X11>,
    /// The AT-SPI events seen.
    events: Arc<EventLog>,
    /// Whether events are watched (else every look walks the window again).
    watching: bool,
}

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

/// A window known to the session.
#[derive(Debug, Clone)]
pub struct WindowEntry {
    /// Its id.
    pub id: u64,
    /// Its accessible object.
    pub key: ObjKey,
    /// Title (cleaned).
    pub name: String,
    /// window or dialog.
    pub kind: WindowType,
    /// Root name (executable basename, script for interpreters, app name as fallback).
    pub app: String,
    /// Owning process.
    pub pid: Option<u32>,
    /// Whether it was there at the last enumeration.
    pub open: bool,
    /// Controls of its previous listing (for the new marker).
    pub previous: Option<HashSet<ObjKey>>,
    /// Screen rect at the last look.
    pub rect: Option<[i32; 4]>,
}

impl WindowEntry {
    /// As the listing's window summary.
    pub fn summary(&self) -> WindowSummary {
        WindowSummary::new(self.id.to_string(), &self.name, self.kind, &self.app)
    }
}

/// A control known to the session.
#[derive(Debug, Clone)]
pub struct ControlEntry {
    /// Its id.
    pub id: u64,
    /// The window it belongs to.
    pub window: u64,
    /// Present at its window's last listing.
    pub alive: bool,
    /// The description at the last listing.
    pub described: Described,
}

#[derive(Default)]
struct Maps {
    next_window: u64,
    next_control: u64,
    windows: HashMap<ObjKey, u64>,
    window_info: BTreeMap<u64, WindowEntry>,
    controls: HashMap<ObjKey, u64>,
    control_info: HashMap<u64, ControlEntry>,
    selected: Option<u64>,
    listed_windows: Vec<u64>,
}

/// The shared state of one desktop tool server instance.
pub struct Session {
    target: DesktopTarget,
    conn: OnceCell<Arc<Connected>>,
    maps: Mutex<Maps>,
    /// Last walk per window, with the event count it was taken at.
    cache: std::sync::Mutex<HashMap<u64, (u64, Instant, Snapshot)>>,
    /// Held while a window is walked, so a look waits for a walk under way (one started in
    /// the background after an action) instead of walking again beside it.
    walking: Mutex<()>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// A control an action resolved: its entry, and the name-mismatch warning if any.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The control.
    pub entry: ControlEntry,
    /// UFO's warning when the name argument differs.
    pub warning: Option<String>,
}

impl Session {
    /// A session on `target`; connects on first use.
    pub fn new(target: DesktopTarget) -> Self {
        Session {
            target,
            conn: OnceCell::new(),
            maps: Mutex::new(Maps::default()),
            cache: std::sync::Mutex::new(HashMap::new()),
            walking: Mutex::new(()),
        }
    }

    /// The desktop this session operates.
    pub fn target(&self) -> &DesktopTarget {
        &self.target
    }

    /// The connections, made on first use.
    pub async fn connected(&self) -> ToolResult<Arc<Connected>> {
        self.conn
            .get_or_try_init(|| async { self.connect().await.map(Arc::new) })
            .await
            .cloned()
    }

    async fn connect(&self) -> ToolResult<Connected> {
        let display = self.target.display.clone();
        let x = tokio::task::spawn_blocking(move || X11::connect(&display))
            .await
            .map_err(|e| texts::unreachable("X display", &e.to_string()))?
            .map_err(|e| {
                texts::unreachable(&format!("X display {}", self.target.display), &e.0)
            })?;
        let address = match &self.target.a11y_bus {
            Some(a) => a.clone(),
            None => a11y_address(self.target.session_bus.as_deref()).await?,
        };
        let a11y = zbus::connection::Builder::address(address.as_str())
            .map_err(|e| texts::unreachable("accessibility bus", &e.to_string()))?
            .build()
            .await
            .map_err(|e| texts::unreachable("accessibility bus", &e.to_string()))?;
        let events = Arc::new(EventLog::new());
        let watching = events::watch(&a11y, events.clone()).await;
        Ok(Connected {
            a11y,
            x: Arc::new(x),
            events,
            watching,
        })
    }

    /// Enumerates the desktop's top-level windows (or returns the previous list when `refresh`
    /// is false), assigning ids.
    pub async fn list_windows(
        &self,
        remove_empty: bool,
        refresh: bool,
    ) -> ToolResult<Vec<WindowSummary>> {
        if !refresh {
            let maps = self.maps.lock().await;
            if !maps.listed_windows.is_empty() {
                return Ok(maps
                    .listed_windows
                    .iter()
                    .filter_map(|id| maps.window_info.get(id))
                    .filter(|w| !remove_empty || !w.name.is_empty())
                    .map(WindowEntry::summary)
                    .collect());
            }
        }
        let c = self.connected().await?;
        let found = enumerate_windows(&c.a11y).await?;
        let mut maps = self.maps.lock().await;
        let present: HashSet<ObjKey> = found.iter().map(|f| f.key.clone()).collect();
        for w in maps.window_info.values_mut() {
            w.open = present.contains(&w.key);
        }
        let mut listed = Vec::new();
        for f in found {
            let id = match maps.windows.get(&f.key) {
                Some(id) => *id,
                None => {
                    maps.next_window += 1;
                    let id = maps.next_window;
                    maps.windows.insert(f.key.clone(), id);
                    id
                }
            };
            let entry = maps.window_info.entry(id).or_insert_with(|| WindowEntry {
                id,
                key: f.key.clone(),
                name: String::new(),
                kind: WindowType::Window,
                app: String::new(),
                pid: None,
                open: true,
                previous: None,
                rect: None,
            });
            entry.name = f.name;
            entry.kind = f.kind;
            entry.app = f.app;
            entry.pid = f.pid;
            entry.open = true;
            entry.rect = f.rect;
            listed.push(id);
        }
        maps.listed_windows = listed.clone();
        Ok(listed
            .iter()
            .filter_map(|id| maps.window_info.get(id))
            .filter(|w| !remove_empty || !w.name.is_empty())
            .map(WindowEntry::summary)
            .collect())
    }

    /// Verifies a window id against the last enumeration; returns the entry and a warning on a
    /// name mismatch.
    pub async fn window(
        &self,
        id: &str,
        name: Option<&str>,
    ) -> ToolResult<(WindowEntry, Option<String>)> {
        let maps = self.maps.lock().await;
        if maps.listed_windows.is_empty() {
            return Err(texts::NO_WINDOWS.to_owned());
        }
        if id.trim().is_empty() {
            return Err(texts::empty_id("window"));
        }
        let known: Vec<String> = maps.listed_windows.iter().map(u64::to_string).collect();
        let entry = id
            .trim()
            .parse::<u64>()
            .ok()
            .and_then(|n| maps.window_info.get(&n))
            .ok_or_else(|| texts::unknown_window(id, &known))?;
        if !entry.open {
            return Err(texts::window_gone(id, &entry.name));
        }
        let warning = name
            .filter(|n| describe::undouble(n) != entry.name)
            .map(|n| texts::name_mismatch(id, &entry.name, n));
        Ok((entry.clone(), warning))
    }

    /// Selects a window: raises and focuses it. Returns the entry.
    pub async fn select(&self, entry: &WindowEntry) -> ToolResult<()> {
        let c = self.connected().await?;
        let x = c.x.clone();
        let pid = entry.pid;
        let title = entry.name.clone();
        let raised = tokio::task::spawn_blocking(move || -> Result<bool, String> {
            let windows = x.client_windows().map_err(|e| e.0)?;
            let mine: Vec<_> = windows
                .iter()
                .filter(|w| pid.is_some() && w.pid == pid)
                .collect();
            let pick = mine
                .iter()
                .find(|w| describe::undouble(&w.title) == title)
                .or_else(|| mine.first());
            match pick {
                Some(w) => {
                    x.activate(w.id).map_err(|e| e.0)?;
                    Ok(true)
                }
                None => Ok(false),
            }
        })
        .await
        .map_err(|e| e.to_string())??;
        if !raised {
            // No window manager entry (e.g. no WM): focus through AT-SPI.
            let _ = a11y::grab_focus(&c.a11y, &entry.key).await;
        }
        self.maps.lock().await.selected = Some(entry.id);
        Ok(())
    }

    /// The selected window, checked to still be open.
    pub async fn selected(&self) -> ToolResult<WindowEntry> {
        let maps = self.maps.lock().await;
        let id = maps
            .selected
            .ok_or_else(|| texts::NO_WINDOW_SELECTED.to_owned())?;
        let w = maps
            .window_info
            .get(&id)
            .cloned()
            .ok_or_else(|| texts::NO_WINDOW_SELECTED.to_owned())?;
        Ok(w)
    }

    /// The selected window's tree with the values of its edits, ranges and texts: the last walk
    /// while no AT-SPI event of the window's application came since (and it is younger than
    /// [`CACHE_MAX_AGE`]), else a new walk. Waits for a walk already under way.
    pub async fn snapshot(&self, window: &WindowEntry) -> ToolResult<Snapshot> {
        self.look(window, false).await
    }

    /// [`Session::snapshot`], or with `fresh` always a new walk.
    async fn look(&self, window: &WindowEntry, fresh: bool) -> ToolResult<Snapshot> {
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
                        if let Ok(mut cache) = self.cache.lock() {
                            cache.insert(window.id, (generation, walked_at, snap.clone()));
                        }
                        return Ok(snap);
                    }
                }
                Cached::Stale => {}
            }
        }
        let generation = c.events.generation();
        let snap = self.walk_snapshot(&c, window).await?;
        if c.watching
            && let Ok(mut cache) = self.cache.lock()
        {
            cache.insert(window.id, (generation, Instant::now(), snap.clone()));
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
        let Ok(mut cache) = self.cache.lock() else {
            return Cached::Stale;
        };
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
                let (mut node, _) = a11y::fetch(conn, key.clone()).await.ok()?;
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

    async fn walk_snapshot(&self, c: &Connected, window: &WindowEntry) -> ToolResult<Snapshot> {
        let mut tree = a11y::walk(&c.a11y, window.key.clone(), MAX_NODES)
            .await
            .map_err(|_| texts::window_gone(&window.id.to_string(), &window.name))?;
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

    /// What to add to the window's AT-SPI extents to get screen coordinates. GTK4 reports
    /// extents relative to its toplevel (the frame at 0,0) even under a window manager; GTK3 and
    /// others report screen coordinates (offset 0). The toplevel's screen position comes from the
    /// X window of the same process and title.
    pub async fn offset(
        &self,
        c: &Connected,
        window: &WindowEntry,
        root_rect: Option<[i32; 4]>,
    ) -> (i32, i32) {
        let root_rect = match root_rect {
            Some(r) => Some(r),
            None => a11y::extents(&c.a11y, &window.key).await.ok().flatten(),
        };
        let Some(r) = root_rect else { return (0, 0) };
        if r[0] != 0 || r[1] != 0 {
            return (0, 0);
        }
        let x = c.x.clone();
        let pid = window.pid;
        let title = window.name.clone();
        let found = tokio::task::spawn_blocking(move || {
            let windows = x.client_windows().ok()?;
            let mine: Vec<_> = windows
                .into_iter()
                .filter(|w| pid.is_some() && w.pid == pid)
                .collect();
            mine.iter()
                .find(|w| describe::undouble(&w.title) == title)
                .or_else(|| mine.first())
                .map(|w| (w.rect[0], w.rect[1]))
        })
        .await
        .ok()
        .flatten();
        found.unwrap_or((0, 0))
    }


    /// Lists the selected window's controls: assigns ids, marks new controls, remembers the list.
    /// With `subtree` (a control id), returns only that control and its descendants; an id that
    /// is unknown, stale or of another window fails with the texts of an action on it, and a
    /// failed call is not a listing (the new markers of the next one are unchanged).
    pub async fn list_controls(
        &self,
        subtree: Option<&str>,
    ) -> ToolResult<(WindowSummary, Vec<Control>)> {
        let window = self.selected().await?;
        let snap = self.snapshot(&window).await?;
        let mut maps = self.maps.lock().await;
        let previous = maps
            .window_info
            .get(&window.id)
            .and_then(|w| w.previous.clone());
        let mut seen = HashSet::new();
        let mut controls = Vec::new();
        for d in snap.described {
            seen.insert(d.key.clone());
            if !d.listed {
                continue;
            }
            let id = match maps.controls.get(&d.key) {
                Some(id) => *id,
                None => {
                    maps.next_control += 1;
                    let id = maps.next_control;
                    maps.controls.insert(d.key.clone(), id);
                    id
                }
            };
            let is_new = previous.as_ref().is_some_and(|p| !p.contains(&d.key));
            let mut c = Control::new(id.to_string(), d.kind, &d.name)
                .with_states(d.states.iter().copied())
                .with_interactive(d.interactive);
            if let Some(v) = &d.value {
                c = c.with_value(v.clone());
            }
            if let Some(r) = d.rect {
                c = c.with_rect(r);
            }
            if is_new {
                c = c.new_since_last();
            }
            if d.row_text {
                c = c.as_row_text();
            }
            c = c.with_extra("role", d.role);
            controls.push((d.node, c));
            maps.control_info.insert(
                id,
                ControlEntry {
                    id,
                    window: window.id,
                    alive: true,
                    described: d,
                },
            );
        }
        // Controls of this window that are gone keep their ids (never reused) but fail.
        for entry in maps.control_info.values_mut() {
            if entry.window == window.id && !seen.contains(&entry.described.key) {
                entry.alive = false;
            }
        }
        let controls = match subtree {
            None => controls.into_iter().map(|(_, c)| c).collect(),
            Some(id) => {
                let root = resolve_control(&maps, &window, id, None)?
                    .entry
                    .described
                    .node;
                let end = subtree_end(&snap.tree, root);
                controls
                    .into_iter()
                    .filter(|(node, _)| (root..end).contains(node))
                    .map(|(_, c)| c)
                    .collect()
            }
        };
        let root_rect = snap.tree.nodes.first().and_then(|n| n.rect);
        if let Some(w) = maps.window_info.get_mut(&window.id) {
            w.previous = Some(seen);
            if root_rect.is_some() {
                w.rect = root_rect;
            }
        }
        let summary = maps
            .window_info
            .get(&window.id)
            .map(WindowEntry::summary)
            .unwrap_or_else(|| window.summary());
        Ok((summary, controls))
    }

    /// Resolves a control id of the selected window (`name` as a check).
    pub async fn control(&self, id: &str, name: Option<&str>) -> ToolResult<Resolved> {
        let window = self.selected().await?;
        let maps = self.maps.lock().await;
        resolve_control(&maps, &window, id, name)
    }

    /// Checks a control right before acting: it still exists, is visible, on screen and enabled
    /// (waits up to 10 s for enabled). Returns its current rect.
    pub async fn validate(
        &self,
        entry: &ControlEntry,
        action: &str,
    ) -> ToolResult<Option<[i32; 4]>> {
        let c = self.connected().await?;
        let key = &entry.described.key;
        let id = entry.id.to_string();
        let name = entry.described.name.clone();
        let deadline = Instant::now() + ENABLE_WAIT;
        loop {
            let states = a11y::states(&c.a11y, key)
                .await
                .map_err(|_| texts::vanished(&id, &name))?;
            if states.contains(State::Defunct) {
                return Err(texts::vanished(&id, &name));
            }
            if !states.contains(State::Visible) && !states.contains(State::Showing) {
                return Err(texts::not_interactable(
                    &id,
                    &name,
                    action,
                    "not visible",
                ));
            }
            let enabled = states.contains(State::Enabled) || states.contains(State::Sensitive);
            if enabled {
                // The visible area: the overlap of the scrolled containers around it (a GTK3
                // viewport may lose its extents once scrolled far; its scroll pane keeps them).
                let (rect, clips) = futures::join!(
                    a11y::extents(&c.a11y, key),
                    join_all(
                        entry
                            .described
                            .clips
                            .iter()
                            .map(|k| a11y::extents(&c.a11y, k))
                    )
                );
                let clip_rect = clips
                    .into_iter()
                    .filter_map(|r| r.ok().flatten())
                    .reduce(|a, b| describe::intersect(a, b).unwrap_or([a[0], a[1], a[0], a[1]]));
                let window = self.selected().await?;
                let (dx, dy) = self.offset(&c, &window, None).await;
                let shift = |r: [i32; 4]| [r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy];
                let rect = rect.ok().flatten().map(shift);
                // Scrolled out of its container: the tools do not scroll (docs/observation.md
                // `offscreen`). Partly visible: act on the visible part.
                let scrolled_out =
                    || texts::not_interactable(&id, &name, action, texts::SCROLLED_OUT);
                let rect = if entry.described.scrolled {
                    match (rect, clip_rect.map(shift)) {
                        (None, _) => return Err(scrolled_out()),
                        (Some(r), Some(area)) => {
                            Some(describe::intersect(r, area).ok_or_else(scrolled_out)?)
                        }
                        (Some(r), None) => Some(r),
                    }
                } else {
                    rect
                };
                let (sw, sh) = (i32::from(c.x.size.0), i32::from(c.x.size.1));
                if let Some(r) = rect
                    && (r[2] <= 0 || r[3] <= 0 || r[0] >= sw || r[1] >= sh)
                {
                    return Err(texts::not_interactable(
                        &id,
                        &name,
                        action,
                        "off screen; scroll it into view first",
                    ));
                }
                return Ok(rect);
            }
            if Instant::now() >= deadline {
                return Err(texts::not_interactable(&id, &name, action, "disabled"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
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

    /// The selected window's rect at the last look (refreshed from AT-SPI).
    pub async fn window_rect(&self, window: &WindowEntry) -> ToolResult<[i32; 4]> {
        let c = self.connected().await?;
        if let Ok(Some(r)) = a11y::extents(&c.a11y, &window.key).await {
            let (dx, dy) = self.offset(&c, window, Some(r)).await;
            return Ok([r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy]);
        }
        window
            .rect
            .ok_or_else(|| texts::window_gone(&window.id.to_string(), &window.name))
    }

    /// Controls of the last listing of the selected window (for annotation).
    pub async fn listed_controls(&self, window: u64) -> Vec<(u64, Described)> {
        let maps = self.maps.lock().await;
        let mut v: Vec<(u64, Described)> = maps
            .control_info
            .values()
            .filter(|c| c.window == window && c.alive)
            .map(|c| (c.id, c.described.clone()))
            .collect();
        v.sort_by_key(|(id, _)| *id);
        v
    }

    /// Finds a window whose process is `pid` (or whose app is `app`), enumerating again.
    pub async fn find_window_of(
        &self,
        pid: Option<u32>,
        app: &str,
        exclude: &HashSet<ObjKey>,
    ) -> ToolResult<Option<WindowEntry>> {
        self.list_windows(false, true).await?;
        let maps = self.maps.lock().await;
        let mut candidates: Vec<&WindowEntry> = maps
            .listed_windows
            .iter()
            .filter_map(|id| maps.window_info.get(id))
            .filter(|w| !exclude.contains(&w.key))
            .collect();
        candidates.sort_by_key(|w| w.id);
        Ok(candidates
            .iter()
            .find(|w| pid.is_some() && w.pid == pid)
            .or_else(|| candidates.iter().find(|w| w.app == app))
            .map(|w| (*w).clone()))
    }

    /// Keys of the windows open now.
    pub async fn open_window_keys(&self) -> HashSet<ObjKey> {
        let maps = self.maps.lock().await;
        maps.window_info
            .values()
            .filter(|w| w.open)
            .map(|w| w.key.clone())
            .collect()
    }
}

/// Resolves a control id against the id maps for `window`: the texts of an unknown id, an id of
/// another window, a vanished control, and the name-mismatch warning.
fn resolve_control(
    maps: &Maps,
    window: &WindowEntry,
    id: &str,
    name: Option<&str>,
) -> ToolResult<Resolved> {
    let mut in_window: Vec<&ControlEntry> = maps
        .control_info
        .values()
        .filter(|c| c.window == window.id && c.alive)
        .collect();
    in_window.sort_by_key(|c| c.id);
    if in_window.is_empty() && maps.control_info.is_empty() {
        return Err(texts::NO_CONTROLS.to_owned());
    }
    if id.trim().is_empty() {
        return Err(texts::empty_id("control"));
    }
    let known: Vec<String> = in_window.iter().map(|c| c.id.to_string()).collect();
    let entry = id
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| maps.control_info.get(&n))
        .ok_or_else(|| texts::unknown_control(id, &known))?;
    if entry.window != window.id {
        let (wid, wname) = maps
            .window_info
            .get(&entry.window)
            .map(|w| (w.id.to_string(), w.name.clone()))
            .unwrap_or_else(|| (entry.window.to_string(), String::new()));
        return Err(texts::other_window(id, &wid, &wname));
    }
    if !entry.alive {
        return Err(texts::vanished(id, &entry.described.name));
    }
    let warning = name
        .filter(|n| describe::undouble(n) != entry.described.name)
        .map(|n| texts::name_mismatch(id, &entry.described.name, n));
    Ok(Resolved {
        entry: entry.clone(),
        warning,
    })
}

/// One past the last node of the subtree at `root` (nodes are in depth-first order, so a
/// subtree is the run of deeper nodes that follows its root).
fn subtree_end(tree: &Tree, root: usize) -> usize {
    let depth = tree.nodes.get(root).map_or(0, |n| n.depth);
    tree.nodes
        .iter()
        .enumerate()
        .skip(root + 1)
        .find(|(_, n)| n.depth <= depth)
        .map_or(tree.nodes.len(), |(i, _)| i)
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

/// Looks up the accessibility bus through the session bus.
async fn a11y_address(session_bus: Option<&str>) -> ToolResult<String> {
    let conn = match session_bus {
        Some(addr) => {
            zbus::connection::Builder::address(addr)
                .map_err(|e| texts::unreachable("session bus", &e.to_string()))?
                .build()
                .await
        }
        None => Connection::session().await,
    }
    .map_err(|e| texts::unreachable("session bus", &e.to_string()))?;
    let reply = conn
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.a11y.Bus"),
            "GetAddress",
            &(),
        )
        .await
        .map_err(|e| texts::unreachable("accessibility bus (org.a11y.Bus)", &e.to_string()))?;
    reply
        .body()
        .deserialize::<String>()
        .map_err(|e| texts::unreachable("accessibility bus", &e.to_string()))
}

struct FoundWindow {
    key: ObjKey,
    name: String,
    kind: WindowType,
    app: String,
    pid: Option<u32>,
    rect: Option<[i32; 4]>,
}

async fn enumerate_windows(conn: &Connection) -> ToolResult<Vec<FoundWindow>> {
    let apps = a11y::applications(conn)
        .await
        .map_err(|e| texts::unreachable("accessibility registry", &e.to_string()))?;
    let per_app = join_all(apps.into_iter().map(|app| async move {
        let (name, kids, pid) = futures::join!(
            a11y::name(conn, &app),
            a11y::children(conn, &app),
            a11y::bus_pid(conn, &app.bus)
        );
        let app_name = name.unwrap_or_default();
        let root = root_name(pid, &app_name);
        let wins = join_all(kids.unwrap_or_default().into_iter().map(|w| async move {
            let (role, name, states, rect) = futures::join!(
                a11y::role(conn, &w),
                a11y::name(conn, &w),
                a11y::states(conn, &w),
                a11y::extents(conn, &w)
            );
            (
                w,
                role.ok(),
                name.unwrap_or_default(),
                states.ok(),
                rect.ok().flatten(),
            )
        }))
        .await;
        wins.into_iter()
            .filter_map(|(key, role, name, states, rect)| {
                let role = role?;
                let states = states?;
                if !WINDOW_ROLES.contains(&role) || !states.contains(State::Showing) {
                    return None;
                }
                Some(FoundWindow {
                    key,
                    name: describe::undouble(&name),
                    kind: if DIALOG_ROLES.contains(&role) {
                        WindowType::Dialog
                    } else {
                        WindowType::Window
                    },
                    app: root.clone(),
                    pid,
                    rect,
                })
            })
            .collect::<Vec<_>>()
    }))
    .await;
    Ok(per_app.into_iter().flatten().collect())
}

const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "bash", "sh", "dash", "zsh",
    "java", "gjs", "lua",
];

fn is_interpreter(exe: &str) -> bool {
    let base = exe.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&exe) || INTERPRETERS.contains(&base)
}

/// The root name of a process: the executable's basename, or for an interpreter the basename of
/// the script it runs; the AT-SPI application name when the process cannot be read.
pub fn root_name(pid: Option<u32>, app_name: &str) -> String {
    let Some(pid) = pid else {
        return app_name.to_owned();
    };
    let exe = std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let Some(exe) = exe else {
        return app_name.to_owned();
    };
    if is_interpreter(&exe)
        && let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline"))
    {
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .skip(1)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "-m" {
                if let Some(m) = it.next() {
                    return m.clone();
                }
            } else if a == "-c" {
                break;
            } else if !a.starts_with('-') {
                return std::path::Path::new(a)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| a.clone());
            }
        }
    }
    exe
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_are_recognised() {
        assert!(is_interpreter("python3.11"));
        assert!(is_interpreter("bash"));
        assert!(!is_interpreter("mousepad"));
    }

    #[test]
    fn root_name_of_this_process_is_its_executable() {
        let me = root_name(Some(std::process::id()), "x");
        assert!(!me.is_empty() && me != "x", "{me}");
        assert_eq!(root_name(None, "gnome-calculator"), "gnome-calculator");
    }

    fn tree_of_depths(depths: &[usize]) -> Tree {
        Tree {
            nodes: depths
                .iter()
                .enumerate()
                .map(|(i, d)| a11y::Node {
                    key: ObjKey::new(":1.1", format!("/n{i}")),
                    role: 0,
                    name: String::new(),
                    states: atspi::StateSet::empty(),
                    interfaces: Vec::new(),
                    rect: None,
                    labelled_by: Vec::new(),
                    parent: None,
                    children: Vec::new(),
                    depth: *d,
                    scrolled: false,
                })
                .collect(),
        }
    }

    #[test]
    fn a_subtree_is_the_run_of_deeper_nodes_after_its_root() {
        //            0  1  2  3  4  5  6
        let t = tree_of_depths(&[0, 1, 2, 3, 2, 1, 2]);
        assert_eq!(subtree_end(&t, 0), 7);
        assert_eq!(subtree_end(&t, 1), 5);
        assert_eq!(subtree_end(&t, 2), 4);
        assert_eq!(subtree_end(&t, 3), 4);
        assert_eq!(subtree_end(&t, 5), 7);
        assert_eq!(subtree_end(&t, 6), 7);
    }
}
