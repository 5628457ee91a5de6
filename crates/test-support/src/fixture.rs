//! The fixture MCP server: small tools with known behaviour for testing the tool layer over
//! every transport.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock as Content, MetaObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The fixture's registry name.
pub const NAME: &str = "fixture";

/// A 1×1 transparent PNG, base64.
pub const TINY_PNG_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// Counters shared by the clones of one instance.
#[derive(Debug, Default)]
pub struct FixtureState {
    /// Calls that ran to completion.
    pub completed: AtomicU64,
    /// Calls cancelled by the client (MCP cancellation observed).
    pub cancelled: AtomicU64,
}

/// The fixture server. Each `new()` is one instance with its own id and counters.
#[derive(Clone)]
pub struct FixtureServer {
    tool_router: ToolRouter<Self>,
    instance: String,
    state: Arc<FixtureState>,
    options: serde_json::Value,
}

/// `sleep` arguments.
#[derive(Deserialize, JsonSchema)]
pub struct SleepArgs {
    /// Milliseconds to sleep.
    pub ms: u64,
}

/// `echo` arguments.
#[derive(Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// Text to echo back.
    pub text: String,
}

/// `fail` arguments.
#[derive(Deserialize, JsonSchema)]
pub struct FailArgs {
    /// The error text.
    pub message: String,
}

/// `screenshot` arguments.
#[derive(Deserialize, JsonSchema)]
pub struct ScreenshotArgs {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// `keyboard_input` arguments.
#[derive(Deserialize, JsonSchema)]
pub struct KeysArgs {
    /// The keys, as given.
    pub keys: String,
}

/// `select_application_window` arguments.
#[derive(Deserialize, JsonSchema)]
pub struct SelectArgs {
    /// Window id.
    pub id: String,
    /// Window name; becomes the root name.
    pub name: String,
}

/// `rendezvous` arguments.
#[derive(Deserialize, JsonSchema)]
pub struct RendezvousArgs {
    /// A directory shared by the parties.
    pub dir: String,
    /// How many parties must arrive.
    pub parties: usize,
    /// Give up after this many milliseconds.
    pub timeout_ms: u64,
}

impl Default for FixtureServer {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_router]
impl FixtureServer {
    /// A new instance.
    pub fn new() -> Self {
        FixtureServer {
            tool_router: Self::tool_router(),
            instance: uuid_like(),
            state: Arc::new(FixtureState::default()),
            options: serde_json::Value::Null,
        }
    }

    /// A new instance that remembers the routing-table options it was made from (the
    /// `binding` tool reports them).
    pub fn with_options(options: &serde_json::Value) -> Self {
        FixtureServer {
            options: options.clone(),
            ..Self::new()
        }
    }

    /// This instance's counters.
    pub fn state(&self) -> Arc<FixtureState> {
        self.state.clone()
    }

    /// Does nothing and answers "ok".
    #[tool(description = "Do nothing; answers ok.")]
    async fn noop(&self) -> String {
        "ok".to_owned()
    }

    /// Echoes its text as structured content.
    #[tool(description = "Echo the text back as structured content.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> CallToolResult {
        CallToolResult::structured(json!({ "text": text }))
    }

