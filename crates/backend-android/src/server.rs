//! The MCP server: the window and control tools the desktop and the browser serve, on a phone,
//! and the phone's own tools (screen power, keep awake, swipe paths, apps).

use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_protocol::changes;
use deft_protocol::found::{
    render_found, render_found_json, tie_note, wait_result, wait_timeout_text,
};
use deft_protocol::observation::{
    Control, ControlType, ListingFormat, StateFlag, clean_name, render_window_list,
};
use deft_protocol::selector::{self, MatchOptions, Selector};
use deft_protocol::timeout_meta;
use deft_protocol::tool_args::{
    self, AppInfoArgs, ClickArgs, ClipboardArgs, CoordArgs, DragArgs, FindControlsArgs, KeysArgs,
    ListingArgs, ScreenshotArgs, SetTextArgs, SummaryArgs, Target, WaitArgs, WaitForControlArgs,
    WheelArgs,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, MetaObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::apps::{self, FoundBy, Resolved};
use crate::clipboard::ClipboardHelper;
use crate::config::AndroidConfig;
use crate::error::AndroidError;
use crate::input::{self, keycode};
use crate::phone::Phone;
use crate::session::{MAX_PATH_POINTS, PhoneSession, Seen};
use crate::texts::{self, describe};

/// `launch_app` / `close_app`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AppArgs {
    /// The app: its package ("com.android.settings") or its label ("Settings").
    #[serde(default)]
    pub app: String,
}

/// `set_screen`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScreenArgs {
    /// true: wake the screen; false: turn it off.
    pub on: bool,
}

/// `keep_awake`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct KeepAwakeArgs {
    /// "always", "usb", "ac", "wireless" or "off".
    pub mode: String,
}

/// `install_app`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InstallArgs {
    /// The APK's path on this machine, inside an allowed folder.
    pub path: String,
}

/// `swipe`: a path, or a direction inside a control or the screen.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SwipeArgs {
    /// The points [x, y] to pass through, fractions 0-1 of the screen.
    #[serde(default)]
    pub path: Option<Vec<[f64; 2]>>,
    /// Instead of a path: the way the finger moves, "up", "down", "left" or "right".
    #[serde(default)]
    pub direction: Option<String>,
    /// With direction: how far, as a share of the control's (or screen's) height or width,
    /// 0.05-1 (default 0.5).
    #[serde(default)]
    pub amount: Option<f64>,
    /// With direction: the control to swipe inside (default: the screen).
    #[serde(default)]
    pub id: Option<String>,
    /// How long the whole touch takes, in milliseconds (default 300, at most 10000).
    #[serde(default)]
    pub duration_ms: Option<u32>,
}

/// How long `launch_app` waits for the app to come to the front.
const LAUNCH_WAIT: Duration = Duration::from_secs(10);
/// The longest swipe.
const MAX_SWIPE_MS: u32 = 10_000;
/// A swipe that scrolls: slow enough not to fling the list far past what was asked.
const SCROLL_SWIPE_MS: u32 = 400;
/// The share of a control's height one wheel notch scrolls.
const NOTCH_SHARE: f64 = 0.1;
/// The most of a control's height one swipe covers (a swipe from edge to edge would start or
/// end outside it).
const MAX_SWIPE_SHARE: f64 = 0.8;

/// deft's Android tool server: one phone of the adb server.
#[derive(Clone)]
pub struct AndroidServer {
    config: Arc<AndroidConfig>,
    clipboard: Arc<ClipboardHelper>,
    session: Arc<OnceCell<PhoneSession>>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for AndroidServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AndroidServer")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn wait_meta() -> MetaObject {
    MetaObject(timeout_meta(tool_args::WAIT_TOOL_LIMIT_SECS))
}

fn launch_meta() -> MetaObject {
    MetaObject(timeout_meta(LAUNCH_WAIT.as_secs() + 20))
}

