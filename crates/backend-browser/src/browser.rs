//! One browser of a device session: the CDP connection, the tabs (windows), the frames of each
//! tab, open dialogs, and the window and control id maps (unique in the session, never reused).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use deft_protocol::observation::{
    Control, ControlType, ListingOptions, StateFlag, WindowSummary, WindowType,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cdp::{Cdp, CdpError, CdpEvent};
use crate::launch::{self, ChromiumProcess, LaunchError};
use crate::policy::{self, UrlPolicy};
use crate::texts;

/// The page agent, evaluated in every document before each use (idempotent).
pub(crate) const AGENT_JS: &str = include_str!("agent.js");

/// How the browser of a device is obtained and what it may do (routing-table `options`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserConfig {
    /// Attach to a running browser instead of starting one: `ws://…` or `http://host:port`.
    pub cdp_url: Option<String>,
    /// The Chromium program (default: `DEFT_CHROMIUM`, then `chromium` on `PATH`).
    pub chromium: Option<PathBuf>,
    /// Extra command-line flags for a started Chromium.
    pub chromium_args: Vec<String>,
    /// Where downloads land (default: a `Downloads` folder in the temporary profile).
    pub downloads_dir: Option<PathBuf>,
    /// More folders whose files `set_edit_text` may put into a file input. The downloads folder
    /// and the system temp folder always count; a path must be absolute and name an existing
    /// file whose real path (links resolved) lies inside one of them.
    pub upload_dirs: Vec<PathBuf>,
    /// Allowed/blocked domains and schemes.
    #[serde(flatten)]
    pub policy: UrlPolicy,
}

impl BrowserConfig {
    /// Parses routing-table options (`null` or `{}`: defaults). The error names the bad key.
    pub fn from_options(options: &Value) -> Result<Self, String> {
        if options.is_null() {
            return Ok(Self::default());
        }
        serde_json::from_value(options.clone())
            .map_err(|e| format!("invalid options for the browser server: {e}"))
    }
}

/// What can go wrong in a browser operation; the text is written for the model.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// Starting or attaching failed.
    #[error("{}", texts::browser_unavailable(&.0.to_string()))]
    Launch(#[from] LaunchError),
    /// The CDP connection failed.
    #[error("{}", texts::browser_failed(&.0.to_string()))]
    Cdp(#[from] CdpError),
    /// A refusal or validation failure with its model-facing text.
    #[error("{0}")]
    Model(String),
}

impl BrowserError {
    fn model(s: impl Into<String>) -> Self {
        BrowserError::Model(s.into())
    }
}

type Result<T, E = BrowserError> = std::result::Result<T, E>;

#[derive(Debug, Clone)]
struct Tab {
    target_id: String,
    session: Option<String>,
    title: String,
    url: String,
    /// Control ids of the previous listing (for the `*` new marker).
    previous: Option<HashSet<u64>>,
}

#[derive(Debug, Clone)]
struct Frame {
    parent: String,
    target_id: String,
    url: String,
    /// The iframe element that owns the frame: the parent's document token and element key
    /// (found with `DOM.getFrameOwner`, once per parent document).
    owner: Option<(String, u64)>,
}

/// A frame on the way to a control inside a cross-origin iframe: the iframe element.
#[derive(Debug, Clone)]
struct Hop {
    session: String,
    doc: String,
    key: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct ControlRef {
    pub window: u64,
    pub session: String,
    pub doc: String,
    pub key: u64,
    pub name: String,
    pub kind: ControlType,
    hops: Vec<Hop>,
}

/// An open JavaScript dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// Its message.
    pub message: String,
    session: String,
}

impl Dialog {
    /// The CDP session the dialog belongs to (a page or a frame).
    pub(crate) fn session(&self) -> &str {
        &self.session
    }
}

#[derive(Debug, Default)]
struct State {
    next_window: u64,
    next_control: u64,
    tabs: BTreeMap<u64, Tab>,
    window_of_target: HashMap<String, u64>,
    selected: Option<u64>,
    controls: HashMap<u64, ControlRef>,
    control_of: HashMap<(String, String, u64), u64>,
    /// Ids of each window's latest listing, for "unknown id" texts.
    listed_range: HashMap<u64, (u64, u64)>,
    frames: HashMap<String, Frame>,
    dialogs: HashMap<String, Dialog>,
    /// Targets closed through close_tab (the browser may list them for a moment longer).
    closed: HashSet<String>,
    /// Page sessions whose main frame is loading a new document (a link followed, a form
    /// posted, a redirect): settling waits for the new document instead of the old one.
    loading: HashSet<String>,
    /// Navigations the URL policy refused since the window's last action result.
    blocked: HashMap<u64, Vec<BlockedNavigation>>,
}

/// A document the page tried to open and the URL policy refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedNavigation {
    /// The URL the page (a link, a redirect, a frame) asked for.
    pub url: String,
    /// The policy's reason, as the model reads it.
    pub reason: String,
}

impl State {
    fn window_for_target(&mut self, target_id: &str) -> u64 {
        if let Some(id) = self.window_of_target.get(target_id) {
            return *id;
        }
        self.next_window += 1;
        let id = self.next_window;
        self.window_of_target.insert(target_id.to_owned(), id);
        id
    }

    fn control_id(&mut self, session: &str, doc: &str, key: u64) -> u64 {
        let k = (session.to_owned(), doc.to_owned(), key);
        if let Some(id) = self.control_of.get(&k) {
            return *id;
        }
        self.next_control += 1;
        let id = self.next_control;
        self.control_of.insert(k, id);
        id
    }

    /// The tab (window id) a session belongs to: the page's own session or one of its frames.
    fn window_of_session(&self, session: &str) -> Option<u64> {
        let mut s = session.to_owned();
        for _ in 0..16 {
            if let Some((id, _)) = self
                .tabs
                .iter()
                .find(|(_, t)| t.session.as_deref() == Some(s.as_str()))
            {
                return Some(*id);
            }
            s = self.frames.get(&s)?.parent.clone();
        }
        None
    }

    /// Whether `session` is a tab's own session and `frame` that tab's main frame.
    fn is_main_frame(&self, session: &str, frame: &str) -> bool {
        self.tabs
            .values()
            .any(|t| t.session.as_deref() == Some(session) && t.target_id == frame)
    }