    /// Sleeps asynchronously; counts a cancellation when the client cancels.
    #[tool(description = "Sleep for ms milliseconds.", meta = MetaObject(json!({"deft/timeout_secs": 300}).as_object().cloned().unwrap_or_default()))]
    async fn sleep(
        &self,
        Parameters(SleepArgs { ms }): Parameters<SleepArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> String {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(ms)) => {
                self.state.completed.fetch_add(1, Ordering::SeqCst);
                format!("slept {ms} ms")
            }
            _ = ctx.ct.cancelled() => {
                self.state.cancelled.fetch_add(1, Ordering::SeqCst);
                "cancelled".to_owned()
            }
        }
    }

    /// Sleeps on a blocking thread (a tool that blocks, like UI automation calls).
    #[tool(description = "Block a worker thread for ms milliseconds.")]
    async fn block(&self, Parameters(SleepArgs { ms }): Parameters<SleepArgs>) -> String {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(Duration::from_millis(ms)))
            .await;
        format!("blocked {ms} ms")
    }

    /// Panics inside the tool (a buggy tool server).
    #[tool(description = "Panic inside the tool.")]
    async fn panic(&self) -> String {
        panic!("the fixture tool panicked on purpose")
    }

    /// Reports a tool error with the given text.
    #[tool(description = "Fail with the given message.")]
    async fn fail(&self, Parameters(FailArgs { message }): Parameters<FailArgs>) -> CallToolResult {
        CallToolResult::error(vec![Content::text(message)])
    }

    /// Returns a text and a tiny PNG image.
    #[tool(description = "Return a tiny PNG image.")]
    async fn image(&self) -> CallToolResult {
        CallToolResult::success(vec![
            Content::text("an image"),
            Content::image(TINY_PNG_B64, "image/png"),
        ])
    }

    /// A screen-like PNG of the given size (gradients, text-like stripes), for image paths.
    #[tool(description = "Return a screen-like PNG of width × height pixels.")]
    async fn screenshot(
        &self,
        Parameters(ScreenshotArgs { width, height }): Parameters<ScreenshotArgs>,
    ) -> CallToolResult {
        let (w, h) = (width.clamp(1, 4096), height.clamp(1, 4096));
        let png = tokio::task::spawn_blocking(move || screen_png(w, h))
            .await
            .unwrap_or_default();
        use base64::Engine as _;
        CallToolResult::success(vec![
            Content::text(format!("{w}x{h} screenshot")),
            Content::image(
                base64::engine::general_purpose::STANDARD.encode(png),
                "image/png",
            ),
        ])
    }

    /// Answers like a device's `capture_desktop_screenshot`: a small screen-like PNG, so the
    /// task runner's screenshots of failed steps can be followed through the real tool layer.
    #[tool(description = "Return a 64 × 48 screen-like PNG, as a desktop screenshot.")]
    async fn capture_desktop_screenshot(&self) -> CallToolResult {
        self.screenshot(Parameters(ScreenshotArgs {
            width: 64,
            height: 48,
        }))
        .await
    }

    /// This process's id.
    #[tool(description = "Return the server's process id.")]
    async fn pid(&self) -> CallToolResult {
        CallToolResult::structured(json!({ "pid": std::process::id() }))
    }

    /// This instance's id (tells shared instances from fresh ones).
    #[tool(description = "Return this server instance's id.")]
    async fn instance(&self) -> CallToolResult {
        CallToolResult::structured(json!({ "instance": self.instance }))
    }

    /// What this instance was bound to: `binding` of its options (builtin) and `DEFT_PROCESS` /
    /// `DEFT_ROOT` of its environment (stdio child).
    #[tool(description = "Return the binding this instance was made with.")]
    async fn binding(&self) -> CallToolResult {
        CallToolResult::structured(json!({
            "options": self.options.get("binding"),
            "env": {
                "process": std::env::var("DEFT_PROCESS").ok(),
                "root": std::env::var("DEFT_ROOT").ok(),
            },
        }))
    }

    /// Answers like a desktop's window selection: `{root_name, window_info}` (root = `name`), so
    /// host → app hand-off can be tested through the real tool layer.
    #[tool(description = "Select a window; its name becomes the root name.")]
    async fn select_application_window(
        &self,
        Parameters(SelectArgs { id, name }): Parameters<SelectArgs>,
    ) -> CallToolResult {
        CallToolResult::structured(json!({
            "root_name": name,
            "window_info": {"id": id, "name": format!("{name} window")},
        }))
    }

    /// Answers like a device's `keyboard_input` without a device: `{keys}` back, so the task
    /// runner's flow (and its overhead per step) can be measured through the real tool layer.
    #[tool(description = "Take keys and answer them back.")]
    async fn keyboard_input(
        &self,
        Parameters(KeysArgs { keys }): Parameters<KeysArgs>,
    ) -> CallToolResult {
        CallToolResult::structured(json!({ "keys": keys }))
    }

    /// Waits until `parties` callers have arrived in `dir` (works across processes).
    #[tool(description = "Wait until `parties` callers arrive in `dir`.")]
    async fn rendezvous(
        &self,
        Parameters(RendezvousArgs {
            dir,
            parties,
            timeout_ms,
        }): Parameters<RendezvousArgs>,
    ) -> CallToolResult {
        let dir = std::path::PathBuf::from(dir);
        let me = dir.join(format!("{}-{}", std::process::id(), uuid_like()));
        if let Err(e) = tokio::fs::write(&me, b"").await {
            return CallToolResult::error(vec![Content::text(format!("rendezvous: {e}"))]);
        }
        let until = tokio::time::Instant::now() + Duration::from_millis(timeout_ms);
        loop {
            let arrived = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
            if arrived >= parties {
                return CallToolResult::structured(json!({ "arrived": arrived }));
            }
            if tokio::time::Instant::now() >= until {
                return CallToolResult::error(vec![Content::text(format!(
                    "rendezvous: only {arrived} of {parties} parties arrived"
                ))]);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FixtureServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A PNG that compresses like a real screen: flat panels, gradients and stripes of "text".
pub fn screen_png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let panel = (x / 160 + y / 120) % 3;
        let text = (y % 18 < 10) && (x % 7 < 5) && ((x / 40 + y / 18) % 4 != 0);
        match (panel, text) {
            (_, true) => image::Rgb([30, 30, 40]),
            (0, _) => image::Rgb([245, 246, 248]),
            (1, _) => image::Rgb([(200 + x % 50) as u8, 220, (230 - y % 30) as u8]),
            _ => image::Rgb([255, 255, 255]),
        }
    });
    let mut out = Vec::new();
    let _ = image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png);
    out
}

fn uuid_like() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{t:x}-{n}")
}
