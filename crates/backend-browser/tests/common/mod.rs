//! Helpers shared by the browser suites: a page server, a real headless Chromium behind the
//! browser tool server, and an in-process MCP client that drives it only through the tools.

#![allow(dead_code)] // each suite uses a different part

use std::time::Duration;

use deft_backend_browser::{BrowserConfig, BrowserServer};
use deft_test_support::web::PageServer;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

pub type Client = RunningService<RoleClient, ()>;

/// A page server, a browser tool server and a client connected to it.
pub struct Harness {
    pub pages: PageServer,
    pub server: BrowserServer,
    pub client: Client,
}

/// Fails with what to install when Chromium is missing (tests never skip).
pub fn require_chromium() {
    if let Err(e) = deft_backend_browser::launch::find_chromium(None) {
        panic!("{e} (scripts/test.sh installs it)");
    }
}

/// The cl100k tokens of `text` (what a listing costs the model).
pub fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .expect("cl100k tables ship with tiktoken-rs")
        .encode_with_special_tokens(text)
        .len()
}

/// A browser tool server for `config`, served in-process, and a client connected to it.
pub async fn connect(config: BrowserConfig) -> (BrowserServer, Client) {
    let server = BrowserServer::new(config);
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let s = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = s.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("client connects");
    (server, client)
}

impl Harness {
    /// Starts everything with default options.
    pub async fn start() -> Self {
        Self::with_options(json!({})).await
    }

    /// Starts everything with routing-table `options` for the browser server.
    pub async fn with_options(options: Value) -> Self {
        require_chromium();
        let pages = PageServer::start().await.expect("page server starts");
        let config = BrowserConfig::from_options(&options).expect("valid options");
        let (server, client) = connect(config).await;
        Harness {
            pages,
            server,
            client,
        }
    }

    /// Calls a tool.
    pub async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
            .await
            .unwrap_or_else(|e| panic!("{tool} answers: {e}"))
    }

    /// Calls a tool that must succeed; its structured content (or `null`).
    pub async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let r = self.call(tool, arguments.clone()).await;
        assert_eq!(
            r.is_error,
            Some(false),
            "{tool}({arguments}) failed: {}",
            all_text(&r)
        );
        r.structured_content.clone().unwrap_or(Value::Null)
    }

    /// Calls a tool that must fail; its error text.
    pub async fn fails(&self, tool: &str, arguments: Value) -> String {
        let r = self.call(tool, arguments.clone()).await;
        assert_eq!(
            r.is_error,
            Some(true),
            "{tool}({arguments}) should fail: {r:?}"
        );
        all_text(&r)
    }

    /// Selects the only tab and opens `page` (a fixture file name) in it.
    pub async fn open(&self, page: &str) -> Value {
        self.open_url(&self.pages.url(page)).await
    }

    /// Selects the first tab and opens `url` in it.
    pub async fn open_url(&self, url: &str) -> Value {
        let tabs = self
            .ok("get_desktop_app_info", json!({"remove_empty": false}))
            .await;
        let first = tabs["windows"][0]["id"].clone();
        self.ok("select_application_window", json!({"id": first}))
            .await;
        self.ok("navigate", json!({"url": url})).await
    }

    /// The compact listing text.
    pub async fn listing(&self, args: Value) -> String {
        let r = self.call("get_app_window_controls_info", args).await;
        assert_eq!(r.is_error, Some(false), "listing failed: {}", all_text(&r));
        r.content[0].as_text().expect("text").text.clone()
    }

    /// The id of the first listed control of `kind` named `name` in `listing`.
    pub fn id_of(listing: &str, kind: &str, name: &str) -> String {
        let needle = format!(
            " {kind} {}",
            serde_json::to_string(name).unwrap_or_default()
        );
        listing
            .lines()
            .find(|l| {
                let l = l.trim_start_matches('*');
                l.split_once(' ')
                    .is_some_and(|(_, rest)| format!(" {rest}").starts_with(&needle))
            })
            .and_then(|l| l.trim_start_matches('*').split(' ').next())
            .unwrap_or_else(|| panic!("no {kind} \"{name}\" in:\n{listing}"))
            .to_owned()
    }

    /// The page's text.
    pub async fn page_text(&self) -> String {
        let r = self
            .call("get_page_text", json!({"max_chars": 100000}))
            .await;
        assert_eq!(
            r.is_error,
            Some(false),
            "get_page_text failed: {}",
            all_text(&r)
        );
        all_text(&r)
    }

    /// The page's text once it contains `needle` (asked again until it does, for at most 20 s).
    pub async fn page_text_with(&self, needle: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let text = self.page_text().await;
            if text.contains(needle) {
                return text;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the page never said {needle:?}: {text}"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The browser's process group (the test checks it is gone afterwards).
    pub async fn browser_group(&self) -> i32 {
        self.server
            .browser()
            .await
            .expect("browser running")
            .process_group()
            .expect("a started browser")
    }

    /// Closes the client and the server; returns whether the browser's process group is gone.
    pub async fn shutdown(self) -> bool {
        let pgid = self.browser_group().await;
        let Harness {
            pages,
            server,
            client,
        } = self;
        let _ = client.cancel().await;
        drop(server);
        drop(pages);
        // The server task ends when the client goes; the last clone stops the browser.
        tokio::task::spawn_blocking(move || {
            deft_test_support::proc::wait_group_gone(pgid, Duration::from_secs(10))
        })
        .await
        .unwrap_or(false)
    }
}

/// All text blocks of a result, joined by newlines.
pub fn all_text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}
