//! What the URL policy costs (issue 32): navigating to a page with 24 subresources, to a page
//! with a cross-site frame, and listing the 200-row table page, each without a domain policy
//! and with one (`allowed_domains` and `blocked_domains` set, so the policy checks requests).
//!
//! Run: `cargo bench -p deft-backend-browser --bench policy` (prints p50 and p90 of each).

// A bench reports its figures on stdout; the workspace denies printing to library code only.
#![allow(clippy::print_stdout, clippy::print_stderr)]

// The in-process server and client the test suites use.
#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::Client;
use deft_backend_browser::BrowserConfig;
use deft_test_support::web::PageServer;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

const ROUNDS: usize = 30;

async fn call(client: &Client, tool: &str, args: Value) -> Value {
    let Value::Object(args) = args else {
        panic!("object arguments")
    };
    let r = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .expect("tool answers");
    assert_eq!(r.is_error, Some(false), "{tool} failed: {r:?}");
    r.structured_content.unwrap_or(Value::Null)
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p50 = samples[samples.len() / 2];
    let p90 = samples[(samples.len() * 9 / 10).min(samples.len() - 1)];
    println!(
        "  {label:<34} p50 {:>8.2} ms   p90 {:>8.2} ms   (n={})",
        ms(p50),
        ms(p90),
        samples.len()
    );
}

/// `ROUNDS` timed calls of `tool(args)`.
async fn timed(client: &Client, tool: &str, args: &Value) -> Vec<Duration> {
    let mut samples = Vec::new();
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        call(client, tool, args.clone()).await;
        samples.push(t0.elapsed());
    }
    samples
}

/// The figures of one browser started with `options`.
async fn figures(pages: &PageServer, label: &str, options: Value) {
    let config = BrowserConfig::from_options(&options).expect("valid options");
    let (server, client) = common::connect(config).await;
    let tabs = call(&client, "get_desktop_app_info", json!({})).await;
    call(
        &client,
        "select_application_window",
        json!({"id": tabs["windows"][0]["id"]}),
    )
    .await;
    println!("{label}");
    let to = |page: &str| json!({"url": pages.url(page)});
    report(
        "navigate, 24 subresources",
        timed(&client, "navigate", &to("subresources.html")).await,
    );
    report(
        "navigate, cross-site frame",
        timed(&client, "navigate", &to("frames.html")).await,
    );
    call(&client, "navigate", to("table.html")).await;
    report(
        "control list, 200-row table page",
        timed(&client, "get_app_window_controls_info", &json!({})).await,
    );
    let _ = client.cancel().await;
    if let Ok(b) = server.browser().await {
        b.stop().await;
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    common::require_chromium();
    let pages = PageServer::start().await.expect("page server");
    println!("the URL policy's cost (Chromium headless, through MCP in-process)");
    figures(&pages, "no domain policy", json!({})).await;
    figures(
        &pages,
        "allowed_domains [127.0.0.1, localhost], blocked_domains [ads.test]",
        json!({"allowed_domains": ["127.0.0.1", "localhost"], "blocked_domains": ["ads.test"]}),
    )
    .await;
}
