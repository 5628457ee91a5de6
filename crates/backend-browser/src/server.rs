//! The MCP server: the shared window/control tools and the browser-only tools.

use std::sync::Arc;
use std::time::Instant;

use deft_protocol::changes;
use deft_protocol::found::{
    render_found, render_found_json, tie_note, wait_result, wait_timeout_text,
};
use deft_protocol::observation::ListingFormat;
use deft_protocol::observation::{clean_name, render_window_list};
use deft_protocol::selector::{self, MatchOptions, Selector};
use deft_protocol::timeout_meta;
use deft_protocol::tool_args::{
    self, AppInfoArgs, ClickArgs, ClipboardArgs, CoordArgs, DragArgs, FindControlsArgs, KeysArgs,
    ListingArgs, ScreenshotArgs, SelectOptionArgs, SetTextArgs, SummaryArgs, Target, WaitArgs,
    WaitForControlArgs, WheelArgs,
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

use crate::browser::{
    Browser, BrowserConfig, BrowserError, ClipboardRead, ControlRef, Dialog, Listing, Waited,
    parse_id,
};
use crate::input::{self, Dispatched};
use crate::keys;
use crate::texts::{self, describe};

/// `navigate` / `new_tab`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UrlArgs {
    /// The address.
    pub url: String,
}

/// `new_tab`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct NewTabArgs {
    /// The address (default: a blank tab).
    #[serde(default)]
    pub url: Option<String>,
}

/// `get_page_text`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct PageTextArgs {
    /// At most this many characters (default 8000).
    #[serde(default)]
    pub max_chars: Option<usize>,
}

/// `handle_dialog`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DialogArgs {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// The answer to a prompt.
    #[serde(default)]
    pub text: Option<String>,
}

/// Default `get_page_text` budget.
pub const DEFAULT_PAGE_TEXT_CHARS: usize = 8000;

