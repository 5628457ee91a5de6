//! The MCP server: UFO's desktop tools (collection, host actions, app actions) over one
//! [`DesktopSession`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use deft_protocol::observation::{self, ControlType, ListingFormat, WindowListOptions};
use deft_protocol::selector::{self, MatchOptions, Selector};
use deft_protocol::timeout_meta;
use deft_protocol::tool_args::{
    self, AppInfoArgs, ClickArgs, ClipboardArgs, CoordArgs, DragArgs, FindControlsArgs, KeysArgs,
    ListingArgs, ScreenshotArgs, SelectOptionArgs, SetTextArgs, SummaryArgs, Target, WaitArgs,
    WaitForControlArgs, WheelArgs,
};
use deft_protocol::{changes, found};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock as Content, Implementation, MetaObject, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::a11y;
use crate::clipboard::{self, Clipboard};
use crate::close::{self, Launches};
use crate::documents::DocumentOpener;
use crate::error::{ToolError, ToolResult};
use crate::keys::{self, KeyStep};
use crate::launch::{self, LaunchPolicy};
use crate::launched;
use crate::session::{Connected, DesktopSession, WaitAnswer};
use crate::target::DesktopTarget;
use crate::texts;
use crate::texts::describe;
use crate::ui_tree;
use crate::x11::{self, Button, X11, XError};
use deft_protocol::marks;

/// Arguments of `get_ui_tree`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct UiTreeParams {
    /// Depth limit below the window: 0 to 32 (default 8); more is clamped to 32.
    #[serde(default)]
    #[schemars(with = "Option<u32>")]
    pub max_depth: Option<Value>,
}

/// Arguments of `launch_app`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct LaunchParams {
    /// A desktop-entry name ("mousepad", "org.gnome.Calculator", or the app's Name) or an
    /// allow-listed executable.
    pub app: String,
    /// Extra arguments (the app starts to open them, even when it has a window open).
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// When the app already has windows: the one whose title contains this (case ignored)
    /// instead of the newest.
    #[serde(default)]
    pub title: Option<String>,
    /// Start another instance even when the app already has a window open (default false).
    #[serde(default)]
    pub new_instance: Option<bool>,
}

/// Arguments of `close_app`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CloseParams {
    /// The application as `launch_app` names it ("mousepad", "org.gnome.Calculator") or its
    /// root name (the `app` of `get_desktop_app_info`: "gnome-calculator").
    pub app: String,
}

/// deft's desktop tool server. Clones share one [`DesktopSession`] (ids, selected window).
#[derive(Clone)]
pub struct DesktopServer {
    session: Arc<DesktopSession>,
    launch: Arc<LaunchPolicy>,
    launches: Arc<Launches>,
    documents: Option<Arc<dyn DocumentOpener>>,
    clipboard: Arc<Clipboard>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for DesktopServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopServer")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

/// `wait`'s and `wait_for_control`'s `_meta`: the longest wait, with room to answer.
fn wait_meta() -> MetaObject {
    MetaObject(timeout_meta(tool_args::WAIT_TOOL_LIMIT_SECS))
}

/// `launch_app`'s `_meta`: the window wait, with room to answer.
fn launch_meta() -> MetaObject {
    MetaObject(timeout_meta(30))
}

/// `close_app`'s `_meta`: the close wait, SIGTERM's grace and SIGKILL's, with room to answer.
fn close_meta() -> MetaObject {
    MetaObject(timeout_meta(
        (close::CLOSE_WAIT + close::TERM_GRACE).as_secs() + 5,
    ))
}

fn fail(text: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![Content::text(text.to_string())])
}

/// How long `keyboard_input` waits, after keys that copy, for the application to take the
/// clipboard over from this session.
const COPY_WAIT: Duration = Duration::from_secs(1);

/// A screenshot task's answer: its caption and the PNG, or why it failed.
fn screenshot_result(shot: ToolResult<(Vec<u8>, String)>) -> CallToolResult {
    match shot {
        Ok((png, text)) => CallToolResult::success(vec![
            Content::text(text),
            Content::image(
                base64::engine::general_purpose::STANDARD.encode(png),
                "image/png",
            ),
        ]),
        Err(e) => fail(texts::screenshot_failed(&e.to_string())),
    }
}