fn err(e: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

/// A tool's answer: its result, or its error as the model reads it.
fn answer(r: Result<CallToolResult, AndroidError>) -> CallToolResult {
    r.unwrap_or_else(err)
}

fn model(text: String) -> AndroidError {
    AndroidError::Model(text)
}

#[tool_router]
impl AndroidServer {
    /// A server for the phone `config` names; the phone is picked at the first tool call.
    pub fn new(config: AndroidConfig) -> Self {
        AndroidServer {
            clipboard: Arc::new(ClipboardHelper::new(&config)),
            config: Arc::new(config),
            session: Arc::new(OnceCell::new()),
            tool_router: Self::tool_router(),
        }
    }

    /// A server for `phone`.
    pub fn for_phone(phone: Phone) -> Self {
        AndroidServer::on_phone(phone, AndroidConfig::default())
    }

    /// A server for `phone` with the other options of `config` (its serial is the phone's).
    pub fn on_phone(phone: Phone, config: AndroidConfig) -> Self {
        let server = AndroidServer::new(AndroidConfig {
            serial: Some(phone.serial().to_owned()),
            ..config
        });
        let _ = server.session.set(PhoneSession::new(phone));
        server
    }

    /// The phone's session, the phone picked at the first call.
    async fn session(&self) -> Result<&PhoneSession, AndroidError> {
        self.session
            .get_or_try_init(|| async { Ok(PhoneSession::new(self.config.phone().await?)) })
            .await
    }

    #[tool(name = "get_desktop_app_info", description = describe::APP_INFO, annotations(read_only_hint = true))]
    async fn get_desktop_app_info(&self, Parameters(_): Parameters<AppInfoArgs>) -> CallToolResult {
        answer(
            async {
                let phone = self.session().await?.phone();
                let (windows, screen) =
                    tokio::join!(self.session().await?.focus_windows(), phone.screen_on());
                let screen = match screen? {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => "unknown",
                };
                Ok(CallToolResult::structured(
                    json!({"windows": render_window_list(&windows?), "screen": screen}),
                ))
            }
            .await,
        )
    }

    #[tool(name = "select_application_window", description = describe::SELECT)]
    async fn select_application_window(
        &self,
        Parameters(args): Parameters<Target>,
    ) -> CallToolResult {
        answer(
            async {
                let shown = self.session().await?.focus_windows().await?;
                let id = args.id.trim();
                let window = match shown.iter().find(|w| w.id == id) {
                    Some(w) => w.clone(),
                    None => {
                        let (_, known) = self.session().await?.window(id).await?;
                        let known = known.ok_or_else(|| model(texts::unknown_window(id)))?;
                        self.session().await?.phone().launch(&known.app).await?;
                        self.wait_foreground(&known.app).await?;
                        self.session().await?.look().await?.window.clone()
                    }
                };
                let mut out = json!({"root_name": window.app, "window_info": window.to_json()});
                if let Some(given) = args.name.as_deref().map(clean_name)
                    && !given.is_empty()
                    && given != clean_name(&window.name)
                {
                    out["warning"] = json!(texts::control_name_warning(
                        id,
                        &given,
                        &window.name,
                        "window"
                    ));
                }
                Ok(CallToolResult::structured(out))
            }
            .await,
        )
    }

    #[tool(name = "get_app_window_controls_info", description = describe::CONTROLS, annotations(read_only_hint = true))]
    async fn get_app_window_controls_info(
        &self,
        Parameters(args): Parameters<ListingArgs>,
    ) -> CallToolResult {
        answer(
            async {
                let opts = args.options().map_err(model)?;
                let l = self.session().await?.list(&opts).await?;
                let previous = l.previous.as_deref();
                Ok(match opts.format {
                    ListingFormat::Compact => CallToolResult::success(vec![ContentBlock::text(
                        changes::render_listing(&l.window, previous, &l.controls, &opts),
                    )]),
                    ListingFormat::Json => CallToolResult::structured(
                        changes::render_listing_json(&l.window, previous, &l.controls, &opts),
                    ),
                })
            }
            .await,
        )
    }

    #[tool(name = "find_controls", description = describe::FIND, annotations(read_only_hint = true))]
    async fn find_controls(
        &self,
        Parameters(args): Parameters<FindControlsArgs>,
    ) -> CallToolResult {
        answer(
            async {
                let limit = args.limit().map_err(|e| model(texts::bad_argument(&e)))?;
                let format = args.format().map_err(|e| model(texts::bad_argument(&e)))?;
                usable(&args.selector)?;
                let seen = self.session().await?.look().await?;
                let found = matches(&seen, &args.selector)?;
                Ok(match format {
                    ListingFormat::Compact => CallToolResult::success(vec![ContentBlock::text(
                        render_found(&seen.window, &args.selector, &found, limit, format),
                    )]),
                    ListingFormat::Json => CallToolResult::structured(render_found_json(
                        &seen.window,
                        &args.selector,
                        &found,
                        limit,
                    )),
                })
            }
            .await,
        )
    }

    #[tool(name = "wait_for_control", description = describe::WAIT_FOR, annotations(read_only_hint = true), meta = wait_meta())]
    async fn wait_for_control(
        &self,
        Parameters(args): Parameters<WaitForControlArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        answer(
            async {
                let timeout = args.timeout().map_err(|e| model(texts::bad_argument(&e)))?;
                usable(&args.selector)?;
                let gone = args.gone.unwrap_or(false);
                let t0 = Instant::now();
                let mut pause = crate::session::POLL_FIRST;
                loop {
                    let seen = self.session().await?.look().await?;
                    let found = matches(&seen, &args.selector)?;
                    let waited_ms = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
                    if found.chosen.is_some() != gone {
                        let m = if gone { None } else { found.chosen_match() };
                        let tie = tie_note(&found).filter(|_| !gone);
                        return Ok(CallToolResult::structured(wait_result(m, tie, waited_ms)));
                    }
                    let left = timeout.saturating_sub(t0.elapsed());
                    if left.is_zero() {
                        let still = found.chosen_match().filter(|_| gone);
                        return Err(model(wait_timeout_text(
                            &args.selector,
                            timeout.as_secs_f64(),
                            still,
                        )));
                    }
                    tokio::select! {
                        () = tokio::time::sleep(pause.min(left)) => {}
                        () = context.ct.cancelled() => return Err(model(texts::WAIT_CANCELLED.into())),
                    }
                    pause = crate::session::next_poll(pause);
                }
            }
            .await,
        )
    }

    #[tool(name = "click_input", description = describe::CLICK)]
    async fn click_input(&self, Parameters(args): Parameters<ClickArgs>) -> CallToolResult {
        answer(
            async {
                tap_button(args.button.as_deref())?;
                let hold = args.hold().map_err(|e| model(texts::bad_argument(&e)))?;
                let (before, c, warning) = self
                    .session()
                    .await?
                    .control(&args.target.id, args.target.name.as_deref())
                    .await?;
                let (x, y) = centre(&c, true)?;
                let phone = self.session().await?.phone();
                touch(phone, (x, y), args.double.unwrap_or(false), hold).await?;
                self.finish(&before, warning, json!({})).await
            }
            .await,
        )
    }

    #[tool(name = "click_on_coordinates", description = describe::CLICK_XY)]
    async fn click_on_coordinates(
        &self,
        Parameters(args): Parameters<CoordArgs>,
    ) -> CallToolResult {
        answer(
            async {
                tap_button(args.button.as_deref())?;
                let (x, y) = self.at_fraction(args.x, args.y, "x", "y").await?;
                let before = self.session().await?.last().await?;
                let phone = self.session().await?.phone();
                touch(phone, (x, y), args.double.unwrap_or(false), None).await?;
                self.finish(&before, None, json!({})).await
            }
            .await,
        )
    }

    #[tool(name = "drag_on_coordinates", description = describe::DRAG_XY)]
    async fn drag_on_coordinates(&self, Parameters(args): Parameters<DragArgs>) -> CallToolResult {
        answer(
            async {
                let from = self
                    .at_fraction(args.start_x, args.start_y, "start_x", "start_y")
                    .await?;
                let to = self
                    .at_fraction(args.end_x, args.end_y, "end_x", "end_y")
                    .await?;
                let before = self.session().await?.last().await?;
                self.session()
                    .await?
                    .phone()
                    .swipe(from, to, SCROLL_SWIPE_MS)
                    .await?;
                self.finish(&before, None, json!({})).await
            }
            .await,
        )
    }

    #[tool(name = "set_edit_text", description = describe::SET_TEXT)]
    async fn set_edit_text(&self, Parameters(args): Parameters<SetTextArgs>) -> CallToolResult {
        answer(
            async {
                let (before, c, warning) = self
                    .session()
                    .await?
                    .control(&args.target.id, args.target.name.as_deref())
                    .await?;
                if c.kind != ControlType::Edit {
                    return Err(model(texts::not_editable(&c.id, &c.name, c.kind.as_str())));
                }
                let (x, y) = centre(&c, true)?;
                let phone = self.session().await?.phone();
                // Refused before the field is touched when the text cannot be typed.
                phone.input_route(&args.text).await?;
                if !c.states.contains(&StateFlag::Focused) {
                    phone.tap(x, y).await?;
                }
                let current = c.value.as_deref().unwrap_or_default().chars().count();
                if args.clear_current_text.unwrap_or(true) && current > 0 {
                    let mut keys = vec![keycode::MOVE_END];
                    keys.extend(std::iter::repeat_n(keycode::DEL, current));
                    phone.keys(&keys).await?;
                }
                let mut extra = json!({});
                if !args.text.is_empty() {
                    let route = phone.type_text(&args.text).await?;
                    extra["input"] = json!(route.as_str());
                }
                self.finish_value(&before, warning, extra, &c, &args).await
            }
            .await,
        )
    }

    #[tool(name = "keyboard_input", description = describe::KEYS)]
    async fn keyboard_input(&self, Parameters(args): Parameters<KeysArgs>) -> CallToolResult {
        answer(
            async {
                let steps =
                    deft_protocol::keys::parse(&args.keys).map_err(|e| model(e.to_string()))?;
                let planned = input::plan(&steps).map_err(|k| model(texts::no_phone_key(&k.0)))?;
                let phone = self.session().await?.phone();
                for step in &planned {
                    if let input::PhoneInput::Unicode(t) = step {
                        phone.input_route(t).await?;
                    }
                }
                let (before, warning) = if !args.id.is_empty() && args.control_focus.unwrap_or(true)
                {
                    let (before, c, warning) = self
                        .session()
                        .await?
                        .control(&args.id, args.name.as_deref())
                        .await?;
                    if !c.states.contains(&StateFlag::Focused) {
                        let (x, y) = centre(&c, true)?;
                        phone.tap(x, y).await?;
                    }
                    (before, warning)
                } else {
                    (self.session().await?.last().await?, None)
                };
                let mut routes: Vec<&str> = Vec::new();
                for step in &planned {
                    match step {
                        input::PhoneInput::Text(t) | input::PhoneInput::Unicode(t) => {
                            let route = phone.type_text(t).await?.as_str();
                            if !routes.contains(&route) {
                                routes.push(route);
                            }
                        }
                        other => phone.send(other).await?,
                    }
                }
                let extra = if routes.is_empty() {
                    json!({})
                } else {
                    json!({"input": routes.join(", ")})
                };
                self.finish(&before, warning, extra).await
            }
            .await,
        )
    }

    #[tool(name = "wheel_mouse_input", description = describe::WHEEL)]
    async fn wheel_mouse_input(&self, Parameters(args): Parameters<WheelArgs>) -> CallToolResult {
        answer(
            async {
                let (before, rect, warning) = if args.target.id.is_empty() {
                    let (w, h) = self.screen_size().await?;
                    (self.session().await?.last().await?, [0, 0, w, h], None)
                } else {
                    let (before, c, warning) = self
                        .session()
                        .await?
                        .control(&args.target.id, args.target.name.as_deref())
                        .await?;
                    centre(&c, false)?;
                    (before, c.rect.unwrap_or_default(), warning)
                };
                for (from, to) in scroll_swipes(rect, args.wheel_dist) {
                    self.session()
                        .await?
                        .phone()
                        .swipe(from, to, SCROLL_SWIPE_MS)
                        .await?;
                }
                self.finish(&before, warning, json!({})).await
            }
            .await,
        )
    }

    #[tool(name = "texts", description = describe::TEXTS, annotations(read_only_hint = true))]
    async fn texts(&self, Parameters(args): Parameters<Target>) -> CallToolResult {
        answer(
            async {
                let (_, c, warning) = self
                    .session()
                    .await?
                    .control(&args.id, args.name.as_deref())
                    .await?;
                let mut texts: Vec<String> = Vec::new();
                let inner = c
                    .extra
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                for t in [Some(c.name.clone()), c.value.clone(), inner]
                    .into_iter()
                    .flatten()
                {
                    if !t.is_empty() && !texts.contains(&t) {
                        texts.push(t);
                    }
                }
                let mut out = json!({"texts": texts});
                if let Some(w) = warning {
                    out["warning"] = json!(w);
                }
                Ok(CallToolResult::structured(out))
            }
            .await,
        )
    }

    #[tool(name = "capture_window_screenshot", description = describe::SHOT, annotations(read_only_hint = true))]
    async fn capture_window_screenshot(
        &self,
        Parameters(args): Parameters<ScreenshotArgs>,
    ) -> CallToolResult {
        self.screenshot(args.annotated.unwrap_or(false)).await
    }

    #[tool(name = "capture_desktop_screenshot", description = describe::DESKTOP_SHOT, annotations(read_only_hint = true))]
    async fn capture_desktop_screenshot(&self) -> CallToolResult {
        self.screenshot(false).await
    }

    #[tool(name = "launch_app", description = describe::LAUNCH, meta = launch_meta())]
    async fn launch_app(&self, Parameters(args): Parameters<AppArgs>) -> CallToolResult {
        answer(
            async {
                let name = args.app.trim();
                if name.is_empty() {
                    return Err(model(texts::APP_NEEDED.into()));
                }
                let phone = self.session().await?.phone();
                if apps::is_link(name) {
                    let from = phone.focus().await?.package.unwrap_or_default();
                    phone.view_url(name).await?;
                    let package = self.wait_front_change(&from).await?;
                    return self.launched(package, FoundBy::Link).await;
                }
                let installed = phone.packages().await?;
                let (package, found_by) = match apps::resolve(name, &installed) {
                    Resolved::App(p, by) => {
                        phone.launch(&p).await?;
                        (p, by)
                    }
                    Resolved::Ambiguous(ps) => return Err(model(texts::ambiguous_app(name, &ps))),
                    Resolved::Unknown => (
                        self.launch_from_home(name, &installed).await?,
                        FoundBy::HomeScreen,
                    ),
                };
                self.wait_foreground(&package).await?;
                self.launched(package, found_by).await
            }
            .await,
        )
    }

    #[tool(name = "close_app", description = describe::CLOSE)]
    async fn close_app(&self, Parameters(args): Parameters<AppArgs>) -> CallToolResult {
        answer(
            async {
                let name = args.app.trim();
                if name.is_empty() {
                    return Err(model(texts::APP_NEEDED.into()));
                }
                let phone = self.session().await?.phone();
                let installed = phone.packages().await?;
                let package = match apps::resolve(name, &installed) {
                    Resolved::App(p, _) => p,
                    Resolved::Ambiguous(ps) => return Err(model(texts::ambiguous_app(name, &ps))),
                    Resolved::Unknown => {
                        return Err(model(texts::unknown_app(
                            name,
                            &apps::close_to(name, &installed),
                        )));
                    }
                };
                let before = self.session().await?.last().await?;
                phone.stop_app(&package).await?;
                let mut result = self
                    .finish(&before, None, json!({"closed": package}))
                    .await?;
                if let Some(out) = result.structured_content.as_mut() {
                    let front = out["app"].as_str().unwrap_or("the home screen").to_owned();
                    out["message"] = json!(texts::closed(&package, &front));
                    result.content = vec![ContentBlock::text(out.to_string())];
                }
                Ok(result)
            }
            .await,
        )
    }

    #[tool(name = "set_clipboard", description = deft_protocol::clipboard::SET_DESCRIPTION)]
    async fn set_clipboard(&self, Parameters(args): Parameters<ClipboardArgs>) -> CallToolResult {
        answer(
            async {
                let text = args.checked_text().map_err(model)?;
                let phone = self.session().await?.phone();
                let copied = self.clipboard.set(phone, &self.config, text).await?;
                let mut out = deft_protocol::clipboard::set_answer(text);
                self.note_helper(&mut out, copied);
                Ok(CallToolResult::structured(out))
            }
            .await,
        )
    }

    #[tool(name = "get_clipboard", description = deft_protocol::clipboard::GET_DESCRIPTION, annotations(read_only_hint = true))]
    async fn get_clipboard(&self) -> CallToolResult {
        answer(
            async {
                let phone = self.session().await?.phone();
                let (text, copied) = self.clipboard.get(phone, &self.config).await?;
                let mut out = deft_protocol::clipboard::read_answer(&text);
                self.note_helper(&mut out, copied);
                Ok(CallToolResult::structured(out))
            }
            .await,
        )
    }

    #[tool(name = "list_apps", description = describe::LIST_APPS, annotations(read_only_hint = true))]
    async fn list_apps(&self) -> CallToolResult {
        answer(
            async {
                let mut packages = self.session().await?.phone().packages().await?;
                packages.sort();
                Ok(CallToolResult::structured(json!({"packages": packages})))
            }
            .await,
        )
    }

    #[tool(name = "install_app", description = describe::INSTALL, meta = launch_meta())]
    async fn install_app(&self, Parameters(args): Parameters<InstallArgs>) -> CallToolResult {
        answer(
            async {
                let (name, bytes) = self.config.read_apk(args.path.trim())?;
                let phone = self.session().await?.phone();
                let before = phone.packages().await?;
                phone.install(&name, &bytes).await?;
                let mut added: Vec<String> = phone
                    .packages()
                    .await?
                    .into_iter()
                    .filter(|p| !before.contains(p))
                    .collect();
                added.sort();
                Ok(CallToolResult::structured(
                    json!({"installed": name, "bytes": bytes.len(), "new_packages": added}),
                ))
            }
            .await,
        )
    }

    #[tool(name = "set_screen", description = describe::SCREEN)]
    async fn set_screen(&self, Parameters(args): Parameters<ScreenArgs>) -> CallToolResult {
        answer(
            async {
                let phone = self.session().await?.phone();
                phone.set_screen(args.on).await?;
                let now = phone.screen_on().await?;
                let word = match now {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => "unknown",
                };
                Ok(CallToolResult::structured(json!({"screen": word})))
            }
            .await,
        )
    }

    #[tool(name = "keep_awake", description = describe::KEEP_AWAKE)]
    async fn keep_awake(&self, Parameters(args): Parameters<KeepAwakeArgs>) -> CallToolResult {
        answer(
            async {
                let given = args.mode.trim().to_ascii_lowercase();
                let mode = match given.as_str() {
                    "always" | "on" | "true" => "true",
                    "off" | "false" | "never" => "false",
                    m @ ("usb" | "ac" | "wireless") => m,
                    _ => return Err(model(texts::bad_stay_on(&args.mode))),
                };
                self.session().await?.phone().stay_on(mode).await?;
                Ok(CallToolResult::structured(json!({"keep_awake": given})))
            }
            .await,
        )
    }

    #[tool(name = "swipe", description = describe::SWIPE)]
    async fn swipe(&self, Parameters(args): Parameters<SwipeArgs>) -> CallToolResult {
        answer(
            async {
                let ms = args.duration_ms.unwrap_or(300).min(MAX_SWIPE_MS);
                let points = match (&args.path, args.direction.as_deref()) {
                    (Some(path), None) => self.path_points(path).await?,
                    (None, Some(direction)) => self.direction_points(&args, direction).await?,
                    _ => return Err(model(texts::SWIPE_PATH_OR_DIRECTION.into())),
                };
                let before = self.session().await?.last().await?;
                let phone = self.session().await?.phone();
                if let [from, to] = points[..] {
                    phone.swipe(from, to, ms).await?;
                } else {
                    phone.gesture(&points).await?;
                }
                self.finish(&before, None, json!({})).await
            }
            .await,
        )
    }

    #[tool(name = "wait", description = describe::WAIT, meta = wait_meta())]
    async fn wait(&self, Parameters(args): Parameters<WaitArgs>) -> CallToolResult {
        match args.duration() {
            Ok(d) => {
                tokio::time::sleep(d).await;
                CallToolResult::structured(json!({"waited_secs": args.seconds}))
            }
            Err(e) => err(e),
        }
    }

    #[tool(name = "summary", description = describe::SUMMARY, annotations(read_only_hint = true))]
    async fn summary(&self, Parameters(args): Parameters<SummaryArgs>) -> CallToolResult {
        CallToolResult::structured(json!({"summary": args.text}))
    }
}

impl AndroidServer {
    /// Reads the screen after an action and answers `{effect, settle_ms, app, window, …extra,
    /// warning?}`; a screen that cannot be read after it (turned off, locked) is `effect:
    /// unknown` with the reason.
    async fn finish(
        &self,
        before: &Seen,
        warning: Option<String>,
        mut extra: Value,
    ) -> Result<CallToolResult, AndroidError> {
        match self.session().await?.effect(before).await {
            Ok(e) => {
                extra["effect"] = json!(if e.changed { "changed" } else { "no_change" });
                extra["settle_ms"] = json!(e.settle_ms);
                extra["app"] = json!(e.seen.package());
                extra["window"] = e.seen.window.to_json();
            }
            Err(e) => {
                extra["effect"] = json!("unknown");
                extra["note"] = json!(e.to_string());
            }
        }
        if let Some(w) = warning {
            extra["warning"] = json!(w);
        }
        Ok(CallToolResult::structured(extra))
    }

    /// [`AndroidServer::finish`] for `set_edit_text`: the field's value read back, a warning
    /// when it is not what was asked (a password field shows nothing to compare).
    async fn finish_value(
        &self,
        before: &Seen,
        warning: Option<String>,
        extra: Value,
        c: &Control,
        args: &SetTextArgs,
    ) -> Result<CallToolResult, AndroidError> {
        let mut result = self.finish(before, warning, extra).await?;
        let seen = self.session().await?.last().await?;
        let Some(now) = seen.control(&c.id) else {
            return Ok(result);
        };
        let value = now.value.clone().unwrap_or_default();
        let wanted = if args.clear_current_text.unwrap_or(true) {
            args.text.clone()
        } else {
            format!("{}{}", c.value.as_deref().unwrap_or_default(), args.text)
        };
        if let Some(out) = result.structured_content.as_mut() {
            out["value"] = json!(value);
            if value != wanted && out.get("warning").is_none() {
                out["warning"] = json!(texts::value_differs(&c.id, &wanted, &value));
            }
            let text = out.to_string();
            result.content = vec![ContentBlock::text(text)];
        }
        Ok(result)
    }

    /// The pixels of a swipe path given as screen fractions.
    async fn path_points(&self, path: &[[f64; 2]]) -> Result<Vec<(i32, i32)>, AndroidError> {
        if !(2..=MAX_PATH_POINTS).contains(&path.len()) {
            return Err(model(texts::bad_path(path.len(), MAX_PATH_POINTS)));
        }
        let mut points = Vec::with_capacity(path.len());
        for [x, y] in path {
            points.push(self.at_fraction(*x, *y, "x", "y").await?);
        }
        Ok(points)
    }

    /// The start and end of a swipe the finger makes `direction` by `amount` of the control
    /// `args.id` (or the screen), through its middle.
    async fn direction_points(
        &self,
        args: &SwipeArgs,
        direction: &str,
    ) -> Result<Vec<(i32, i32)>, AndroidError> {
        let amount = args.amount.unwrap_or(0.5);
        if !(amount.is_finite() && (0.05..=1.0).contains(&amount)) {
            return Err(model(texts::bad_argument(&format!(
                "amount must be between 0.05 and 1, got {amount}."
            ))));
        }
        let rect = match args.id.as_deref().map(str::trim).filter(|i| !i.is_empty()) {
            Some(id) => {
                let (_, c, _) = self.session().await?.control(id, None).await?;
                centre(&c, false)?;
                c.rect.unwrap_or_default()
            }
            None => {
                let (w, h) = self.screen_size().await?;
                [0, 0, w, h]
            }
        };
        swipe_line(rect, direction, amount)
            .map(|(from, to)| vec![from, to])
            .ok_or_else(|| model(texts::bad_direction(direction)))
    }

    /// The screen's size in pixels.
    async fn screen_size(&self) -> Result<(i32, i32), AndroidError> {
        let session = self.session().await?;
        let (w, h) = session.screen_size().await?.ok_or_else(|| {
            model(texts::bad_argument(
                "the phone did not say its screen size (wm size)",
            ))
        })?;
        Ok((
            i32::try_from(w).unwrap_or(i32::MAX),
            i32::try_from(h).unwrap_or(i32::MAX),
        ))
    }

    /// The pixel at fractions `x`, `y` of the screen (each checked to be within 0..1).
    async fn at_fraction(
        &self,
        x: f64,
        y: f64,
        xn: &str,
        yn: &str,
    ) -> Result<(i32, i32), AndroidError> {
        for (n, v) in [(xn, x), (yn, y)] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(model(texts::bad_fraction(n, v)));
            }
        }
        let (w, h) = self.screen_size().await?;
        let px =
            |f: f64, size: i32| ((f * f64::from(size)).round() as i32).clamp(0, (size - 1).max(0));
        Ok((px(x, w), px(y, h)))
    }

    /// Waits until `package` has the focus (an app takes a moment to start), at most
    /// [`LAUNCH_WAIT`]; an app that never comes to the front is not an error here (the answer
    /// shows what is in front).
    async fn wait_foreground(&self, package: &str) -> Result<(), AndroidError> {
        let t0 = Instant::now();
        let mut pause = crate::session::POLL_FIRST;
        while t0.elapsed() < LAUNCH_WAIT {
            if self
                .session()
                .await?
                .phone()
                .focus()
                .await?
                .package
                .as_deref()
                == Some(package)
            {
                return Ok(());
            }
            tokio::time::sleep(pause).await;
            pause = crate::session::next_poll(pause);
        }
        Ok(())
    }

    /// launch_app's answer: the app opened, how it was found, and its window as it shows now.
    async fn launched(
        &self,
        package: String,
        found_by: FoundBy,
    ) -> Result<CallToolResult, AndroidError> {
        let seen = self.session().await?.look().await?;
        Ok(CallToolResult::structured(json!({
            "app": package,
            "found_by": found_by.as_str(),
            "root_name": seen.window.app,
            "window": seen.window.to_json(),
            "effect": "changed",
        })))
    }

    /// Waits until another package than `from` is in front, at most [`LAUNCH_WAIT`]; answers
    /// the package in front then.
    async fn wait_front_change(&self, from: &str) -> Result<String, AndroidError> {
        let phone = self.session().await?.phone();
        let t0 = Instant::now();
        let mut pause = crate::session::POLL_FIRST;
        loop {
            let front = phone.focus().await?.package.unwrap_or_default();
            if front != from || t0.elapsed() >= LAUNCH_WAIT {
                return Ok(front);
            }
            tokio::time::sleep(pause).await;
            pause = crate::session::next_poll(pause);
        }
    }

    /// Opens an app by tapping its icon on the home screen, as a person would; the package is
    /// the one in front afterwards.
    async fn launch_from_home(
        &self,
        name: &str,
        installed: &[String],
    ) -> Result<String, AndroidError> {
        let phone = self.session().await?.phone();
        phone.key(keycode::HOME).await?;
        let seen = self.session().await?.look().await?;
        let wanted = clean_name(name).to_lowercase();
        let icon = seen
            .listed
            .controls
            .iter()
            .find(|c| c.interactive && clean_name(&c.name).to_lowercase() == wanted)
            .ok_or_else(|| model(texts::unknown_app(name, &apps::close_to(name, installed))))?;
        let (x, y) = centre(icon, true)?;
        phone.tap(x, y).await?;
        let front = self.wait_front_change(seen.package()).await?;
        Ok(if front.is_empty() {
            seen.package().to_owned()
        } else {
            front
        })
    }

    /// Says in a clipboard answer that deft copied the helper from `copied` first.
    fn note_helper(&self, out: &mut Value, copied: Option<String>) {
        if let Some(local) = copied {
            out["note"] = json!(texts::clipboard_helper_copied(
                &local,
                self.clipboard.path()
            ));
        }
    }

    async fn screenshot(&self, annotated: bool) -> CallToolResult {
        answer(
            async {
                let session = self.session().await?;
                // the marks come from a screen read just before the picture, so they sit
                // where the picture shows their controls
                let seen = match annotated {
                    true => Some(session.look().await?),
                    false => None,
                };
                let mut png = session.phone().screenshot().await?;
                let (w, h) =
                    png_size(&png).ok_or_else(|| model(texts::screenshot_unreadable(png.len())))?;
                let mut caption = format!("screen rect=[0,0,{w},{h}]");
                if let Some(seen) = seen {
                    let (marked, drawn) = crate::shot::annotate(&png, &seen.listed.controls)
                        .ok_or_else(|| model(texts::screenshot_unreadable(png.len())))?;
                    png = marked;
                    caption = format!("{caption} {}", texts::marks_drawn(drawn));
                }
                use base64::Engine as _;
                Ok(CallToolResult::success(vec![
                    ContentBlock::text(caption),
                    ContentBlock::image(
                        base64::engine::general_purpose::STANDARD.encode(&png),
                        "image/png",
                    ),
                ]))
            }
            .await,
        )
    }
}