/// deft's browser tool server. Starts (or attaches to) its browser at the first tool call and
/// stops a browser it started when the last clone is dropped.
#[derive(Clone)]
pub struct BrowserServer {
    config: Arc<BrowserConfig>,
    browser: Arc<OnceCell<Browser>>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for BrowserServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserServer")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// `wait`'s `_meta`: the longest wait, with room to answer.
fn wait_meta() -> MetaObject {
    MetaObject(timeout_meta(tool_args::WAIT_TOOL_LIMIT_SECS))
}

fn err(e: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

/// A tool's answer: its result, or its error as the model reads it.
fn answer<E: Into<CallToolResult>>(r: Result<CallToolResult, E>) -> CallToolResult {
    r.unwrap_or_else(Into::into)
}

impl From<BrowserError> for CallToolResult {
    fn from(e: BrowserError) -> Self {
        err(e)
    }
}

#[tool_router]
impl BrowserServer {
    /// A server for `config`; nothing starts until the first tool call.
    pub fn new(config: BrowserConfig) -> Self {
        BrowserServer {
            config: Arc::new(config),
            browser: Arc::new(OnceCell::new()),
            tool_router: Self::tool_router(),
        }
    }

    /// The browser, started at the first call.
    pub async fn browser(&self) -> Result<&Browser, BrowserError> {
        self.browser
            .get_or_try_init(|| Browser::start(&self.config))
            .await
    }

    #[tool(name = "get_desktop_app_info", description = describe::APP_INFO, annotations(read_only_hint = true))]
    async fn get_desktop_app_info(
        &self,
        Parameters(opts): Parameters<AppInfoArgs>,
    ) -> CallToolResult {
        answer(
            async {
                let b = self.browser().await?;
                let mut tabs =
                    if opts.refresh_app_windows.unwrap_or(true) || b.known_tabs().is_empty() {
                        b.tabs().await?
                    } else {
                        b.known_tabs()
                    };
                if opts.remove_empty.unwrap_or(true) {
                    tabs.retain(|t| !t.name.trim().is_empty());
                }
                Ok::<_, BrowserError>(CallToolResult::structured(
                    json!({"windows": render_window_list(&tabs)}),
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
                let (b, id) = self.window_id(&args.id).await?;
                let w = b.select(id).await?;
                let mut out = json!({"root_name": w.app, "window_info": w.to_json()});
                if let Some(given) = args.name.as_deref().map(clean_name)
                    && !given.is_empty()
                    && given != clean_name(&w.name)
                {
                    out["warning"] = json!(texts::window_name_warning(id, &given, &w.name));
                }
                Ok::<_, BrowserError>(CallToolResult::structured(out))
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
                let opts = args.options().map_err(BrowserError::Model)?;
                let b = self.browser().await?;
                let listing = b.list(&opts, true).await?;
                let note = listing
                    .dialog
                    .as_ref()
                    .map(|d| texts::listing_dialog_note(&d.kind, &d.message));
                let previous = listing.previous.as_deref();
                let mut result = match opts.format {
                    deft_protocol::observation::ListingFormat::Compact => {
                        CallToolResult::success(vec![ContentBlock::text(changes::render_listing(
                            &listing.window,
                            previous,
                            &listing.controls,
                            &opts,
                        ))])
                    }
                    deft_protocol::observation::ListingFormat::Json => {
                        CallToolResult::structured(changes::render_listing_json(
                            &listing.window,
                            previous,
                            &listing.controls,
                            &opts,
                        ))
                    }
                };
                if let Some(n) = note {
                    result.content.push(ContentBlock::text(n));
                }
                Ok::<_, BrowserError>(result)
            }
            .await,
        )
    }

    #[tool(name = "click_input", description = describe::CLICK)]
    async fn click_input(&self, Parameters(args): Parameters<ClickArgs>) -> CallToolResult {
        answer(
            async {
                let button = input::button_name(args.button.as_deref())?;
                let count = if args.double.unwrap_or(false) { 2 } else { 1 };
                let hold = args.hold().map_err(BrowserError::Model)?;
                let b = self.browser().await?;
                // Seen in socket order: a chooser the click opened is here before its answer.
                let mut events = b.cdp().events();
                let mut result = self
                    .act_on(
                        &args.target.id,
                        args.target.name.as_deref(),
                        true,
                        |b, page, _id, _c, p| {
                            Box::pin(async move {
                                match hold {
                                    Some(hold) => {
                                        input::press_hold(b.cdp(), &page, p.x, p.y, button, hold)
                                            .await
                                    }
                                    None => {
                                        input::click(b.cdp(), &page, p.x, p.y, button, count).await
                                    }
                                }
                                .map_err(BrowserError::from)
                            })
                        },
                    )
                    .await?;
                report_file_chooser(b, &mut events, &mut result).await;
                Ok::<_, CallToolResult>(result)
            }
            .await,
        )
    }

    #[tool(name = "set_edit_text", description = describe::SET_TEXT)]
    async fn set_edit_text(&self, Parameters(args): Parameters<SetTextArgs>) -> CallToolResult {
        let clear = args.clear_current_text.unwrap_or(true);
        let text = args.text.clone();
        match self
            .file_input(&args.target.id, args.target.name.as_deref())
            .await
        {
            Ok(true) => return answer(self.set_file_input(&args).await),
            Ok(false) => {}
            Err(e) => return e.into(),
        }
        answer(self
            .act_on(&args.target.id, args.target.name.as_deref(), true, move |b, page, id, c, _p| {
                Box::pin(async move {
                    let ok = b
                        .on_element(
                            id,
                            &c,
                            &format!(
                                "const editable = el.isContentEditable || el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && !['checkbox','radio','button','submit','reset','image','file','range','color'].includes((el.type||'').toLowerCase()));
                                 if (!editable) return false;
                                 el.focus();
                                 if ({clear}) {{ if (el.select) el.select(); else {{ const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }} }}
                                 else if (el.setSelectionRange && el.value !== undefined) {{ try {{ el.setSelectionRange(el.value.length, el.value.length); }} catch (e) {{}} }}
                                 return true;"
                            ),
                        )
                        .await?;
                    if ok != Value::Bool(true) {
                        return Err(BrowserError::Model(texts::not_editable(
                            id,
                            &c.name,
                            c.kind.as_str(),
                        )));
                    }
                    if text.is_empty() && clear {
                        let delete = [keys::KeyStep::Key(keys::NamedKey::Delete)];
                        return input::press_steps(b.cdp(), &page, &delete)
                            .await
                            .map_err(BrowserError::from);
                    }
                    input::insert_text(b.cdp(), &page, &text)
                        .await
                        .map_err(BrowserError::from)
                })
            })
            .await)
    }

    #[tool(name = "keyboard_input", description = describe::KEYS)]
    async fn keyboard_input(&self, Parameters(args): Parameters<KeysArgs>) -> CallToolResult {
        answer(
            async {
                let steps = keys::parse(&args.keys).map_err(|e| err(e.to_string()))?;
                let (b, window, page) = self.page().await?;
                let mut warning = None;
                let mut focused = None;
                if !args.id.is_empty() && args.control_focus.unwrap_or(true) {
                    let (n, c, w) = b.control(&args.id, args.name.as_deref())?;
                    warning = w;
                    b.locate(n, &c, true).await?;
                    b.on_element(n, &c, "el.focus(); return true;").await?;
                    focused = Some(c.session);
                }
                let before = Before::take(b, window, &page, focused.as_deref()).await;
                let dialog = input::press_steps(b.cdp(), &page, &steps)
                    .await
                    .map_err(BrowserError::from)?
                    == Dispatched::DialogOpened;
                Ok::<_, CallToolResult>(self.finish(b, before, dialog, warning).await)
            }
            .await,
        )
    }

    #[tool(name = "wheel_mouse_input", description = describe::WHEEL)]
    async fn wheel_mouse_input(&self, Parameters(args): Parameters<WheelArgs>) -> CallToolResult {
        let dist = i64::from(args.wheel_dist);
        match Some(&args.target.id).filter(|id| !id.is_empty()) {
            Some(id) => answer(
                self.act_on(
                    id,
                    args.target.name.as_deref(),
                    false,
                    move |b, page, _id, _c, p| {
                        Box::pin(async move {
                            let d = input::wheel(b.cdp(), &page, p.x, p.y, dist).await?;
                            scrolled(b, &page, d).await;
                            Ok(d)
                        })
                    },
                )
                .await,
            ),
            None => answer(
                self.act_on_viewport(move |b, page, (w, h)| {
                    Box::pin(async move {
                        let d = input::wheel(b.cdp(), &page, w / 2.0, h / 2.0, dist).await?;
                        scrolled(b, &page, d).await;
                        Ok(d)
                    })
                })
                .await,
            ),
        }
    }

    #[tool(name = "texts", description = describe::TEXTS, annotations(read_only_hint = true))]
    async fn texts(&self, Parameters(args): Parameters<Target>) -> CallToolResult {
        answer(
            async {
                let (b, _, _) = self.page().await?;
                let (n, c, warning) = b.control(&args.id, args.name.as_deref())?;
                let v = b
                    .on_element(
                        n,
                        &c,
                        "const role = __deft.roleOf(el); const out = [__deft.nameOf(el, role)];
                     if (el.value !== undefined && typeof el.value === 'string') out.push(el.value);
                     const t = (el.innerText || el.textContent || '').trim(); if (t) out.push(t);
                     return out.filter((s, i) => s !== '' && out.indexOf(s) === i);",
                    )
                    .await?;
                let mut out = json!({"texts": v});
                if let Some(w) = warning {
                    out["warning"] = json!(w);
                }
                Ok::<_, BrowserError>(CallToolResult::structured(out))
            }
            .await,
        )
    }

    #[tool(name = "select_option", description = describe::SELECT_OPTION)]
    async fn select_option(
        &self,
        Parameters(args): Parameters<SelectOptionArgs>,
    ) -> CallToolResult {
        let wanted = args.option.clone();
        answer(self
            .act_on(&args.target.id, args.target.name.as_deref(), true, move |b, _page, id, c, _p| {
                Box::pin(async move {
                    let v = b
                        .on_element(
                            id,
                            &c,
                            &format!(
                                "if (el.tagName !== 'SELECT') return {{notSelect: true}};
                                 const want = {w}; const norm = (s) => (s || '').replace(/\\s+/g, ' ').trim();
                                 const opts = Array.from(el.options);
                                 const o = opts.find(o => norm(o.text) === norm(want)) || opts.find(o => o.value === want)
                                   || opts.find(o => norm(o.text).toLowerCase() === norm(want).toLowerCase());
                                 if (!o) return {{options: opts.map(o => norm(o.text))}};
                                 el.focus(); o.selected = true;
                                 el.dispatchEvent(new Event('input', {{bubbles: true}}));
                                 el.dispatchEvent(new Event('change', {{bubbles: true}}));
                                 return {{ok: true}};",
                                w = json!(wanted)
                            ),
                        )
                        .await?;
                    if v["notSelect"] == true {
                        return Err(BrowserError::Model(texts::not_a_select(
                            id,
                            &c.name,
                            c.kind.as_str(),
                        )));
                    }
                    if let Some(opts) = v["options"].as_array() {
                        let opts: Vec<String> = opts
                            .iter()
                            .filter_map(|o| o.as_str().map(str::to_owned))
                            .collect();
                        return Err(BrowserError::Model(texts::no_such_option(
                            id, &wanted, &opts,
                        )));
                    }
                    Ok(Dispatched::Done)
                })
            })
            .await)
    }

    #[tool(name = "click_on_coordinates", description = describe::CLICK_XY)]
    async fn click_on_coordinates(
        &self,
        Parameters(args): Parameters<CoordArgs>,
    ) -> CallToolResult {
        answer(
            async {
                check_fraction("x", args.x)?;
                check_fraction("y", args.y)?;
                let button = input::button_name(args.button.as_deref())?;
                let count = if args.double.unwrap_or(false) { 2 } else { 1 };
                let (x, y) = (args.x, args.y);
                let result = self
                    .act_on_viewport(move |b, page, (w, h)| {
                        Box::pin(async move {
                            input::click(b.cdp(), &page, x * w, y * h, button, count)
                                .await
                                .map_err(BrowserError::from)
                        })
                    })
                    .await?;
                Ok::<_, CallToolResult>(result)
            }
            .await,
        )
    }

    #[tool(name = "drag_on_coordinates", description = describe::DRAG_XY)]
    async fn drag_on_coordinates(&self, Parameters(args): Parameters<DragArgs>) -> CallToolResult {
        answer(
            async {
                for (n, v) in [
                    ("start_x", args.start_x),
                    ("start_y", args.start_y),
                    ("end_x", args.end_x),
                    ("end_y", args.end_y),
                ] {
                    check_fraction(n, v)?;
                }
                let button = input::button_name(args.button.as_deref())?;
                let hold = args.held().map_err(err)?;
                let (start, end) = ((args.start_x, args.start_y), (args.end_x, args.end_y));
                let result = self
                    .act_on_viewport(move |b, page, (w, h)| {
                        Box::pin(async move {
                            let from = (start.0 * w, start.1 * h);
                            let to = (end.0 * w, end.1 * h);
                            input::drag(b.cdp(), &page, from, to, button, hold)
                                .await
                                .map_err(BrowserError::from)
                        })
                    })
                    .await?;
                Ok::<_, CallToolResult>(result)
            }
            .await,
        )
    }

    #[tool(name = "capture_window_screenshot", description = describe::SHOT, annotations(read_only_hint = true))]
    async fn capture_window_screenshot(
        &self,
        Parameters(args): Parameters<ScreenshotArgs>,
    ) -> CallToolResult {
        answer(
            async {
                let (b, window, page) = self.page().await?;
                let annotated = args.annotated.unwrap_or(false);
                crate::screenshot::capture(b, window, &page, annotated, false).await
            }
            .await,
        )
    }

    #[tool(name = "capture_desktop_screenshot", description = describe::DESKTOP_SHOT, annotations(read_only_hint = true))]
    async fn capture_desktop_screenshot(&self) -> CallToolResult {
        answer(
            async {
                let b = self.browser().await?;
                let (window, page) = b.current_or_only().await?;
                b.ensure_no_dialog(window)?;
                crate::screenshot::capture(b, window, &page, false, true).await
            }
            .await,
        )
    }

    #[tool(name = "set_clipboard", description = deft_protocol::clipboard::SET_DESCRIPTION)]
    async fn set_clipboard(&self, Parameters(args): Parameters<ClipboardArgs>) -> CallToolResult {
        answer(
            async {
                let text = args.checked_text().map_err(err)?;
                self.browser().await?.set_clipboard(text).await?;
                Ok::<_, CallToolResult>(CallToolResult::structured(
                    deft_protocol::clipboard::set_answer(text),
                ))
            }
            .await,
        )
    }

    #[tool(name = "get_clipboard", description = deft_protocol::clipboard::GET_DESCRIPTION, annotations(read_only_hint = true))]
    async fn get_clipboard(&self) -> CallToolResult {
        use deft_protocol::clipboard as shared;
        answer(
            async {
                Ok::<_, BrowserError>(match self.browser().await?.read_clipboard().await? {
                    ClipboardRead::Text(t) => CallToolResult::structured(shared::read_answer(&t)),
                    ClipboardRead::Empty => err(shared::EMPTY),
                    ClipboardRead::NotText(types) => err(shared::not_text(&types)),
                })
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

    #[tool(name = "find_controls", description = describe::FIND, annotations(read_only_hint = true))]
    async fn find_controls(
        &self,
        Parameters(args): Parameters<FindControlsArgs>,
    ) -> CallToolResult {
        answer(
            async {
                let limit = args.limit().map_err(|e| bad_argument(&e))?;
                let format = args.format().map_err(|e| bad_argument(&e))?;
                usable(&args.selector)?;
                let (b, _, _) = self.page().await?;
                let listing = b.match_listing().await?;
                let found = matches(&listing, &args.selector)?;
                Ok::<_, BrowserError>(match format {
                    ListingFormat::Compact => CallToolResult::success(vec![ContentBlock::text(
                        render_found(&listing.window, &args.selector, &found, limit, format),
                    )]),
                    ListingFormat::Json => CallToolResult::structured(render_found_json(
                        &listing.window,
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
                let timeout = args.timeout().map_err(|e| bad_argument(&e))?;
                usable(&args.selector)?;
                let gone = args.gone.unwrap_or(false);
                let (b, _, _) = self.page().await?;
                let t0 = Instant::now();
                let chosen =
                    |l: &Listing| matches(l, &args.selector).is_ok_and(|f| f.chosen.is_some());
                let waited = b
                    .wait_until(|l| chosen(l) != gone, timeout, context.ct.cancelled())
                    .await?;
                let waited_ms = t0.elapsed().as_millis() as u64;
                match waited {
                    Waited::Met(l) => {
                        let found = matches(&l, &args.selector)?;
                        let m = if gone { None } else { found.chosen_match() };
                        let tie = tie_note(&found).filter(|_| !gone);
                        Ok(CallToolResult::structured(wait_result(m, tie, waited_ms)))
                    }
                    Waited::TimedOut(l) => {
                        let found = l.as_ref().map(|l| matches(l, &args.selector)).transpose()?;
                        let still = found
                            .as_ref()
                            .and_then(|f| f.chosen_match())
                            .filter(|_| gone);
                        Err(BrowserError::Model(wait_timeout_text(
                            &args.selector,
                            timeout.as_secs_f64(),
                            still,
                        )))
                    }
                    Waited::Cancelled => Err(BrowserError::Model(texts::WAIT_CANCELLED.into())),
                }
            }
            .await,
        )
    }

    #[tool(name = "summary", description = describe::SUMMARY, annotations(read_only_hint = true))]
    async fn summary(&self, Parameters(args): Parameters<SummaryArgs>) -> CallToolResult {
        CallToolResult::structured(json!({"summary": args.text}))
    }

    #[tool(name = "navigate", description = describe::NAVIGATE)]
    async fn navigate(&self, Parameters(args): Parameters<UrlArgs>) -> CallToolResult {
        self.go(Move::To(args.url.trim())).await
    }

    #[tool(name = "go_back", description = describe::BACK)]
    async fn go_back(&self) -> CallToolResult {
        self.go(Move::History(-1)).await
    }

    #[tool(name = "go_forward", description = describe::FORWARD)]
    async fn go_forward(&self) -> CallToolResult {
        self.go(Move::History(1)).await
    }

    #[tool(name = "reload", description = describe::RELOAD)]
    async fn reload(&self) -> CallToolResult {
        self.go(Move::Reload).await
    }

    #[tool(name = "new_tab", description = describe::NEW_TAB)]
    async fn new_tab(&self, Parameters(args): Parameters<NewTabArgs>) -> CallToolResult {
        answer(
            async {
                let b = self.browser().await?;
                let url = args.url.as_deref().map(str::trim).filter(|u| !u.is_empty());
                let w = b.new_tab(url).await?;
                Ok::<_, BrowserError>(CallToolResult::structured(
                    json!({"root_name": w.app, "window_info": w.to_json()}),
                ))
            }
            .await,
        )
    }

    #[tool(name = "close_tab", description = describe::CLOSE_TAB)]
    async fn close_tab(&self, Parameters(args): Parameters<Target>) -> CallToolResult {
        answer(
            async {
                let (b, id) = self.window_id(&args.id).await?;
                b.close_tab(id).await?;
                let tabs = b.tabs().await?;
                Ok::<_, BrowserError>(CallToolResult::structured(
                    json!({"closed": id.to_string(), "windows": render_window_list(&tabs)}),
                ))
            }
            .await,
        )
    }

    #[tool(name = "get_page_text", description = describe::PAGE_TEXT, annotations(read_only_hint = true))]
    async fn get_page_text(&self, Parameters(args): Parameters<PageTextArgs>) -> CallToolResult {
        answer(
            async {
                let (b, _, page) = self.page().await?;
                let max = args.max_chars.unwrap_or(DEFAULT_PAGE_TEXT_CHARS);
                let text = crate::text::page_text(b, &page).await?;
                let total = text.chars().count();
                let out = if total > max {
                    let mut t: String = text.chars().take(max).collect();
                    t.push_str(&texts::page_text_cut(max, total));
                    t
                } else {
                    text
                };
                Ok::<_, BrowserError>(CallToolResult::success(vec![ContentBlock::text(out)]))
            }
            .await,
        )
    }

    #[tool(name = "handle_dialog", description = describe::DIALOG)]
    async fn handle_dialog(&self, Parameters(args): Parameters<DialogArgs>) -> CallToolResult {
        answer(
            async {
                let b = self.browser().await?;
                let (window, page) = b.current()?;
                let d = b
                    .dialog(window)
                    .ok_or_else(|| BrowserError::Model(texts::NO_DIALOG.into()))?;
                let mut params = json!({"accept": args.accept});
                if let Some(t) = &args.text {
                    params["promptText"] = json!(t);
                }
                let ms = b.answer_dialog(&d, &page, params).await?;
                Ok::<_, BrowserError>(CallToolResult::structured(json!({
                    "handled": d.kind, "message": d.message, "accepted": args.accept,
                    "effect": "changed", "settle_ms": ms,
                })))
            }
            .await,
        )
    }
}

/// Where a navigation tool moves the selected tab.
enum Move<'a> {
    /// To an address (policy-checked).
    To(&'a str),
    /// Back (-1) or forward (+1) in its history.
    History(i64),
    /// The same page again.
    Reload,
}

impl BrowserServer {
    /// The selected tab with no dialog open on it: the browser, the window id, the page session.
    async fn page(&self) -> Result<(&Browser, u64, String), BrowserError> {
        let b = self.browser().await?;
        let (window, page) = b.current()?;
        b.ensure_no_dialog(window)?;
        Ok((b, window, page))
    }

    /// The browser and window id `given`, parsed after the tabs are refreshed from the browser.
    async fn window_id(&self, given: &str) -> Result<(&Browser, u64), BrowserError> {
        let b = self.browser().await?;
        b.tabs().await?;
        let id =
            parse_id(given).ok_or_else(|| BrowserError::Model(texts::bad_id("window", given)))?;
        Ok((b, id))
    }

    /// Moves the selected tab (`m`), waits for the page and reports it.
    async fn go(&self, m: Move<'_>) -> CallToolResult {
        answer(
            async {
                let b = self.browser().await?;
                let ms = match m {
                    Move::To(url) => b.navigate(url).await?,
                    Move::History(delta) => b.history(delta).await?,
                    Move::Reload => b.reload().await?,
                };
                page_result(b, ms).await
            }
            .await,
        )
    }

    /// Runs `act` on the selected tab given its viewport size (CSS pixels), settles, reports.
    async fn act_on_viewport<F>(&self, act: F) -> Result<CallToolResult, BrowserError>
    where
        F: for<'a> FnOnce(
            &'a Browser,
            String,
            (f64, f64),
        )
            -> futures::future::BoxFuture<'a, Result<Dispatched, BrowserError>>,
    {
        let (b, window, page) = self.page().await?;
        let size = viewport(b, &page).await?;
        let before = Before::take(b, window, &page, None).await;
        let d = act(b, page, size).await?;
        Ok(self
            .finish(b, before, d == Dispatched::DialogOpened, None)
            .await)
    }

    /// Resolves a control, validates it, runs `act` at its located point, settles, reports.
    async fn act_on<F>(
        &self,
        id: &str,
        name: Option<&str>,
        need_enabled: bool,
        act: F,
    ) -> Result<CallToolResult, CallToolResult>
    where
        F: for<'a> FnOnce(
            &'a Browser,
            String,
            u64,
            ControlRef,
            crate::browser::Point,
        )
            -> futures::future::BoxFuture<'a, Result<Dispatched, BrowserError>>,
    {
        let (b, window, page) = self.page().await?;
        let (n, c, warning) = b.control(id, name)?;
        let point = b.locate(n, &c, need_enabled).await?;
        let before = Before::take(b, window, &page, Some(&c.session)).await;
        let d = act(b, page.clone(), n, c, point).await?;
        Ok(self
            .finish(b, before, d == Dispatched::DialogOpened, warning)
            .await)
    }

    /// Whether control `id` of the selected tab is a file input (errors: the usual id errors;
    /// a stale element answers `false` and the action reports it).
    async fn file_input(&self, id: &str, name: Option<&str>) -> Result<bool, BrowserError> {
        let (b, _, _) = self.page().await?;
        let (n, c, _) = b.control(id, name)?;
        Ok(b.on_element(
            n,
            &c,
            "return el.tagName === 'INPUT' && (el.type || '').toLowerCase() === 'file';",
        )
        .await
        .is_ok_and(|v| v == Value::Bool(true)))
    }

    /// `set_edit_text` on a file input: puts the files in without a click, so an input the page
    /// hides behind its own button works too; a disabled input is refused.
    async fn set_file_input(&self, args: &SetTextArgs) -> Result<CallToolResult, BrowserError> {
        let b = self.browser().await?;
        let (window, page) = b.current()?;
        let (n, c, warning) = b.control(&args.target.id, args.target.name.as_deref())?;
        if b.on_element(n, &c, "return el.disabled;").await? == Value::Bool(true) {
            return Err(BrowserError::Model(texts::control_disabled(n, &c.name)));
        }
        let before = Before::take(b, window, &page, Some(&c.session)).await;
        b.set_files(n, &c, &args.text).await?;
        Ok(self.finish(b, before, false, warning).await)
    }

    /// Settles and builds an action's result: `{effect, settle_ms, warning?, dialog?, blocked?}`.
    async fn finish(
        &self,
        b: &Browser,
        before: Before,
        dialog_opened: bool,
        warning: Option<String>,
    ) -> CallToolResult {
        let Before {
            window,
            page,
            frame,
            fingerprint,
        } = before;
        if dialog_opened {
            b.dialog_recorded().await;
        }
        let dialog = if dialog_opened {
            b.dialog(window)
        } else {
            None
        };
        let settle_ms = if dialog_opened || dialog.is_some() {
            0
        } else {
            let s0 = Instant::now();
            match &frame {
                Some(f) => {
                    futures::future::join(b.settle(&page), b.settle_frame(f)).await;
                }
                None => {
                    b.settle(&page).await;
                }
            }
            s0.elapsed().as_millis() as u64
        };
        let dialog = dialog.or_else(|| b.dialog(window));
        let changed =
            dialog_opened || dialog.is_some() || b.fingerprint(&page).await != fingerprint;
        let mut out = json!({
            "effect": if changed { "changed" } else { "no_change" },
            "settle_ms": settle_ms,
        });
        if let Some(w) = warning {
            out["warning"] = json!(w);
        }
        add_blocked(b, window, &mut out);
        if let Some(d) = dialog {
            out["dialog"] = dialog_json(&d);
        }
        CallToolResult::structured(out)
    }
}

/// What an action's result is measured against, taken just before its input is sent.
struct Before {
    window: u64,
    page: String,
    /// The cross-origin frame session the action's control lives in, settled with the page.
    frame: Option<String>,
    fingerprint: String,
}

impl Before {
    /// Fingerprints tab `window` (page session `page`); `control_session` is the session of the
    /// control acted on, if any.
    async fn take(b: &Browser, window: u64, page: &str, control_session: Option<&str>) -> Before {
        let frame = control_session.filter(|s| *s != page).map(str::to_owned);
        let armed: Vec<&str> = frame.as_deref().into_iter().collect();
        Before {
            window,
            page: page.to_owned(),
            fingerprint: b.fingerprint_before_action(page, &armed).await,
            frame,
        }
    }
}

/// Adds `file_chooser: {control, name, note}` to an action result when the action opened a
/// file chooser (intercepted, so no dialog hangs); `events` was subscribed before the action.
async fn report_file_chooser(
    b: &Browser,
    events: &mut tokio::sync::broadcast::Receiver<crate::cdp::CdpEvent>,
    result: &mut CallToolResult,
) {
    let Ok((window, _)) = b.current() else { return };
    let mut opened = None;
    loop {
        match events.try_recv() {
            Ok(e) if e.method == "Page.fileChooserOpened" => {
                if let (Some(s), Some(node)) = (e.session, e.params["backendNodeId"].as_i64())
                    && b.session_in_window(&s, window)
                {
                    opened = Some((s, node));
                }
            }
            Ok(_) | Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {}
            Err(_) => break,
        }
    }
    let Some((session, node)) = opened else {
        return;
    };
    let Some(out) = result.structured_content.as_mut() else {
        return;
    };
    match b.control_of_node(window, &session, node).await {
        Ok((id, name)) => {
            out["effect"] = json!("changed");
            out["file_chooser"] = json!({"control": id.to_string(), "name": name,
                "note": texts::file_chooser_opened(id, &name)});
        }
        Err(e) => tracing::warn!("file chooser opened, its input not resolved: {e}"),
    }
}

/// Waits two animation frames after a wheel turn: the compositor scrolls, and the page's
/// scroll position is only current after the next frames.
async fn scrolled(b: &Browser, page: &str, d: Dispatched) {
    if d == Dispatched::Done {
        let _ = b
            .eval(
                page,
                "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
            )
            .await;
    }
}

/// An argument out of range, as the model reads it.
fn bad_argument(problem: &str) -> BrowserError {
    BrowserError::Model(texts::bad_argument(problem))
}

/// Refuses a selector that cannot match anything, with every problem and its path.
fn usable(sel: &Selector) -> Result<(), BrowserError> {
    let problems = sel.problems("selector");
    if problems.is_empty() {
        Ok(())
    } else {
        Err(BrowserError::Model(texts::bad_selector(&problems)))
    }
}

/// The matches of `sel` among a listing's controls (the selector is known to be usable).
fn matches<'a>(listing: &'a Listing, sel: &Selector) -> Result<selector::Found<'a>, BrowserError> {
    selector::find(
        &listing.controls,
        &listing.depths,
        sel,
        &MatchOptions::default(),
    )
    .map_err(|e| BrowserError::Model(texts::bad_selector(&e.0)))
}

fn check_fraction(name: &str, v: f64) -> Result<(), CallToolResult> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(err(texts::bad_fraction(name, v)))
    }
}

async fn viewport(b: &Browser, page: &str) -> Result<(f64, f64), BrowserError> {
    let v = b
        .eval(page, "[window.innerWidth, window.innerHeight]")
        .await?;
    Ok((
        v[0].as_f64().unwrap_or(1280.0),
        v[1].as_f64().unwrap_or(800.0),
    ))
}

/// Adds `blocked: [{url, reason}]` and a note when the page tried to open what the URL policy
/// refuses since the window's last result.
fn add_blocked(b: &Browser, window: u64, out: &mut Value) {
    let blocked = b.take_blocked(window);
    if !blocked.is_empty() {
        out["blocked"] = blocked
            .iter()
            .map(|n| json!({"url": n.url, "reason": n.reason}))
            .collect();
        out["blocked_note"] = json!(texts::NAVIGATION_BLOCKED);
    }
}

/// An open dialog in a structured result: `{type, message, note}`.
fn dialog_json(d: &Dialog) -> Value {
    json!({"type": d.kind, "message": d.message, "note": texts::dialog_open(&d.kind, &d.message)})
}

async fn page_result(b: &Browser, settle_ms: u64) -> Result<CallToolResult, BrowserError> {
    let (window, _) = b.current()?;
    let w = b.window_summary(window).await?;
    // The tab's id and title: its app is root_name, and a tab is always a page.
    let mut out = json!({
        "root_name": w.app, "window_info": {"id": w.id, "name": w.to_json()["name"]},
        "effect": "changed", "settle_ms": settle_ms,
    });
    add_blocked(b, window, &mut out);
    if let Some(d) = b.dialog(window) {
        out["dialog"] = dialog_json(&d);
    }
    Ok(CallToolResult::structured(out))
}

impl BrowserServer {
    /// Tells the model about a dialog open on the selected tab in any result that does not say
    /// so already: dialogs that open between calls (a timer, a late script) are seen at the next
    /// call, whichever tool it is. Structured results get a `dialog` key, texts a last line,
    /// errors a second sentence.
    fn report_dialog(&self, result: &mut CallToolResult) {
        let Some(b) = self.browser.get() else { return };
        let Some(window) = b.selected() else { return };
        let Some(d) = b.dialog(window) else { return };
        let note = texts::dialog_open(&d.kind, &d.message);
        let said = result
            .content
            .iter()
            .any(|c| c.as_text().is_some_and(|t| t.text.contains(&note)))
            || result
                .structured_content
                .as_ref()
                .is_some_and(|v| v.get("dialog").is_some());
        if said {
            return;
        }
        if result.is_error == Some(true) {
            match result.content.iter_mut().find_map(text_mut) {
                Some(t) => *t = format!("{t}\n{note}"),
                None => result.content.push(ContentBlock::text(note)),
            }
            return;
        }
        if let Some(v) = result.structured_content.as_mut()
            && v.is_object()
        {
            v["dialog"] = dialog_json(&d);
            let text = v.to_string();
            match result.content.first_mut().and_then(text_mut) {
                Some(t) => *t = text,
                None => result.content.insert(0, ContentBlock::text(text)),
            }
            return;
        }
        result.content.push(ContentBlock::text(note));
    }
}

/// The text of a text content block, to edit.
fn text_mut(c: &mut ContentBlock) -> Option<&mut String> {
    match c {
        ContentBlock::Text(t) => Some(&mut t.text),
        _ => None,
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for BrowserServer {
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let mut response = self.tool_router.call(tcc).await?;
        if let rmcp::model::CallToolResponse::Complete(result) = &mut response {
            self.report_dialog(result);
        }
        Ok(response)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                texts::SERVER_NAME,
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(texts::INSTRUCTIONS)
    }
}
