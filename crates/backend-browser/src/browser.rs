//! One browser of a device session: the CDP connection, the process deft started (if any), the
//! session state its parts share and, while a domain list is set, the URL policy's own
//! connection (`guard`); each concern lives in a module of its own.

mod agent;
mod clipboard;
mod config;
mod controls;
mod dialogs;
mod error;
mod events;
mod frames;
mod guard;
mod listing;
mod navigation;
mod settle;
mod state;
mod tabs;
mod twins;
mod wait;

use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;

use serde_json::json;

pub(crate) use agent::AGENT_JS;
pub(crate) use clipboard::ClipboardRead;
pub use config::BrowserConfig;
pub(crate) use controls::{Point, parse_id};
pub use error::BrowserError;
pub(crate) use error::Result;
pub(crate) use listing::Listing;
pub(crate) use state::{ControlRef, Dialog};
pub(crate) use wait::Waited;

use crate::cdp::Cdp;
use crate::launch::{self, ChromiumProcess};
use crate::policy::UrlPolicy;
use crate::texts;
use state::State;

/// What the parts of a browser share: the connection, the process, the session state.
pub(crate) struct Inner {
    cdp: Cdp,
    process: Mutex<Option<ChromiumProcess>>,
    state: Mutex<State>,
    policy: UrlPolicy,
    downloads: PathBuf,
    upload_dirs: Vec<PathBuf>,
    /// The longest timer of an action's handlers its settling waits for (ms).
    settle_timers_ms: u64,
    /// The clipboard's own page.
    clipboard: clipboard::ClipboardSlot,
    /// The URL policy's own connection, while a domain list is set.
    guard: Option<guard::Guard>,
    _downloads_tmp: Option<tempfile::TempDir>,
}

impl Inner {
    /// The session state (a panic elsewhere leaves it usable: every update is one step).
    fn lock_state(&self) -> parking_lot::MutexGuard<'_, State> {
        self.state.lock()
    }
}

/// A running browser: started by deft (killed with it) or attached to.
///
/// Cheap to clone; clones share the connection and the id maps.
#[derive(Clone)]
pub struct Browser {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser").finish_non_exhaustive()
    }
}

impl Browser {
    /// Starts Chromium (or attaches, when `config.cdp_url` is set) and opens the connection.
    pub(crate) async fn start(config: &BrowserConfig) -> Result<Self> {
        let (ws, process) = match &config.cdp_url {
            Some(url) => (launch::resolve_ws_url(url).await?, None),
            None => {
                let program = launch::find_chromium(config.chromium.as_deref())?;
                let p = ChromiumProcess::start(&program, &config.chromium_args).await?;
                (p.ws_url().to_owned(), Some(p))
            }
        };
        let cdp = Cdp::connect(&ws).await?;
        let guard = if config.policy.restricts() {
            Some(guard::Guard::connect(&ws, &config.policy).await?)
        } else {
            None
        };
        let (downloads, tmp) = match (&config.downloads_dir, &process) {
            (Some(d), _) => (d.clone(), None),
            (None, Some(p)) => (
                p.profile_dir()
                    .map(|d| d.join("Downloads"))
                    .unwrap_or_default(),
                None,
            ),
            (None, None) => {
                let t = tempfile::Builder::new()
                    .prefix("deft-downloads-")
                    .tempdir()
                    .map_err(|e| BrowserError::model(texts::browser_unavailable(&e.to_string())))?;
                (t.path().to_owned(), Some(t))
            }
        };
        let _ = std::fs::create_dir_all(&downloads);
        let inner = Arc::new(Inner {
            cdp: cdp.clone(),
            process: Mutex::new(process),
            state: Mutex::new(State::default()),
            policy: config.policy.clone(),
            upload_dirs: config.upload_dirs.clone(),
            settle_timers_ms: config
                .settle_timers_ms
                .unwrap_or(config::DEFAULT_SETTLE_TIMERS_MS),
            downloads,
            clipboard: clipboard::ClipboardSlot::default(),
            guard,
            _downloads_tmp: tmp,
        });
        events::spawn_event_loop(Arc::downgrade(&inner), cdp.events());
        guard::start(&inner).await?;
        cdp.call(
            None,
            "Browser.setDownloadBehavior",
            json!({"behavior": "allow", "downloadPath": inner.downloads.to_string_lossy()}),
        )
        .await
        .ok();
        cdp.call(None, "Target.setDiscoverTargets", json!({"discover": true}))
            .await?;
        Ok(Browser { inner })
    }

    /// The process group of a browser deft started (`None` when attached).
    pub fn process_group(&self) -> Option<i32> {
        self.lock_process().as_ref().map(ChromiumProcess::pgid)
    }

    /// Stops a browser deft started (the whole process group) and removes its profile.
    pub async fn stop(&self) {
        let p = self.lock_process().take();
        if let Some(mut p) = p {
            p.stop().await;
        }
    }

    fn lock_process(&self) -> parking_lot::MutexGuard<'_, Option<ChromiumProcess>> {
        self.inner.process.lock()
    }

    fn state(&self) -> parking_lot::MutexGuard<'_, State> {
        self.inner.lock_state()
    }

    /// The CDP connection (for callers that need a protocol call the tools do not make).
    pub(crate) fn cdp(&self) -> &Cdp {
        &self.inner.cdp
    }

    /// The folders whose files may go into a file input, canonical: the downloads folder, the
    /// system temp folder and the configured `upload_dirs` (those that exist).
    pub(crate) fn upload_roots(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = [self.inner.downloads.clone(), std::env::temp_dir()]
            .into_iter()
            .chain(self.inner.upload_dirs.iter().cloned())
            .filter_map(|r| r.canonicalize().ok())
            .collect();
        roots.dedup();
        roots
    }
}