/// Refuses a mouse button a phone does not have (`left`, the default, is a tap).
fn tap_button(button: Option<&str>) -> Result<(), AndroidError> {
    match button
        .map(str::trim)
        .filter(|b| !b.is_empty() && !b.eq_ignore_ascii_case("left"))
    {
        Some(b) => Err(model(texts::no_such_button(b))),
        None => Ok(()),
    }
}

/// A touch at `at`: a tap, two taps (`double`), or a press held `hold` (a long press).
async fn touch(
    phone: &Phone,
    at: (i32, i32),
    double: bool,
    hold: Option<Duration>,
) -> Result<(), AndroidError> {
    let (x, y) = at;
    match hold {
        Some(hold) => phone.swipe(at, at, millis(hold)).await?,
        None => {
            phone.tap(x, y).await?;
            if double {
                phone.tap(x, y).await?;
            }
        }
    }
    Ok(())
}

/// Where a tap on `c` lands: its centre. A control with no area cannot be tapped; a disabled one
/// is refused when `enabled_only`.
fn centre(c: &Control, enabled_only: bool) -> Result<(i32, i32), AndroidError> {
    if enabled_only && c.states.contains(&StateFlag::Disabled) {
        return Err(model(texts::control_disabled(&c.id, &c.name)));
    }
    match c.rect {
        Some([l, t, r, b]) if r > l && b > t => Ok(((l + r) / 2, (t + b) / 2)),
        _ => Err(model(texts::control_offscreen(&c.id, &c.name))),
    }
}