    fn dialog_of_window(&self, window: u64) -> Option<Dialog> {
        self.dialogs
            .values()
            .find(|d| self.window_of_session(&d.session) == Some(window))
            .cloned()
    }
}

pub(crate) struct Inner {
    pub cdp: Cdp,
    process: Mutex<Option<ChromiumProcess>>,
    state: Mutex<State>,
    pub policy: UrlPolicy,
    downloads: PathBuf,
    upload_dirs: Vec<PathBuf>,
    _downloads_tmp: Option<tempfile::TempDir>,
}

/// One raw control as the page agent reports it.
#[derive(Debug, Deserialize)]
struct RawControl {
    k: u64,
    #[serde(default)]
    role: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    interactive: bool,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    states: Vec<String>,
    #[serde(default)]
    rect: Option<[i32; 4]>,
    #[serde(default)]
    text: bool,
    #[serde(default)]
    row: u64,
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    origin: Option<[i32; 2]>,
    /// How many listed controls enclose this one (for subtree views).
    #[serde(default)]
    d: u32,
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

#[derive(Debug, Deserialize)]
struct RawListing {
    doc: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    controls: Vec<RawControl>,
}

/// A listing: the window, its controls (ids assigned, new marked) and an open dialog, if any.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The tab as a window.
    pub window: WindowSummary,
    /// Every control found, in document order.
    pub controls: Vec<Control>,
    /// A dialog open on the tab.
    pub dialog: Option<Dialog>,
}

/// Where an element is, ready for input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Point {
    pub x: f64,
    pub y: f64,
}

/// A running browser: started by deft (killed with it) or attached to.
///
/// Cheap to clone; clones share the connection and the id maps.
#[derive(Clone)]
pub struct Browser {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser").finish_non_exhaustive()
    }
}

/// Limits of settling after an action.
pub const SETTLE_QUIET_MS: u64 = 20;
/// The longest an action waits for the page to settle.
pub const SETTLE_CAP_MS: u64 = 3000;
/// The longest a navigation waits for its load event.
pub const LOAD_CAP: Duration = Duration::from_secs(20);