/// `launch_app`'s answer: the window, the process (the one started; the window's when nothing
/// new runs), the rule that recognised the window and, when nothing new runs, a note saying so.
fn launch_answer(
    w: &crate::session::WindowEntry,
    pid: Option<u32>,
    found_by: launched::FoundBy,
    app: &str,
) -> CallToolResult {
    let mut out = json!({
        "window": w.summary().to_json(),
        "pid": pid,
        "found_by": found_by.as_str(),
    });
    match found_by {
        launched::FoundBy::AlreadyOpen => out["note"] = json!(texts::already_open(app)),
        launched::FoundBy::NewTab | launched::FoundBy::RunningInstance => {
            out["note"] = json!(texts::handed_to_running(app));
        }
        _ => {}
    }
    CallToolResult::structured(out)
}

/// The value of a `Result`, or a return of its error as the tool's failure (`?` for tools that
/// answer `CallToolResult`).
macro_rules! or_fail {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return fail(e),
        }
    };
}

/// A selector that can match something, or the text listing each of its problems with its
/// path below the tool's `selector` argument.
fn checked_selector(selector: &Selector) -> Result<(), String> {
    let problems = selector.problems("selector");
    if problems.is_empty() {
        Ok(())
    } else {
        Err(texts::bad_selector(&problems))
    }
}

fn button_of(b: Option<&str>) -> ToolResult<Button> {
    match b.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "left") => Ok(Button::Left),
        Some("right") => Ok(Button::Right),
        Some("middle") => Ok(Button::Middle),
        Some(other) => Err(ToolError::model(texts::bad_button(other))),
    }
}

fn fraction(name: &str, v: f64) -> ToolResult<f64> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(ToolError::model(texts::bad_fraction(name, v)))
    }
}

fn centre(r: [i32; 4]) -> (i32, i32) {
    ((r[0] + r[2]) / 2, (r[1] + r[3]) / 2)
}

fn point_in(r: [i32; 4], fx: f64, fy: f64) -> (i32, i32) {
    let w = f64::from(r[2] - r[0]);
    let h = f64::from(r[3] - r[1]);
    (
        r[0] + ((w * fx) as i32).min(r[2] - r[0] - 1).max(0),
        r[1] + ((h * fy) as i32).min(r[3] - r[1] - 1).max(0),
    )
}

fn action_result(
    action: &str,
    effect: &str,
    warning: Option<String>,
    extra: Value,
) -> CallToolResult {
    let mut obj = json!({ "effect": effect, "message": texts::done(action, effect) });
    if let Some(w) = warning {
        obj["warning"] = Value::String(w);
    }
    if let (Value::Object(o), Value::Object(e)) = (&mut obj, extra) {
        o.extend(e);
    }
    CallToolResult::structured(obj)
}