/// The swipes that scroll `rect` by `notches` (positive: towards the top, the finger moving
/// down), each within the middle of the rect.
fn scroll_swipes(rect: [i32; 4], notches: i32) -> Vec<((i32, i32), (i32, i32))> {
    let [l, t, r, b] = rect;
    let height = f64::from((b - t).max(1));
    let x = (l + r) / 2;
    let mut left = f64::from(notches.unsigned_abs()) * NOTCH_SHARE * height;
    let most = MAX_SWIPE_SHARE * height;
    let mid = f64::from(t + b) / 2.0;
    let mut out = Vec::new();
    while left >= 1.0 {
        let d = left.min(most);
        left -= d;
        let (y1, y2) = if notches > 0 {
            (mid - d / 2.0, mid + d / 2.0)
        } else {
            (mid + d / 2.0, mid - d / 2.0)
        };
        out.push(((x, y1.round() as i32), (x, y2.round() as i32)));
    }
    out
}

/// A straight swipe inside `rect` through its middle, the finger moving `direction` by
/// `amount` of the rect's size (never to its very edge).
fn swipe_line(rect: [i32; 4], direction: &str, amount: f64) -> Option<((i32, i32), (i32, i32))> {
    let [l, t, r, b] = rect;
    let (cx, cy) = (f64::from(l + r) / 2.0, f64::from(t + b) / 2.0);
    let reach = |size: i32| (amount.min(MAX_SWIPE_SHARE) * f64::from(size)) / 2.0;
    let (dx, dy) = match direction.trim().to_ascii_lowercase().as_str() {
        "up" => (0.0, -reach(b - t)),
        "down" => (0.0, reach(b - t)),
        "left" => (-reach(r - l), 0.0),
        "right" => (reach(r - l), 0.0),
        _ => return None,
    };
    let at = |x: f64, y: f64| (x.round() as i32, y.round() as i32);
    Some((at(cx - dx, cy - dy), at(cx + dx, cy + dy)))
}

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