impl Browser {
    /// Starts Chromium (or attaches, when `config.cdp_url` is set) and opens the connection.
    pub async fn start(config: &BrowserConfig) -> Result<Self> {
        let (ws, process) = match &config.cdp_url {
            Some(url) => (launch::resolve_ws_url(url).await?, None),
            None => {
                let program = launch::find_chromium(config.chromium.as_deref())?;
                let p = ChromiumProcess::start(&program, &config.chromium_args).await?;
                (p.ws_url().to_owned(), Some(p))
            }
        };
        let cdp = Cdp::connect(&ws).await?;
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
            downloads,
            _downloads_tmp: tmp,
        });
        spawn_event_loop(Arc::downgrade(&inner), cdp.events());
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

    /// The folder downloads land in.
    pub fn downloads_dir(&self) -> PathBuf {
        self.inner.downloads.clone()
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

    fn lock_process(&self) -> std::sync::MutexGuard<'_, Option<ChromiumProcess>> {
        self.inner
            .process
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The CDP connection (for callers that need a protocol call the tools do not make).
    pub fn cdp(&self) -> &Cdp {
        &self.inner.cdp
    }

    // ----- tabs -----

    /// The tabs, refreshed from the browser: `(window id, title, url)`.
    pub async fn tabs(&self) -> Result<Vec<WindowSummary>> {
        let targets = self
            .cdp()
            .call(None, "Target.getTargets", json!({}))
            .await?;
        let mut seen = HashSet::new();
        let mut st = self.state();
        for t in targets["targetInfos"].as_array().into_iter().flatten() {
            if t["type"] != "page" {
                continue;
            }
            let Some(target_id) = t["targetId"].as_str() else {
                continue;
            };
            if st.closed.contains(target_id) {
                continue;
            }
            let id = st.window_for_target(target_id);
            seen.insert(id);
            let title = t["title"].as_str().unwrap_or_default().to_owned();
            let url = t["url"].as_str().unwrap_or_default().to_owned();
            let tab = st.tabs.entry(id).or_insert_with(|| Tab {
                target_id: target_id.to_owned(),
                session: None,
                title: String::new(),
                url: String::new(),
                previous: None,
            });
            tab.title = title;
            tab.url = url;
        }
        st.tabs.retain(|id, _| seen.contains(id));
        if st.selected.is_some_and(|s| !seen.contains(&s)) {
            st.selected = None;
        }
        Ok(st.tabs.iter().map(|(id, t)| summary(*id, t)).collect())
    }

    /// The selected window id.
    pub fn selected(&self) -> Option<u64> {
        self.state().selected
    }

    /// Selects tab `id`: attaches to it, brings it to front. Returns the window summary.
    pub async fn select(&self, id: u64) -> Result<WindowSummary> {
        let (target_id, session) = {
            let st = self.state();
            let tab = st.tabs.get(&id).ok_or_else(|| {
                BrowserError::model(texts::unknown_window(
                    &id.to_string(),
                    &st.tabs.keys().map(u64::to_string).collect::<Vec<_>>(),
                ))
            })?;
            (tab.target_id.clone(), tab.session.clone())
        };
        if session.is_none() {
            let attached = self
                .cdp()
                .call(
                    None,
                    "Target.attachToTarget",
                    json!({"targetId": target_id, "flatten": true}),
                )
                .await?;
            let s = attached["sessionId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            prepare_session(self.cdp(), &s, true, self.inner.policy.restricts()).await?;
            if let Some(tab) = self.state().tabs.get_mut(&id) {
                tab.session = Some(s);
            }
        }
        self.cdp()
            .call(
                None,
                "Target.activateTarget",
                json!({"targetId": target_id}),
            )
            .await
            .ok();
        let mut st = self.state();
        st.selected = Some(id);
        let tab = st
            .tabs
            .get(&id)
            .ok_or_else(|| BrowserError::model(texts::window_gone(id)))?;
        Ok(summary(id, tab))
    }

    /// The selected tab's window id and page session.
    pub(crate) fn current(&self) -> Result<(u64, String)> {
        let st = self.state();
        let id = st
            .selected
            .ok_or_else(|| BrowserError::model(texts::NO_WINDOW))?;
        let tab = st
            .tabs
            .get(&id)
            .ok_or_else(|| BrowserError::model(texts::window_gone(id)))?;
        let s = tab
            .session
            .clone()
            .ok_or_else(|| BrowserError::model(texts::NO_WINDOW))?;
        Ok((id, s))
    }

    /// The selected tab, selecting the only tab when none is selected and there is exactly one.
    pub(crate) async fn current_or_only(&self) -> Result<(u64, String)> {
        if let Ok(c) = self.current() {
            return Ok(c);
        }
        let tabs = self.tabs().await?;
        if let [only] = tabs.as_slice() {
            let id: u64 = only.id.parse().unwrap_or_default();
            self.select(id).await?;
            return self.current();
        }
        self.current()
    }

    /// The window summary of a selected tab, re-read from the browser.
    pub async fn window_summary(&self, id: u64) -> Result<WindowSummary> {
        self.tabs().await?;
        let st = self.state();
        st.tabs
            .get(&id)
            .map(|t| summary(id, t))
            .ok_or_else(|| BrowserError::model(texts::window_gone(id)))
    }

    /// The open dialog of window `id`.
    pub fn dialog(&self, id: u64) -> Option<Dialog> {
        self.state().dialog_of_window(id)
    }

    /// Whether a dialog is open on the tab of CDP session `session` (a page or a frame).
    fn dialog_on_session(&self, session: &str) -> bool {
        let st = self.state();
        st.window_of_session(session)
            .is_some_and(|w| st.dialog_of_window(w).is_some())
    }

    /// Fails with the dialog text when a dialog blocks window `id`.
    pub(crate) fn ensure_no_dialog(&self, id: u64) -> Result<()> {
        match self.dialog(id) {
            Some(d) => Err(BrowserError::model(texts::dialog_open(&d.kind, &d.message))),
            None => Ok(()),
        }
    }

    /// Opens a new tab at `url` (policy-checked) and selects it.
    pub async fn new_tab(&self, url: Option<&str>) -> Result<WindowSummary> {
        if let Some(u) = url {
            self.inner.policy.check(u).map_err(BrowserError::model)?;
        }
        let created = self
            .cdp()
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await?;
        let target = created["targetId"].as_str().unwrap_or_default().to_owned();
        let id = {
            let mut st = self.state();
            let id = st.window_for_target(&target);
            st.tabs.insert(
                id,
                Tab {
                    target_id: target,
                    session: None,
                    title: String::new(),
                    url: "about:blank".into(),
                    previous: None,
                },
            );
            id
        };
        self.select(id).await?;
        if let Some(u) = url {
            self.navigate(u).await?;
        }
        self.window_summary(id).await
    }

    /// Closes tab `id`.
    pub async fn close_tab(&self, id: u64) -> Result<()> {
        let target = {
            let st = self.state();
            st.tabs
                .get(&id)
                .map(|t| t.target_id.clone())
                .ok_or_else(|| {
                    BrowserError::model(texts::unknown_window(
                        &id.to_string(),
                        &st.tabs.keys().map(u64::to_string).collect::<Vec<_>>(),
                    ))
                })?
        };
        let mut events = self.cdp().events();
        self.cdp()
            .call(None, "Target.closeTarget", json!({"targetId": target}))
            .await?;
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match events.recv().await {
                    Ok(e)
                        if e.method == "Target.targetDestroyed"
                            && e.params["targetId"] == target.as_str() =>
                    {
                        return;
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return,
                }
            }
        })
        .await;
        let mut st = self.state();
        st.closed.insert(target.clone());
        st.tabs.remove(&id);
        if st.selected == Some(id) {
            st.selected = None;
        }
        Ok(())
    }

    /// Navigates the selected tab to `url` (policy-checked); waits for load and settle.
    pub async fn navigate(&self, url: &str) -> Result<u64> {
        self.inner.policy.check(url).map_err(BrowserError::model)?;
        let (id, session) = self.current_or_only().await?;
        self.ensure_no_dialog(id)?;
        let mut events = self.cdp().events();
        let Some(answer) = self
            .call_or_dialog(&session, "Page.navigate", json!({"url": url}))
            .await?
        else {
            return Ok(0);
        };
        if let Some(err) = answer["errorText"].as_str().filter(|e| !e.is_empty()) {
            // Chromium still commits its error page; let it finish before the next call.
            let _ =
                tokio::time::timeout(Duration::from_secs(5), wait_for_load(&mut events, &session))
                    .await;
            return Err(BrowserError::model(texts::navigation_failed(url, err)));
        }
        // A same-document navigation (#fragment) has no load event.
        if answer.get("loaderId").is_some() && wait_for_load(&mut events, &session).await {
            self.dialog_recorded().await;
            return Ok(0);
        }
        let ms = self.settle(&session).await;
        Ok(ms)
    }

    /// Goes one entry back (`delta` -1) or forward (+1) in the tab's history.
    pub async fn history(&self, delta: i64) -> Result<u64> {
        let (id, session) = self.current()?;
        self.ensure_no_dialog(id)?;
        let h = self
            .cdp()
            .call(Some(&session), "Page.getNavigationHistory", json!({}))
            .await?;
        let index = h["currentIndex"].as_i64().unwrap_or(0) + delta;
        let entries = h["entries"].as_array().cloned().unwrap_or_default();
        let Some(entry) = usize::try_from(index).ok().and_then(|i| entries.get(i)) else {
            return Err(BrowserError::model(texts::no_history(if delta < 0 {
                "back"
            } else {
                "forward"
            })));
        };
        if let Some(u) = entry["url"].as_str() {
            self.inner.policy.check(u).map_err(BrowserError::model)?;
        }
        let mut events = self.cdp().events();
        if self
            .call_or_dialog(
                &session,
                "Page.navigateToHistoryEntry",
                json!({"entryId": entry["id"]}),
            )
            .await?
            .is_none()
            || wait_for_load(&mut events, &session).await
        {
            self.dialog_recorded().await;
            return Ok(0);
        }
        Ok(self.settle(&session).await)
    }

    /// Reloads the selected tab.
    pub async fn reload(&self) -> Result<u64> {
        let (id, session) = self.current()?;
        self.ensure_no_dialog(id)?;
        let mut events = self.cdp().events();
        if self
            .call_or_dialog(&session, "Page.reload", json!({}))
            .await?
            .is_none()
            || wait_for_load(&mut events, &session).await
        {
            self.dialog_recorded().await;
            return Ok(0);
        }
        Ok(self.settle(&session).await)
    }

    /// Calls `method`; `None` when a dialog (e.g. `beforeunload`) opened first and holds the
    /// answer back until it is handled.
    async fn call_or_dialog(
        &self,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Option<Value>> {
        let mut events = self.cdp().events();
        // A dialog recorded before this call (opened between tool calls) blocks it already.
        if self.dialog_on_session(session) {
            return Ok(None);
        }
        let rx = self.cdp().send(Some(session), method, params)?;
        let dialog = crate::cdp::dialog_opening(&mut events);
        tokio::select! {
            r = rx => match r {
                Ok(Ok(v)) => Ok(Some(v)),
                Ok(Err(message)) => Err(BrowserError::Cdp(CdpError::Protocol {
                    method: method.to_owned(),
                    message,
                })),
                Err(_) => Err(BrowserError::Cdp(CdpError::Closed)),
            },
            () = dialog => {
                self.dialog_recorded().await;
                Ok(None)
            }
            () = tokio::time::sleep(crate::cdp::CALL_LIMIT) => Err(BrowserError::Cdp(CdpError::Timeout {
                method: method.to_owned(),
                secs: crate::cdp::CALL_LIMIT.as_secs(),
            })),
        }
    }

    // ----- page agent -----

    /// Evaluates `call` (an expression using `__deft`) in `session`'s main frame.
    pub(crate) async fn eval(&self, session: &str, call: &str) -> Result<Value> {
        let expression = format!("{AGENT_JS}\n;({call})");
        // A dialog that opens meanwhile blocks the page's script until it is answered.
        let Some(r) = self
            .call_or_dialog(
                session,
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await?
        else {
            let d = {
                let st = self.state();
                st.window_of_session(session)
                    .and_then(|w| st.dialog_of_window(w))
                    .or_else(|| st.dialogs.values().next().cloned())
            };
            return Err(BrowserError::model(match d {
                Some(d) => texts::dialog_open(&d.kind, &d.message),
                None => texts::browser_failed("a dialog interrupted the page"),
            }));
        };
        if let Some(ex) = r.get("exceptionDetails") {
            let text = ex["exception"]["description"]
                .as_str()
                .or_else(|| ex["text"].as_str())
                .unwrap_or("script error");
            return Err(BrowserError::Cdp(CdpError::Protocol {
                method: "Runtime.evaluate".into(),
                message: text.to_owned(),
            }));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Waits until the page settles: no XHR/fetch in flight and the DOM quiet for
    /// [`SETTLE_QUIET_MS`], capped at [`SETTLE_CAP_MS`]. Returns the milliseconds waited.
    pub(crate) async fn settle(&self, session: &str) -> u64 {
        let t0 = Instant::now();
        let call = format!("__deft.settle({SETTLE_QUIET_MS}, {SETTLE_CAP_MS})");
        let mut events = self.cdp().events();
        for _ in 0..3 {
            let eval = self.eval(session, &call);
            let dialog = crate::cdp::dialog_opening(&mut events);
            tokio::select! {
                r = eval => {
                    if self.dialog_on_session(session)
                        || (r.is_ok() && !self.is_loading(session))
                    {
                        break;
                    }
                    // A new document is on its way (a link, a form, a redirect) or the context
                    // went away: wait for the document, then settle that one.
                    if !self.document_loaded(session, t0 + Duration::from_millis(SETTLE_CAP_MS)).await {
                        break;
                    }
                }
                () = dialog => {
                    self.dialog_recorded().await;
                    break;
                }
                () = tokio::time::sleep(Duration::from_millis(SETTLE_CAP_MS + 500)) => break,
            }
        }
        t0.elapsed().as_millis() as u64
    }

    /// Waits until cross-origin frame session `frame` settles like [`Browser::settle`] (its
    /// loads are the page's business); a frame that went away or a dialog ends the wait.
    pub(crate) async fn settle_frame(&self, frame: &str) {
        let call = format!("__deft.settle({SETTLE_QUIET_MS}, {SETTLE_CAP_MS})");
        let mut events = self.cdp().events();
        tokio::select! {
            _ = self.eval(frame, &call) => {}
            () = crate::cdp::dialog_opening(&mut events) => {}
            () = tokio::time::sleep(Duration::from_millis(SETTLE_CAP_MS + 500)) => {}
        }
    }

    fn is_loading(&self, session: &str) -> bool {
        self.state().loading.contains(session)
    }

    /// Waits until `session`'s main frame has stopped loading, or `deadline`; `false` on the
    /// deadline. The event loop keeps the loading state; events only wake the check.
    async fn document_loaded(&self, session: &str, deadline: Instant) -> bool {
        let mut events = self.cdp().events();
        // The context went away just now: the new document's loading may not be recorded yet.
        let started = Instant::now();
        while self.is_loading(session) || started.elapsed() < Duration::from_millis(5) {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            let step = (deadline - now).min(Duration::from_millis(10));
            let _ = tokio::time::timeout(step, events.recv()).await;
        }
        true
    }

    /// The navigations the URL policy refused in `window` since this was last asked.
    pub(crate) fn take_blocked(&self, window: u64) -> Vec<BlockedNavigation> {
        self.state().blocked.remove(&window).unwrap_or_default()
    }

    /// Waits (briefly) until the event loop has recorded a dialog whose opening was seen.
    pub(crate) async fn dialog_recorded(&self) {
        for _ in 0..250 {
            if !self.state().dialogs.is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    // ----- controls -----

    /// Lists the selected tab's controls (frames and shadow roots included), assigning ids and
    /// marking new ones when `mark` (a listing the model sees) is set.
    pub async fn list(&self, opts: &ListingOptions, mark: bool) -> Result<Listing> {
        let (id, session) = self.current()?;
        self.ensure_no_dialog(id)?;
        let subtree = match opts.subtree.as_deref() {
            Some(given) => Some(self.control(given, None)?.0),
            None => None,
        };
        let fields = opts.fields();
        let want_role = fields.iter().any(|f| f == "role");
        let raw = self.list_session(&session, &fields, 0).await?;
        let mut controls = Vec::with_capacity(raw.controls.len());
        let mut ids = HashSet::new();
        let mut st = self.state();
        let previous = st.tabs.get(&id).and_then(|t| t.previous.clone());
        // Row ids of the agent (keys) → whether the row is known as a row-text host.
        for (sess, doc, hops, c) in &raw.controls {
            let cid = st.control_id(sess, doc, c.k);
            ids.insert(cid);
            let kind = if c.role == "StaticText" {
                ControlType::Text
            } else if c.role == "meter" {
                ControlType::Progressbar
            } else if c.role == "status" {
                ControlType::Statusbar
            } else {
                ControlType::from_aria_role(&c.role)
            };
            let mut control = Control::new(cid.to_string(), kind, c.name.clone())
                .with_interactive(c.interactive)
                .with_states(c.states.iter().filter_map(|s| s.parse::<StateFlag>().ok()));
            if let Some(v) = &c.value {
                control = control.with_value(v.clone());
            }
            if let Some(r) = c.rect {
                control = control.with_rect(r);
            }
            if c.text && c.row != 0 {
                control = control.as_row_text();
            }
            if want_role {
                control = control.with_extra("role", c.role.clone());
            }
            for (k, v) in &c.extra {
                if fields.iter().any(|f| f == k) {
                    control = control.with_extra(k.clone(), v.clone());
                }
            }
            if mark && previous.as_ref().is_some_and(|p| !p.contains(&cid)) {
                control = control.new_since_last();
            }
            st.controls.insert(
                cid,
                ControlRef {
                    window: id,
                    session: sess.clone(),
                    doc: doc.clone(),
                    key: c.k,
                    name: c.name.clone(),
                    kind,
                    hops: hops.clone(),
                },
            );
            controls.push(control);
        }
        let tab = st
            .tabs
            .get_mut(&id)
            .ok_or_else(|| BrowserError::model(texts::window_gone(id)))?;
        tab.title = raw.title.clone();
        tab.url = raw.url.clone();
        if mark {
            tab.previous = Some(ids.clone());
            let lo = ids.iter().min().copied();
            let hi = ids.iter().max().copied();
            if let (Some(lo), Some(hi)) = (lo, hi) {
                st.listed_range.insert(id, (lo, hi));
            }
        }
        let tab = st.tabs.get(&id).cloned();
        let window = tab.map_or_else(
            || WindowSummary::new(id.to_string(), "", WindowType::Page, ""),
            |t| summary(id, &t),
        );
        let dialog = st.dialog_of_window(id);
        if let Some(root) = subtree {
            let depths: Vec<u32> = raw.controls.iter().map(|(_, _, _, c)| c.d).collect();
            let Some(range) = subtree_range(&controls, &depths, root) else {
                let name = st.controls.get(&root).map(|c| c.name.clone());
                return Err(BrowserError::model(texts::stale_control(
                    root,
                    name.as_deref().unwrap_or_default(),
                )));
            };
            controls.truncate(range.end);
            controls.drain(..range.start);
        }
        Ok(Listing {
            window,
            controls,
            dialog,
        })
    }

    /// Lists one frame target and, recursively, its cross-origin iframes.
    fn list_session<'a>(
        &'a self,
        session: &'a str,
        fields: &'a [String],
        depth: usize,
    ) -> futures::future::BoxFuture<'a, Result<FlatListing>> {
        Box::pin(async move {
            let v = self
                .eval(session, &format!("__deft.list({})", json!(fields)))
                .await?;
            let raw: RawListing = serde_json::from_value(v).map_err(|e| {
                BrowserError::model(texts::browser_failed(&format!(
                    "the page agent answered unexpectedly ({e})"
                )))
            })?;
            let mut out = FlatListing {
                title: raw.title,
                url: raw.url,
                controls: Vec::with_capacity(raw.controls.len()),
            };
            let mut used: HashSet<String> = HashSet::new();
            for c in raw.controls {
                let Some(src) = c.frame.clone() else {
                    out.controls
                        .push((session.to_owned(), raw.doc.clone(), Vec::new(), c));
                    continue;
                };
                if depth >= 4 {
                    continue;
                }
                let child = self
                    .frame_of_element(session, &raw.doc, c.k, &src, &used)
                    .await;
                let Some(child) = child else { continue };
                used.insert(child.clone());
                let origin = c.origin.unwrap_or([0, 0]);
                let hop = Hop {
                    session: session.to_owned(),
                    doc: raw.doc.clone(),
                    key: c.k,
                };
                match self.list_session(&child, fields, depth + 1).await {
                    Ok(sub) => {
                        for (s, d, mut hops, mut cc) in sub.controls {
                            hops.insert(0, hop.clone());
                            cc.d += c.d;
                            if let Some(r) = cc.rect.as_mut() {
                                r[0] += origin[0];
                                r[1] += origin[1];
                                r[2] += origin[0];
                                r[3] += origin[1];
                            }
                            out.controls.push((s, d, hops, cc));
                        }
                    }
                    Err(e) => tracing::debug!("cross-origin frame not listed: {e}"),
                }
            }
            Ok(out)
        })
    }

    /// The cross-origin frame session whose iframe element is `key` in document `doc` of
    /// `session`: the frame's owner element (`DOM.getFrameOwner`), never a guess by URL when the
    /// owner is known; frames whose owner cannot be found fall back to the URL, then to the
    /// first frame not yet used.
    async fn frame_of_element(
        &self,
        session: &str,
        doc: &str,
        key: u64,
        src: &str,
        used: &HashSet<String>,
    ) -> Option<String> {
        let mut kids: Vec<(String, String)> = {
            let st = self.state();
            st.frames
                .iter()
                .filter(|(s, f)| f.parent == session && !used.contains(*s))
                .map(|(s, f)| (s.clone(), f.url.clone()))
                .collect()
        };
        kids.sort();
        let mut unknown = Vec::new();
        for (s, url) in kids {
            match self.frame_owner(session, doc, &s).await {
                Some(k) if k == key => return Some(s),
                Some(_) => {}
                None => unknown.push((s, url)),
            }
        }
        unknown
            .iter()
            .find(|(_, url)| url == src)
            .or_else(|| unknown.first())
            .map(|(s, _)| s.clone())
    }

    /// Resolves control `id` (given as text) for an action: known, in the selected tab, still on
    /// the page. Returns the reference and a name warning.
    pub(crate) fn control(
        &self,
        id: &str,
        name: Option<&str>,
    ) -> Result<(u64, ControlRef, Option<String>)> {
        let (window, _) = self.current()?;
        let n = parse_id(id).ok_or_else(|| BrowserError::model(texts::bad_id("control", id)))?;
        let st = self.state();
        let Some(c) = st.controls.get(&n).cloned() else {
            return Err(BrowserError::model(texts::unknown_control(
                id,
                st.listed_range.get(&window).copied(),
            )));
        };
        if c.window != window {
            return Err(BrowserError::model(texts::control_in_other_window(
                n, c.window,
            )));
        }
        let warning = name
            .map(deft_protocol::observation::clean_name)
            .filter(|g| !g.is_empty() && *g != deft_protocol::observation::clean_name(&c.name))
            .map(|g| texts::control_name_warning(n, &g, &c.name, c.kind.as_str()));
        Ok((n, c, warning))
    }

    /// Locates a control for input: scrolls it (and its iframes) into view and returns its
    /// centre in the tab's viewport. Stale, hidden and disabled controls are errors; a disabled
    /// control is waited for briefly.
    pub(crate) async fn locate(
        &self,
        id: u64,
        c: &ControlRef,
        need_enabled: bool,
    ) -> Result<Point> {
        let mut ox = 0.0;
        let mut oy = 0.0;
        for hop in &c.hops {
            let v = self
                .eval(
                    &hop.session,
                    &format!(
                        "__deft.doc === {} ? __deft.locate({}, true) : {{gone: true}}",
                        json!(hop.doc),
                        hop.key
                    ),
                )
                .await
                .unwrap_or(json!({"gone": true}));
            if v["gone"] == true {
                return Err(BrowserError::model(texts::stale_control(id, &c.name)));
            }
            let w = v["w"].as_f64().unwrap_or(0.0);
            let h = v["h"].as_f64().unwrap_or(0.0);
            ox += v["x"].as_f64().unwrap_or(0.0) - w / 2.0;
            oy += v["y"].as_f64().unwrap_or(0.0) - h / 2.0;
        }
        let deadline = Instant::now() + Duration::from_millis(1000);
        loop {
            let v = self
                .eval(
                    &c.session,
                    &format!(
                        "__deft.doc === {} ? __deft.locate({}, true) : {{gone: true}}",
                        json!(c.doc),
                        c.key
                    ),
                )
                .await
                .unwrap_or(json!({"gone": true}));
            if v["gone"] == true {
                return Err(BrowserError::model(texts::stale_control(id, &c.name)));
            }
            if v["visible"] != true {
                return Err(BrowserError::model(texts::control_hidden(id, &c.name)));
            }
            if need_enabled && v["disabled"] == true {
                if Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                return Err(BrowserError::model(texts::control_disabled(id, &c.name)));
            }
            return Ok(Point {
                x: ox + v["x"].as_f64().unwrap_or(0.0),
                y: oy + v["y"].as_f64().unwrap_or(0.0),
            });
        }
    }

    /// Runs `f(el)` (a JS function body over the element `el`) in the control's frame; `gone`
    /// when stale.
    pub(crate) async fn on_element(&self, id: u64, c: &ControlRef, body: &str) -> Result<Value> {
        let v = self
            .eval(
                &c.session,
                &format!(
                    "(() => {{ if (__deft.doc !== {doc}) return {{gone: true}}; let el = __deft.find({k}); if (!el) return {{gone: true}}; if (el.nodeType === 3) el = el.parentElement; return (async (el) => {{ {body} }})(el); }})()",
                    doc = json!(c.doc),
                    k = c.key
                ),
            )
            .await?;
        if v.is_object() && v["gone"] == true {
            return Err(BrowserError::model(texts::stale_control(id, &c.name)));
        }
        Ok(v)
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

    /// Whether CDP session `session` (a page or one of its frames) belongs to window `window`.
    pub(crate) fn session_in_window(&self, session: &str, window: u64) -> bool {
        self.state().window_of_session(session) == Some(window)
    }

    /// The page agent's document token, element key and name of DOM node `backend_node_id` of
    /// frame session `session`.
    async fn node_key(&self, session: &str, backend_node_id: i64) -> Result<(String, u64, String)> {
        let node = self
            .cdp()
            .call(
                Some(session),
                "DOM.resolveNode",
                json!({"backendNodeId": backend_node_id}),
            )
            .await?;
        let Some(object) = node["object"]["objectId"].as_str() else {
            return Err(BrowserError::model(texts::browser_failed(
                "the element is gone",
            )));
        };
        let v = self
            .cdp()
            .call(
                Some(session),
                "Runtime.callFunctionOn",
                json!({
                    "objectId": object,
                    "returnByValue": true,
                    "functionDeclaration": format!(
                        "function () {{ {AGENT_JS}\n; const r = __deft.roleOf(this); return {{doc: __deft.doc, k: __deft.key(this), name: __deft.nameOf(this, r)}}; }}"
                    ),
                }),
            )
            .await?;
        let v = &v["result"]["value"];
        let (Some(doc), Some(key)) = (v["doc"].as_str(), v["k"].as_u64()) else {
            return Err(BrowserError::model(texts::browser_failed(
                "the page agent answered unexpectedly",
            )));
        };
        let name = v["name"].as_str().unwrap_or_default().to_owned();
        Ok((doc.to_owned(), key, name))
    }

    /// The iframe element owning cross-origin frame session `child` in document `doc` of
    /// `parent`, as its element key (asked once per parent document, then remembered).
    async fn frame_owner(&self, parent: &str, doc: &str, child: &str) -> Option<u64> {
        let target = {
            let st = self.state();
            let f = st.frames.get(child)?;
            if let Some((d, k)) = &f.owner
                && d == doc
            {
                return Some(*k);
            }
            f.target_id.clone()
        };
        let owner = self
            .cdp()
            .call(
                Some(parent),
                "DOM.getFrameOwner",
                json!({"frameId": target}),
            )
            .await
            .map_err(|e| tracing::debug!("no frame owner for {target}: {e}"))
            .ok()?;
        let node = owner["backendNodeId"].as_i64()?;
        let (d, k, _) = self
            .node_key(parent, node)
            .await
            .map_err(|e| tracing::debug!("frame owner of {target} not resolved: {e}"))
            .ok()?;
        if d != doc {
            return None;
        }
        if let Some(f) = self.state().frames.get_mut(child) {
            f.owner = Some((d, k));
        }
        Some(k)
    }

    /// The control id of DOM node `backend_node_id` of frame session `session` in window
    /// `window`, and its name; a node no listing gave out gets its id now (never reused).
    pub(crate) async fn control_of_node(
        &self,
        window: u64,
        session: &str,
        backend_node_id: i64,
    ) -> Result<(u64, String)> {
        let (doc, key, name) = self.node_key(session, backend_node_id).await?;
        let doc = doc.as_str();
        let mut st = self.state();
        let id = st.control_id(session, doc, key);
        if !st.controls.contains_key(&id) {
            let hops = st
                .controls
                .values()
                .find(|c| c.session == session && c.doc == doc)
                .map(|c| c.hops.clone())
                .unwrap_or_default();
            st.controls.insert(
                id,
                ControlRef {
                    window,
                    session: session.to_owned(),
                    doc: doc.to_owned(),
                    key,
                    name: name.clone(),
                    kind: ControlType::Button,
                    hops,
                },
            );
        }
        Ok((id, name))
    }

    /// A page fingerprint for `effect`: URL, title, DOM mutations, focus, form state and scroll
    /// of the page, its same-origin frames and its cross-origin frames (their own sessions).
    pub(crate) async fn fingerprint(&self, session: &str) -> String {
        let mut sessions = self.child_frames(session);
        sessions.sort();
        sessions.insert(0, session.to_owned());
        let parts = futures::future::join_all(
            sessions
                .iter()
                .map(|s| self.eval(s, "__deft.fingerprint()")),
        )
        .await;
        parts
            .into_iter()
            .map(|v| v.map(|v| v.to_string()).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\u{3}")
    }

    /// The tabs as last enumerated, without asking the browser.
    pub fn known_tabs(&self) -> Vec<WindowSummary> {
        self.state()
            .tabs
            .iter()
            .map(|(id, t)| summary(*id, t))
            .collect()
    }

    /// Cross-origin frame sessions below `session` (document order not guaranteed).
    pub(crate) fn child_frames(&self, session: &str) -> Vec<String> {
        let st = self.state();
        let mut out = Vec::new();
        let mut todo = vec![session.to_owned()];
        while let Some(s) = todo.pop() {
            for (k, f) in &st.frames {
                if f.parent == s {
                    out.push(k.clone());
                    todo.push(k.clone());
                }
            }
        }
        out
    }

    /// Answers dialog `d` and settles; an accepted `beforeunload` lets the navigation it held
    /// back go on, so its load is awaited first. Returns the settle milliseconds.
    pub(crate) async fn answer_dialog(&self, d: &Dialog, page: &str, params: Value) -> Result<u64> {
        let leaving = d.kind == "beforeunload" && params["accept"] == true;
        let mut events = self.cdp().events();
        self.cdp()
            .call(Some(d.session()), "Page.handleJavaScriptDialog", params)
            .await?;
        self.state().dialogs.remove(d.session());
        if leaving && wait_for_load(&mut events, page).await {
            self.dialog_recorded().await;
            return Ok(0);
        }
        Ok(self.settle(page).await)
    }
}

/// A frame's listing with every control tagged by its frame session, document and hops.
struct FlatListing {
    title: String,
    url: String,
    controls: Vec<(String, String, Vec<Hop>, RawControl)>,
}

/// The positions of control `root` and its descendants in a listing: `root` and the controls
/// after it that are nested deeper (`depths[i]` counts the listed controls enclosing control
/// `i`). `None` when `root` is not in the listing (its element is gone).
fn subtree_range(
    controls: &[Control],
    depths: &[u32],
    root: u64,
) -> Option<std::ops::Range<usize>> {
    let root_text = root.to_string();
    let start = controls.iter().position(|c| c.id == root_text)?;
    let depth = depths.get(start).copied()?;
    let len = depths
        .get(start + 1..)?
        .iter()
        .take_while(|d| **d > depth)
        .count();
    Some(start..start + 1 + len)
}

/// Parses an id: a decimal string without leading zeros (or a number), `>= 1`.
pub(crate) fn parse_id(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|n| *n > 0)
}

fn summary(id: u64, t: &Tab) -> WindowSummary {
    let name = if t.title.trim().is_empty() {
        t.url.clone()
    } else {
        t.title.clone()
    };
    WindowSummary::new(
        id.to_string(),
        name,
        WindowType::Page,
        policy::root_of(&t.url),
    )
}

/// Enables what a page or frame session needs: Page events, the agent on every new document,
/// and auto-attach to cross-origin iframes.
async fn prepare_session(
    cdp: &Cdp,
    session: &str,
    page: bool,
    intercept: bool,
) -> Result<(), CdpError> {
    let s = Some(session);
    cdp.call(s, "Page.enable", json!({})).await?;
    if intercept {
        // Documents the page itself opens (links, redirects, frames) pass the URL policy too.
        cdp.call(
            s,
            "Fetch.enable",
            json!({"patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}]}),
        )
        .await?;
    }
    // A file input's chooser never opens a native dialog: the click reports it instead, and
    // set_edit_text puts the files in (DOM.setFileInputFiles). A browser without it still works.
    if let Err(e) = cdp
        .call(
            s,
            "Page.setInterceptFileChooserDialog",
            json!({"enabled": true}),
        )
        .await
    {
        tracing::warn!("file choosers are not intercepted in this browser: {e}");
    }
    cdp.call(
        s,
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": AGENT_JS}),
    )
    .await?;
    cdp.call(
        s,
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
    )
    .await?;
    cdp.call(
        s,
        "Runtime.evaluate",
        json!({"expression": AGENT_JS, "returnByValue": true}),
    )
    .await?;
    if !page {
        cdp.call(s, "Runtime.runIfWaitingForDebugger", json!({}))
            .await
            .ok();
    }
    Ok(())
}

/// Waits (bounded) for the load event of `session`'s page; `true` when a dialog opened instead.
async fn wait_for_load(
    events: &mut tokio::sync::broadcast::Receiver<CdpEvent>,
    session: &str,
) -> bool {
    tokio::time::timeout(LOAD_CAP, async {
        loop {
            match events.recv().await {
                Ok(e) if e.method == "Page.javascriptDialogOpening" => return true,
                Ok(e)
                    if e.session.as_deref() == Some(session)
                        && (e.method == "Page.loadEventFired"
                            || e.method == "Page.navigatedWithinDocument"
                            || (e.method == "Page.frameNavigated"
                                && e.params["type"] == "BackForwardCacheRestore")) =>
                {
                    return false;
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false)
}

/// Follows browser events: iframe targets attaching and detaching, tab titles, dialogs.
fn spawn_event_loop(inner: Weak<Inner>, mut events: tokio::sync::broadcast::Receiver<CdpEvent>) {
    tokio::spawn(async move {
        loop {
            let e = match events.recv().await {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!("browser event loop lagged by {n} events");
                    continue;
                }
                Err(_) => return,
            };
            let Some(inner) = inner.upgrade() else { return };
            let mut st = inner
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match e.method.as_str() {
                "Target.attachedToTarget" => {
                    let info = &e.params["targetInfo"];
                    let child = e.params["sessionId"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    if info["type"] == "iframe" {
                        if let Some(parent) = e.session.clone() {
                            st.frames.insert(
                                child.clone(),
                                Frame {
                                    parent,
                                    target_id: info["targetId"]
                                        .as_str()
                                        .unwrap_or_default()
                                        .to_owned(),
                                    url: info["url"].as_str().unwrap_or_default().to_owned(),
                                    owner: None,
                                },
                            );
                            let cdp = inner.cdp.clone();
                            let intercept = inner.policy.restricts();
                            tokio::spawn(async move {
                                if let Err(err) =
                                    prepare_session(&cdp, &child, false, intercept).await
                                {
                                    tracing::debug!("iframe session not prepared: {err}");
                                }
                            });
                        }
                    } else if let Some(_parent) = e.session.clone() {
                        // Workers and other targets: let them run, we do not drive them.
                        let cdp = inner.cdp.clone();
                        tokio::spawn(async move {
                            let _ = cdp
                                .call(Some(&child), "Runtime.runIfWaitingForDebugger", json!({}))
                                .await;
                        });
                    }
                }
                "Target.detachedFromTarget" => {
                    if let Some(s) = e.params["sessionId"].as_str() {
                        st.frames.remove(s);
                        st.dialogs.remove(s);
                        st.loading.remove(s);
                    }
                }
                "Target.targetInfoChanged" => {
                    let info = &e.params["targetInfo"];
                    let tid = info["targetId"].as_str().unwrap_or_default();
                    if let Some(id) = st.window_of_target.get(tid).copied()
                        && let Some(tab) = st.tabs.get_mut(&id)
                    {
                        tab.title = info["title"].as_str().unwrap_or_default().to_owned();
                        tab.url = info["url"].as_str().unwrap_or_default().to_owned();
                    }
                    if info["type"] == "iframe" {
                        // A cross-origin frame navigated: keep its URL for matching.
                        let url = info["url"].as_str().unwrap_or_default().to_owned();
                        for f in st.frames.values_mut().filter(|f| f.target_id == tid) {
                            f.url.clone_from(&url);
                        }
                    }
                }
                "Target.targetDestroyed" => {
                    let tid = e.params["targetId"].as_str().unwrap_or_default();
                    if let Some(id) = st.window_of_target.get(tid).copied() {
                        st.tabs.remove(&id);
                        st.blocked.remove(&id);
                        if st.selected == Some(id) {
                            st.selected = None;
                        }
                    }
                }
                "Page.javascriptDialogOpening" => {
                    if let Some(s) = e.session.clone() {
                        st.dialogs.insert(
                            s.clone(),
                            Dialog {
                                kind: e.params["type"].as_str().unwrap_or("alert").to_owned(),
                                message: e.params["message"]
                                    .as_str()
                                    .unwrap_or_default()
                                    .to_owned(),
                                session: s,
                            },
                        );
                    }
                }
                "Page.frameStartedLoading" | "Page.frameStoppedLoading" => {
                    if let Some(s) = e.session.as_deref() {
                        let frame = e.params["frameId"].as_str().unwrap_or_default();
                        if st.is_main_frame(s, frame) {
                            if e.method == "Page.frameStartedLoading" {
                                st.loading.insert(s.to_owned());
                            } else {
                                st.loading.remove(s);
                            }
                        }
                    }
                }
                "Fetch.requestPaused" => {
                    let url = e.params["request"]["url"].as_str().unwrap_or_default();
                    let request = e.params["requestId"].clone();
                    let allowed = inner.policy.check(url);
                    if let Err(reason) = &allowed {
                        tracing::info!("blocked a page navigation: {reason}");
                        let window = e.session.as_deref().and_then(|s| st.window_of_session(s));
                        if let Some(w) = window {
                            st.blocked.entry(w).or_default().push(BlockedNavigation {
                                url: url.to_owned(),
                                reason: reason.clone(),
                            });
                        }
                    }
                    let cdp = inner.cdp.clone();
                    let session = e.session.clone();
                    tokio::spawn(async move {
                        let (method, params) = match allowed {
                            Ok(()) => ("Fetch.continueRequest", json!({"requestId": request})),
                            Err(_) => (
                                "Fetch.failRequest",
                                json!({"requestId": request, "errorReason": "BlockedByClient"}),
                            ),
                        };
                        let _ = cdp.call(session.as_deref(), method, params).await;
                    });
                }
                "Page.javascriptDialogClosed" => {
                    if let Some(s) = e.session.as_deref() {
                        st.dialogs.remove(s);
                    }
                }
                _ => {}
            }
        }
    });
}