/// An action tool's answer: what the action reports, with its effect and the name warning, or
/// its failure.
fn answer(
    action: &str,
    warning: Option<String>,
    result: ToolResult<(Value, &'static str)>,
) -> CallToolResult {
    match result {
        Ok((extra, effect)) => action_result(action, effect, warning, extra),
        Err(e) => fail(e),
    }
}

/// Runs `f` on the X connection off the async runtime (X requests block).
async fn on_x<T, E, F>(c: &Connected, f: F) -> ToolResult<T>
where
    T: Send + 'static,
    E: Into<ToolError> + Send + 'static,
    F: FnOnce(&X11) -> Result<T, E> + Send + 'static,
{
    let x = c.x.clone();
    tokio::task::spawn_blocking(move || f(&x))
        .await?
        .map_err(Into::into)
}

/// Types parsed key steps through XTest.
fn type_steps(x: &X11, steps: &[KeyStep]) -> ToolResult<()> {
    let mut held: Vec<u8> = Vec::new();
    for step in steps {
        match step {
            KeyStep::Char(ch) => {
                let sym = xkeysym::Keysym::from_char(*ch).raw();
                x.tap_keysym(sym)?;
            }
            KeyStep::Key(k) => x.tap_keysym(keys::keysym(*k))?,
            KeyStep::Down(m) => {
                let m = keys::modifier_name(*m);
                let code = x
                    .modifier(m)
                    .ok_or_else(|| ToolError::model(texts::no_modifier_key(m)))?;
                x.key(code, true)?;
                held.push(code);
            }
            KeyStep::Up(m) => {
                if let Some(code) = x.modifier(keys::modifier_name(*m)) {
                    x.key(code, false)?;
                    held.retain(|c| *c != code);
                }
            }
        }
    }
    for code in held {
        let _ = x.key(code, false);
    }
    Ok(x.sync()?)
}

#[tool_router]
impl DesktopServer {
    /// A server on `target`; `launch` says what `launch_app` may start.
    pub fn new(target: DesktopTarget, launch: LaunchPolicy) -> Self {
        DesktopServer {
            clipboard: Arc::new(Clipboard::new(&target.display)),
            session: Arc::new(DesktopSession::new(target)),
            launch: Arc::new(launch),
            launches: Arc::new(Launches::default()),
            documents: None,
            tool_router: Self::tool_router(),
        }
    }

    /// The same server, with `launch_app` handing documents (and the applications that open
    /// them through their own API) to `opener`.
    pub fn with_documents(mut self, opener: Arc<dyn DocumentOpener>) -> Self {
        self.documents = Some(opener);
        self
    }

    #[tool(
        name = "set_clipboard",
        description = deft_protocol::clipboard::SET_DESCRIPTION
    )]
    async fn set_clipboard(&self, Parameters(a): Parameters<ClipboardArgs>) -> CallToolResult {
        clipboard::set_tool(self.clipboard.clone(), a).await
    }

    #[tool(
        name = "get_clipboard",
        description = deft_protocol::clipboard::GET_DESCRIPTION,
        annotations(read_only_hint = true)
    )]
    async fn get_clipboard(&self) -> CallToolResult {
        clipboard::get_tool(self.clipboard.clone()).await
    }

    /// How many `wait_for_control` calls are waiting now; a call its caller cancelled stops at
    /// once and is not counted.
    pub fn waits_in_flight(&self) -> usize {
        self.session.waits_in_flight()
    }

    /// How many looks at windows walked them whole, and how many brought a cached walk up to
    /// date from AT-SPI events instead (tests and benches check what the cache spares).
    pub fn looks(&self) -> (usize, usize) {
        self.session.looks()
    }

    #[tool(
        name = "get_desktop_app_info",
        description = describe::GET_DESKTOP_APP_INFO,
        annotations(read_only_hint = true)
    )]
    async fn get_desktop_app_info(&self, Parameters(p): Parameters<AppInfoArgs>) -> CallToolResult {
        let opts = WindowListOptions {
            remove_empty: p.remove_empty.unwrap_or(true),
            refresh_app_windows: p.refresh_app_windows.unwrap_or(true),
        };
        match self
            .session
            .list_windows(opts.remove_empty, opts.refresh_app_windows)
            .await
        {
            Ok(windows) => {
                let list = observation::render_window_list(&windows);
                CallToolResult::structured(json!({ "windows": list }))
            }
            Err(e) => fail(e),
        }
    }

    #[tool(
        name = "get_app_window_controls_info",
        description = describe::GET_APP_WINDOW_CONTROLS_INFO,
        annotations(read_only_hint = true)
    )]
    async fn get_app_window_controls_info(
        &self,
        Parameters(p): Parameters<ListingArgs>,
    ) -> CallToolResult {
        let opts = or_fail!(p.options());
        match self.session.list_controls(opts.subtree.as_deref()).await {
            Ok((window, controls, before)) => {
                let prev = before.as_deref();
                match opts.format {
                    ListingFormat::Compact => CallToolResult::success(vec![Content::text(
                        changes::render_listing(&window, prev, &controls, &opts),
                    )]),
                    ListingFormat::Json => CallToolResult::structured(
                        changes::render_listing_json(&window, prev, &controls, &opts),
                    ),
                }
            }
            Err(e) => fail(e),
        }
    }

    #[tool(
        name = "find_controls",
        description = describe::FIND_CONTROLS,
        annotations(read_only_hint = true)
    )]
    async fn find_controls(&self, Parameters(p): Parameters<FindControlsArgs>) -> CallToolResult {
        let limit = or_fail!(p.limit());
        let format = or_fail!(p.format());
        or_fail!(checked_selector(&p.selector));
        let look = or_fail!(self.session.window_controls().await);
        let found = or_fail!(
            selector::find(
                &look.controls,
                &look.depths,
                &p.selector,
                &MatchOptions::default()
            )
            .map_err(|e| texts::bad_selector(&e.0))
        );
        match format {
            ListingFormat::Compact => CallToolResult::success(vec![Content::text(
                found::render_found_compact(&look.window, &p.selector, &found, limit),
            )]),
            ListingFormat::Json => CallToolResult::structured(found::render_found_json(
                &look.window,
                &p.selector,
                &found,
                limit,
            )),
        }
    }

    #[tool(
        name = "wait_for_control",
        description = describe::WAIT_FOR_CONTROL,
        annotations(read_only_hint = true),
        meta = wait_meta()
    )]
    async fn wait_for_control(
        &self,
        Parameters(p): Parameters<WaitForControlArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let timeout = or_fail!(p.timeout());
        or_fail!(checked_selector(&p.selector));
        let gone = p.gone.unwrap_or(false);
        tokio::select! {
            answer = self.session.wait_for(&p.selector, timeout, gone) => match answer {
                Ok(WaitAnswer::Answered(v)) => CallToolResult::structured(v),
                Ok(WaitAnswer::TimedOut(text)) => fail(text),
                Err(e) => fail(e),
            },
            // Dropping the wait ends it: it holds nothing but a look under way.
            () = context.ct.cancelled() => fail(texts::WAIT_CANCELLED),
        }
    }

    #[tool(
        name = "capture_window_screenshot",
        description = describe::CAPTURE_WINDOW_SCREENSHOT,
        annotations(read_only_hint = true)
    )]
    async fn capture_window_screenshot(
        &self,
        Parameters(p): Parameters<ScreenshotArgs>,
    ) -> CallToolResult {
        let window = or_fail!(self.session.selected().await);
        let c = or_fail!(self.session.connected().await);
        let rect = self.session.window_rect(&window).await;
        let marks = if p.annotated.unwrap_or(false) {
            self.session.listed_controls(window.id).await
        } else {
            Vec::new()
        };
        let wid = window.id;
        let shot = on_x(&c, move |x| -> Result<(Vec<u8>, String), XError> {
            let (sw, sh) = (i32::from(x.size.0), i32::from(x.size.1));
            let (mut img, text) = match rect.as_ref().map(|r| x.capture(*r)) {
                Ok(Ok(img)) => {
                    let text = format!(
                        "window {wid} rect=[{},{},{},{}]",
                        img.origin.0,
                        img.origin.1,
                        img.origin.0 + img.width as i32,
                        img.origin.1 + img.height as i32
                    );
                    (img, text)
                }
                Ok(Err(e)) => (
                    x.capture([0, 0, sw, sh])?,
                    format!("desktop rect=[0,0,{sw},{sh}] (window capture fell back to the desktop: {})", e.0),
                ),
                Err(e) => (
                    x.capture([0, 0, sw, sh])?,
                    format!("desktop rect=[0,0,{sw},{sh}] (window capture fell back to the desktop: {e})"),
                ),
            };
            for (id, d) in &marks {
                // Only what the image shows: no marks for rows scrolled out of their list.
                if let Some(r) = d.rect
                    && d.interactive
                    && !d.states.contains(&observation::StateFlag::Offscreen)
                {
                    marks::mark(&mut img, r, &id.to_string());
                }
            }
            Ok((x11::to_png(&img)?, text))
        })
        .await;
        screenshot_result(shot)
    }

    #[tool(
        name = "capture_desktop_screenshot",
        description = describe::CAPTURE_DESKTOP_SCREENSHOT,
        annotations(read_only_hint = true)
    )]
    async fn capture_desktop_screenshot(&self) -> CallToolResult {
        let c = or_fail!(self.session.connected().await);
        let shot = on_x(&c, |x| -> Result<(Vec<u8>, String), XError> {
            let (sw, sh) = (i32::from(x.size.0), i32::from(x.size.1));
            let img = x.capture([0, 0, sw, sh])?;
            Ok((x11::to_png(&img)?, format!("desktop rect=[0,0,{sw},{sh}]")))
        })
        .await;
        screenshot_result(shot)
    }

    #[tool(
        name = "get_ui_tree",
        description = describe::GET_UI_TREE,
        annotations(read_only_hint = true)
    )]
    async fn get_ui_tree(&self, Parameters(p): Parameters<UiTreeParams>) -> CallToolResult {
        let (depth, note) = or_fail!(ui_tree::parse_depth(p.max_depth.as_ref()));
        let window = or_fail!(self.session.selected().await);
        match self.session.snapshot(&window).await {
            Ok(snap) => CallToolResult::structured(ui_tree::render(&snap.tree, depth, note)),
            Err(e) => fail(e),
        }
    }

    #[tool(
        name = "select_application_window",
        description = describe::SELECT_APPLICATION_WINDOW
    )]
    async fn select_application_window(&self, Parameters(t): Parameters<Target>) -> CallToolResult {
        let (entry, warning) = or_fail!(self.session.window(&t.id, t.name.as_deref()).await);
        or_fail!(self.session.select(&entry).await);
        let mut out = json!({
            "root_name": entry.app,
            "window_info": entry.summary().to_json(),
        });
        if let Some(w) = warning {
            out["warning"] = Value::String(w);
        }
        CallToolResult::structured(out)
    }

    #[tool(
        name = "launch_app",
        description = describe::LAUNCH_APP,
        meta = launch_meta()
    )]
    async fn launch_app(&self, Parameters(p): Parameters<LaunchParams>) -> CallToolResult {
        let args = p.args.clone().unwrap_or_default();
        let new_instance = p.new_instance.unwrap_or(false);
        let title = p.title.as_deref().filter(|t| !t.trim().is_empty());
        if title.is_some() && (new_instance || !args.is_empty()) {
            return fail(texts::TITLE_CONFLICT);
        }
        if let Some(opener) = self.documents.clone()
            && opener.claims(&p.app, &args)
        {
            return self.launch_document(opener.as_ref(), &p.app, &args).await;
        }
        let plan = self.launch.resolve(&p.app, &args);
        let names = launched::AppNames::of(&p.app, plan.as_ref().ok());
        or_fail!(self.session.connected().await);
        if !new_instance && args.is_empty() {
            match launched::already_open(&self.session, &p.app, &names, title).await {
                Ok(Some(w)) => {
                    return launch_answer(&w, w.pid, launched::FoundBy::AlreadyOpen, &p.app);
                }
                Ok(None) => {}
                Err(e) => return fail(e),
            }
        }
        let plan = or_fail!(plan);
        let before = or_fail!(self.session.open_windows().await);
        let launched = or_fail!(launch::spawn(&plan, self.session.target()));
        self.launches.record(&plan.root, launched.clone());
        let watch = launched::Watch::new(&launched, &names, &before);
        let wait = self.launch.window_wait();
        match launched::wait_for_window(&self.session, &p.app, &plan, &launched, watch, wait).await
        {
            // A running instance that took the request is the window's process; the one
            // started has exited.
            Ok((w, rule @ (launched::FoundBy::NewTab | launched::FoundBy::RunningInstance))) => {
                launch_answer(&w, w.pid, rule, &p.app)
            }
            Ok((w, found_by)) => launch_answer(&w, Some(launched.pid), found_by, &p.app),
            Err(e) => fail(e),
        }
    }

    #[tool(
        name = "close_app",
        description = describe::CLOSE_APP,
        meta = close_meta()
    )]
    async fn close_app(&self, Parameters(p): Parameters<CloseParams>) -> CallToolResult {
        let app = p.app.trim();
        if app.is_empty() {
            return fail(texts::CLOSE_NEEDS_APP);
        }
        let mut roots = std::collections::BTreeSet::from([app.to_owned()]);
        if let Ok(plan) = self.launch.resolve(app, &[]) {
            roots.insert(plan.root);
        }
        let protected: Vec<i32> = self.session.target().pgid.into_iter().collect();
        match close::close_app(&self.session, &self.launches, app, &roots, &protected).await {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => fail(e),
        }
    }

    #[tool(
        name = "click_input",
        description = describe::CLICK_INPUT
    )]
    async fn click_input(&self, Parameters(p): Parameters<ClickArgs>) -> CallToolResult {
        let button = or_fail!(button_of(p.button.as_deref()));
        let (resolved, rect) = or_fail!(
            self.session
                .checked_control(&p.target.id, p.target.name.as_deref(), "click_input")
                .await
        );
        let key = resolved.entry.described.key.clone();
        let double = p.double.unwrap_or(false);
        let hold = or_fail!(p.hold());
        if hold.is_some() && rect.is_none() {
            return fail(texts::cannot_hold(
                &resolved.entry.id.to_string(),
                &resolved.entry.described.name,
            ));
        }
        let result = self
            .session
            .with_effect(|c| async move {
                match (rect, hold) {
                    (Some(r), Some(hold)) => {
                        let (x, y) = centre(r);
                        on_x(&c, move |xx| xx.long_press(x, y, button, hold)).await?;
                        Ok(json!({ "via": "pointer", "point": [x, y], "held_ms": hold.as_millis() }))
                    }
                    (Some(r), None) => {
                        let (x, y) = centre(r);
                        on_x(&c, move |xx| xx.click(x, y, button, double)).await?;
                        Ok(json!({ "via": "pointer", "point": [x, y] }))
                    }
                    (None, _) => {
                        a11y::do_action(&c.a11y, &key, 0).await.map_err(|e| {
                            ToolError::model(texts::no_position_action_failed(&e.to_string()))
                        })?;
                        Ok(json!({ "via": "accessibility action" }))
                    }
                }
            })
            .await;
        answer("click_input", resolved.warning, result)
    }

    #[tool(
        name = "click_on_coordinates",
        description = describe::CLICK_ON_COORDINATES
    )]
    async fn click_on_coordinates(&self, Parameters(p): Parameters<CoordArgs>) -> CallToolResult {
        let (fx, fy, button) = match (
            fraction("x", p.x),
            fraction("y", p.y),
            button_of(p.button.as_deref()),
        ) {
            (Ok(x), Ok(y), Ok(b)) => (x, y, b),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return fail(e),
        };
        let window = or_fail!(self.session.selected().await);
        let rect = or_fail!(self.session.window_rect(&window).await);
        let (x, y) = point_in(rect, fx, fy);
        let double = p.double.unwrap_or(false);
        let result = self
            .session
            .with_effect(|c| async move {
                on_x(&c, move |xx| xx.click(x, y, button, double)).await?;
                Ok(json!({ "point": [x, y] }))
            })
            .await;
        answer("click_on_coordinates", None, result)
    }

    #[tool(
        name = "drag_on_coordinates",
        description = describe::DRAG_ON_COORDINATES
    )]
    async fn drag_on_coordinates(&self, Parameters(p): Parameters<DragArgs>) -> CallToolResult {
        let checked = (|| -> ToolResult<_> {
            Ok((
                fraction("start_x", p.start_x)?,
                fraction("start_y", p.start_y)?,
                fraction("end_x", p.end_x)?,
                fraction("end_y", p.end_y)?,
                button_of(p.button.as_deref())?,
            ))
        })();
        let (sx, sy, ex, ey, button) = or_fail!(checked);
        let hold = or_fail!(p.held()).map(keys::modifier_name);
        let window = or_fail!(self.session.selected().await);
        let rect = or_fail!(self.session.window_rect(&window).await);
        let from = point_in(rect, sx, sy);
        let to = point_in(rect, ex, ey);
        let result = self
            .session
            .with_effect(|c| async move {
                on_x(&c, move |xx| -> Result<(), XError> {
                    let code = hold.and_then(|m| xx.modifier(m));
                    if let Some(k) = code {
                        xx.key(k, true)?;
                    }
                    let r = xx.drag(from, to, button);
                    if let Some(k) = code {
                        xx.key(k, false)?;
                    }
                    r
                })
                .await?;
                Ok(json!({ "from": [from.0, from.1], "to": [to.0, to.1] }))
            })
            .await;
        answer("drag_on_coordinates", None, result)
    }

    #[tool(
        name = "set_edit_text",
        description = describe::SET_EDIT_TEXT
    )]
    async fn set_edit_text(&self, Parameters(p): Parameters<SetTextArgs>) -> CallToolResult {
        let resolved = or_fail!(
            self.session
                .control(&p.target.id, p.target.name.as_deref())
                .await
        );
        let d = resolved.entry.described.clone();
        if !d.editable && d.kind != ControlType::Edit && d.kind != ControlType::Combobox {
            return fail(texts::not_editable(&resolved.entry.id.to_string(), &d.name));
        }
        let rect = or_fail!(
            self.session
                .validate(&resolved.entry, "set_edit_text")
                .await
        );
        let text = p.text.clone();
        let clear = p.clear_current_text.unwrap_or(true);
        let result = self
            .session
            .with_effect(|c| async move {
                if d.editable {
                    let want = if clear {
                        text.clone()
                    } else {
                        a11y::text(&c.a11y, &d.key).await.unwrap_or_default() + &text
                    };
                    if a11y::set_text_contents(&c.a11y, &d.key, &want)
                        .await
                        .unwrap_or(false)
                        && a11y::text(&c.a11y, &d.key).await.ok().as_deref() == Some(want.as_str())
                    {
                        return Ok(json!({ "via": "editable text" }));
                    }
                }
                // Fallback: focus by a click and type.
                if let Some(r) = rect {
                    let (x, y) = centre(r);
                    on_x(&c, move |xx| xx.click(x, y, Button::Left, false)).await?;
                } else {
                    let _ = a11y::grab_focus(&c.a11y, &d.key).await;
                }
                let mut steps = keys::parse(if clear { "^a{DELETE}" } else { "^{END}" })
                    .map_err(|e| ToolError::model(e.0))?;
                steps.extend(text.chars().map(KeyStep::Char));
                on_x(&c, move |xx| type_steps(xx, &steps)).await?;
                Ok(json!({ "via": "typing" }))
            })
            .await;
        answer("set_edit_text", resolved.warning, result)
    }

    #[tool(
        name = "keyboard_input",
        description = concat!(
            "Send keys to a control (focused first unless control_focus is false) with real key events. ",
            deft_protocol::key_syntax!()
        )
    )]
    async fn keyboard_input(&self, Parameters(p): Parameters<KeysArgs>) -> CallToolResult {
        let steps = or_fail!(keys::parse(&p.keys));
        let copies = keys::copies(&steps);
        let focus = p.control_focus.unwrap_or(true);
        let mut warning = None;
        let mut focus_target = None;
        if focus || !p.id.trim().is_empty() {
            let (resolved, rect) = or_fail!(
                self.session
                    .checked_control(&p.id, p.name.as_deref(), "keyboard_input")
                    .await
            );
            warning = resolved.warning;
            if focus {
                focus_target = Some((resolved.entry.described.key.clone(), rect));
            }
        } else {
            or_fail!(self.session.selected().await);
        }
        let result = self
            .session
            .with_effect(|c| async move {
                if let Some((key, rect)) = focus_target {
                    let focused = a11y::grab_focus(&c.a11y, &key).await.unwrap_or(false);
                    if !focused && let Some(r) = rect {
                        let (x, y) = centre(r);
                        on_x(&c, move |xx| xx.click(x, y, Button::Left, false)).await?;
                    }
                }
                on_x(&c, move |xx| type_steps(xx, &steps)).await?;
                Ok(json!({}))
            })
            .await;
        if copies {
            let clipboard = self.clipboard.clone();
            let _ = tokio::task::spawn_blocking(move || clipboard.await_handover(COPY_WAIT)).await;
        }
        answer("keyboard_input", warning, result)
    }

    #[tool(
        name = "wheel_mouse_input",
        description = describe::WHEEL_MOUSE_INPUT
    )]
    async fn wheel_mouse_input(&self, Parameters(p): Parameters<WheelArgs>) -> CallToolResult {
        let (resolved, rect) = or_fail!(
            self.session
                .checked_control(&p.target.id, p.target.name.as_deref(), "wheel_mouse_input")
                .await
        );
        let Some(rect) = rect else {
            return fail(texts::not_interactable(
                &resolved.entry.id.to_string(),
                &resolved.entry.described.name,
                "wheel_mouse_input",
                "not on screen",
            ));
        };
        let dist = p.wheel_dist;
        let (x, y) = centre(rect);
        let result = self
            .session
            .with_effect(|c| async move {
                // UFO: positive = up; X buttons: 4 up, 5 down.
                on_x(&c, move |xx| xx.wheel(x, y, -dist)).await?;
                Ok(json!({ "point": [x, y] }))
            })
            .await;
        answer("wheel_mouse_input", resolved.warning, result)
    }

    #[tool(
        name = "texts",
        description = describe::TEXTS,
        annotations(read_only_hint = true)
    )]
    async fn texts(&self, Parameters(t): Parameters<Target>) -> CallToolResult {
        let resolved = or_fail!(self.session.control(&t.id, t.name.as_deref()).await);
        let d = &resolved.entry.described;
        if resolved.warning.is_some() {
            let given = t.name.unwrap_or_default();
            return CallToolResult::success(vec![Content::text(texts::texts_mismatch(
                &t.id, &d.name, &given,
            ))]);
        }
        let c = or_fail!(self.session.connected().await);
        let text = if d.has_text {
            match a11y::text(&c.a11y, &d.key).await {
                Ok(t) => t,
                Err(_) => return fail(texts::vanished(&t.id, &d.name)),
            }
        } else if let Ok(name) = a11y::name(&c.a11y, &d.key).await {
            name
        } else {
            return fail(texts::no_text(&t.id, &d.name));
        };
        CallToolResult::success(vec![Content::text(text)])
    }

    #[tool(
        name = "select_option",
        description = describe::SELECT_OPTION
    )]
    async fn select_option(&self, Parameters(p): Parameters<SelectOptionArgs>) -> CallToolResult {
        let (resolved, _) = or_fail!(
            self.session
                .checked_control(&p.target.id, p.target.name.as_deref(), "select_option")
                .await
        );
        let d = resolved.entry.described.clone();
        let id = resolved.entry.id.to_string();
        let c = or_fail!(self.session.connected().await);
        if !matches!(
            d.kind,
            ControlType::Combobox
                | ControlType::List
                | ControlType::Tree
                | ControlType::Table
                | ControlType::Tab
        ) {
            return fail(texts::no_options(&id, &d.name));
        }
        let options = match crate::options::read(&c.a11y, &d.key, d.role).await {
            Ok(o) if !o.options.is_empty() => o,
            _ => return fail(texts::no_options(&id, &d.name)),
        };
        let wanted = observation::clean_name(&p.option);
        let Some(index) = options
            .options
            .iter()
            .position(|o| observation::clean_name(o) == wanted)
            .or_else(|| {
                options
                    .options
                    .iter()
                    .position(|o| observation::clean_name(o).eq_ignore_ascii_case(&wanted))
            })
        else {
            return fail(texts::unknown_option(&p.option, &options.options));
        };
        let result = self
            .session
            .with_effect(|c| async move {
                crate::options::select(&c.a11y, &options, index).await?;
                Ok(json!({ "option": options.options[index] }))
            })
            .await;
        answer("select_option", resolved.warning, result)
    }

    #[tool(
        name = "wait",
        description = describe::WAIT,
        meta = wait_meta()
    )]
    async fn wait(&self, Parameters(p): Parameters<WaitArgs>) -> CallToolResult {
        match p.duration() {
            Ok(d) => {
                tokio::time::sleep(d).await;
                CallToolResult::structured(json!({ "waited_secs": p.seconds }))
            }
            Err(e) => fail(e),
        }
    }

    #[tool(
        name = "summary",
        description = describe::SUMMARY,
        annotations(read_only_hint = true)
    )]
    async fn summary(&self, Parameters(p): Parameters<SummaryArgs>) -> CallToolResult {
        CallToolResult::structured(json!({ "summary": p.text }))
    }
}