/// A PNG's width and height from its header.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let be = |at: usize| {
        png.get(at..at + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_be_bytes)
    };
    Some((be(16)?, be(20)?))
}

/// Refuses a selector that cannot match anything, with every problem and its path.
fn usable(sel: &Selector) -> Result<(), AndroidError> {
    let problems = sel.problems("selector");
    if problems.is_empty() {
        Ok(())
    } else {
        Err(model(texts::bad_selector(&problems)))
    }
}

/// The matches of `sel` on a screen.
fn matches<'a>(seen: &'a Seen, sel: &Selector) -> Result<selector::Found<'a>, AndroidError> {
    selector::find(
        &seen.listed.controls,
        &seen.listed.depths,
        sel,
        &MatchOptions::default(),
    )
    .map_err(|e| model(texts::bad_selector(&e.0)))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for AndroidServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                texts::SERVER_NAME,
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(texts::INSTRUCTIONS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolling_swipes_stay_inside_the_control_and_go_the_asked_way() {
        // Three notches down on a 1000 px list: one swipe of 300 px, finger moving up.
        assert_eq!(
            scroll_swipes([0, 1000, 200, 2000], -3),
            vec![((100, 1650), (100, 1350))]
        );
        // Twelve notches up: 1200 px in swipes of at most 800 px, finger moving down.
        assert_eq!(
            scroll_swipes([0, 0, 200, 1000], 12),
            vec![((100, 100), (100, 900)), ((100, 300), (100, 700))]
        );
        assert!(scroll_swipes([0, 0, 200, 1000], 0).is_empty());
    }

    #[test]
    fn a_swipe_by_direction_moves_the_finger_that_way_through_the_middle() {
        // Left by half a 1000 px wide carousel: from 250 right of the middle to 250 left.
        assert_eq!(
            swipe_line([0, 100, 1000, 300], "left", 0.5),
            Some(((750, 200), (250, 200)))
        );
        assert_eq!(
            swipe_line([0, 0, 1000, 2000], "Up", 0.5),
            Some(((500, 1500), (500, 500)))
        );
        // Never edge to edge: at most 80 %.
        assert_eq!(
            swipe_line([0, 0, 1000, 2000], "down", 1.0),
            Some(((500, 200), (500, 1800)))
        );
        assert_eq!(swipe_line([0, 0, 10, 10], "sideways", 0.5), None);
    }

    #[test]
    fn png_sizes_come_from_the_header() {
        let png = deft_test_support::adb_double::tiny_png();
        assert_eq!(png_size(&png), Some((4, 2)));
        assert_eq!(png_size(b"not a png at all, not at all"), None);
    }
}
