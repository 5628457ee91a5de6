//! One desktop session: the connections to the desktop, the window and control id maps (unique in
//! the device session, never reused), the selected window, and the operations the tools share
//! (list windows, select, list controls, resolve and validate a control, detect an effect).
//! This file owns the session's state and its connections; `windows`, `cache` (with `patch`;
//! both give a `snapshot`), `controls`, `effect` and `find` own the operations.

mod cache;
mod controls;
mod effect;
mod find;
mod patch;
mod snapshot;
mod windows;

pub use controls::Look;
pub use find::WaitAnswer;
pub use snapshot::Snapshot;
pub use windows::is_module_host;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use deft_protocol::observation::{WindowSummary, WindowType};
use tokio::sync::{Mutex, OnceCell};
use zbus::Connection;

use crate::a11y::{self, ObjKey};
use crate::describe::Described;
use crate::error::{ToolError, ToolResult};
use crate::events::{self, EventLog};
use crate::target::DesktopTarget;
use crate::x11::X11;

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
    /// The previous listing's controls, the whole window (for the change listing).
    pub last_listing: Option<Vec<deft_protocol::observation::Control>>,
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
pub struct DesktopSession {
    target: DesktopTarget,
    conn: OnceCell<Arc<Connected>>,
    maps: Mutex<Maps>,
    /// Last walk per window, with the event count it was taken at.
    cache: parking_lot::Mutex<HashMap<u64, (u64, Instant, Snapshot)>>,
    /// Held while a window is walked, so a look waits for a walk under way (one started in
    /// the background after an action) instead of walking again beside it.
    walking: Mutex<()>,
    /// How many `wait_for_control` waits run now.
    waits: std::sync::atomic::AtomicUsize,
    /// Looks at a window: walked whole, and brought up to date from events (patched).
    looks: Looks,
}

/// How the session's looks at windows were served.
#[derive(Debug, Default)]
struct Looks {
    walked: std::sync::atomic::AtomicUsize,
    patched: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Debug for DesktopSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopSession")
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

impl DesktopSession {
    /// A session on `target`; connects on first use.
    pub fn new(target: DesktopTarget) -> Self {
        DesktopSession {
            target,
            conn: OnceCell::new(),
            maps: Mutex::new(Maps::default()),
            cache: parking_lot::Mutex::new(HashMap::new()),
            walking: Mutex::new(()),
            waits: std::sync::atomic::AtomicUsize::new(0),
            looks: Looks::default(),
        }
    }

    /// How many looks at windows walked them whole, and how many brought a cached walk up to
    /// date from events instead.
    pub fn looks(&self) -> (usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.looks.walked.load(Relaxed),
            self.looks.patched.load(Relaxed),
        )
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
            .map_err(|e| ToolError::unreachable("X display", e))?
            .map_err(|e| {
                ToolError::unreachable(format!("X display {}", self.target.display), e.0)
            })?;
        let address = match &self.target.a11y_bus {
            Some(a) => a.clone(),
            None => a11y_address(self.target.session_bus.as_deref()).await?,
        };
        let a11y = zbus::connection::Builder::address(address.as_str())
            .map_err(|e| ToolError::unreachable("accessibility bus", e))?
            .build()
            .await
            .map_err(|e| ToolError::unreachable("accessibility bus", e))?;
        let events = Arc::new(EventLog::new());
        let watching = events::watch(&a11y, events.clone()).await;
        Ok(Connected {
            a11y,
            x: Arc::new(x),
            events,
            watching,
        })
    }
}

/// Looks up the accessibility bus through the session bus.
async fn a11y_address(session_bus: Option<&str>) -> ToolResult<String> {
    let conn = match session_bus {
        Some(addr) => {
            zbus::connection::Builder::address(addr)
                .map_err(|e| ToolError::unreachable("session bus", e))?
                .build()
                .await
        }
        None => Connection::session().await,
    }
    .map_err(|e| ToolError::unreachable("session bus", e))?;
    let reply = a11y::ask_a11y_address(&conn)
        .await
        .map_err(|e| ToolError::unreachable("accessibility bus (org.a11y.Bus)", e))?;
    reply
        .body()
        .deserialize::<String>()
        .map_err(|e| ToolError::unreachable("accessibility bus", e))
}