impl DesktopServer {
    /// `launch_app` of a document: the opener opens it, then its window is waited for (the
    /// process's new window with the title the opener named, else its first new window).
    async fn launch_document(
        &self,
        opener: &dyn DocumentOpener,
        app: &str,
        args: &[String],
    ) -> CallToolResult {
        or_fail!(self.session.connected().await);
        let before = match self.session.list_windows(false, true).await {
            Ok(_) => self.session.open_window_keys().await,
            Err(e) => return fail(e),
        };
        let opened = or_fail!(
            opener
                .open(app, args, &self.session.target().launch_env)
                .await
        );
        let wait = self.launch.window_wait();
        let deadline = Instant::now() + wait;
        loop {
            let found = self
                .session
                .find_new_window(opened.pid, &opened.title, &before)
                .await;
            // A module host's window gets its class (its root) a moment after it appears.
            let named = |w: &crate::session::WindowEntry| {
                !crate::session::is_module_host(&w.app) || Instant::now() >= deadline
            };
            match found {
                Ok(Some(w)) if named(&w) => {
                    return CallToolResult::structured(json!({
                        "window": w.summary().to_json(),
                        "pid": opened.pid,
                    }));
                }
                Ok(_) => {}
                Err(e) => return fail(e),
            }
            if Instant::now() >= deadline {
                return fail(texts::document_no_window(
                    app,
                    &opened.title,
                    wait.as_secs(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DesktopServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                texts::SERVER_NAME,
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(texts::INSTRUCTIONS)
    }
}
