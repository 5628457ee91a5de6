//! Browser tool figures (issue #4), measured through the MCP tools on a real headless Chromium:
//! browser start to first page, the 200-row table page's control listing, click + settle on a
//! static page, a viewport screenshot, tokens per interactive control on the table page;
//! (issue #15) find_controls on the table page (the whole tool, and the matcher alone) and how
//! soon wait_for_control answers after the page inserts the control it waits for; then issue
//! 14's: tokens of the script-clickable pages, settle of the timer pages' actions and what the
//! page hooks cost per call.
//!
//! Run: `cargo bench -p deft-backend-browser --bench browser` (prints p50 and p90 of each).

// A bench reports its figures on stdout; the workspace denies printing to library code only.
#![allow(clippy::print_stdout, clippy::print_stderr)]

// The in-process server and client the test suites use.
#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::Client;
use deft_backend_browser::{BrowserConfig, BrowserServer};
use deft_test_support::web::PageServer;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};

const ROUNDS: usize = 30;

async fn connect() -> (BrowserServer, Client) {
    common::connect(BrowserConfig::default()).await
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("object arguments")
    };
    let r = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .expect("tool answers");
    assert_eq!(r.is_error, Some(false), "{tool} failed: {r:?}");
    r
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn id_of(listing: &str, needle: &str) -> String {
    listing
        .lines()
        .find(|l| l.contains(needle))
        .and_then(|l| l.trim_start_matches('*').split(' ').next())
        .unwrap_or_else(|| panic!("{needle} not listed"))
        .to_owned()
}

fn report(label: &str, mut samples: Vec<Duration>, target: &str) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p50 = samples[samples.len() / 2];
    let p90 = samples[(samples.len() * 9 / 10).min(samples.len() - 1)];
    println!(
        "{label:<40} p50 {:>8.2} ms   p90 {:>8.2} ms   (n={}, target {target})",
        ms(p50),
        ms(p90),
        samples.len()
    );
}

async fn open(client: &Client, url: &str) {
    let tabs = call(
        client,
        "get_desktop_app_info",
        json!({"remove_empty": false}),
    )
    .await;
    let id = tabs.structured_content.as_ref().expect("windows")["windows"][0]["id"].clone();
    call(client, "select_application_window", json!({"id": id})).await;
    call(client, "navigate", json!({"url": url})).await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let pages = PageServer::start().await.expect("page server");

    // Start to first page: a fresh browser each time.
    let mut starts = Vec::new();
    for _ in 0..5 {
        let t0 = Instant::now();
        let (server, client) = connect().await;
        open(&client, &pages.url("form.html")).await;
        starts.push(t0.elapsed());
        let _ = client.cancel().await;
        if let Ok(b) = server.browser().await {
            b.stop().await;
        }
    }

    let (server, client) = connect().await;
    open(&client, &pages.url("table.html")).await;
    let mut listing = String::new();
    let mut lists = Vec::new();
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        let r = call(&client, "get_app_window_controls_info", json!({})).await;
        lists.push(t0.elapsed());
        listing = text(&r);
    }
    let bpe = tiktoken_rs::cl100k_base().expect("cl100k");
    let tokens = bpe.encode_with_special_tokens(&listing).len();
    let interactive: usize = listing
        .lines()
        .next()
        .and_then(|h| h.split(" interactive=").nth(1))
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);

    // Click + settle on a static page: toggle a checkbox.
    call(&client, "navigate", json!({"url": pages.url("form.html")})).await;
    let form = text(&call(&client, "get_app_window_controls_info", json!({})).await);
    let agree = id_of(&form, "checkbox \"I agree\"");
    let mut clicks = Vec::new();
    let mut settles = Vec::new();
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        let r = call(
            &client,
            "click_input",
            json!({"id": agree, "name": "I agree"}),
        )
        .await;
        clicks.push(t0.elapsed());
        let s = r.structured_content.as_ref().expect("result")["settle_ms"]
            .as_u64()
            .unwrap_or(0);
        settles.push(Duration::from_millis(s));
    }

    let mut shots = Vec::new();
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        call(&client, "capture_window_screenshot", json!({})).await;
        shots.push(t0.elapsed());
    }

    let (finds, fuzzy_finds, matcher) = find_figures(&client, &pages).await;
    let (wait_latency, waits) = wait_figures(&client, &pages).await;

    println!("deft browser tools (Chromium headless, through MCP in-process)");
    report("browser start to first page", starts, "≤ 1500 ms");
    report("control list, 200-row table page", lists, "≤ 100 ms");
    report("click + settle, static page", clicks, "≤ 50 ms");
    report("  of which settle", settles, "—");
    report("viewport screenshot", shots, "≤ 60 ms");
    println!(
        "tokens, 200-row table listing            {tokens} cl100k for {interactive} interactive controls = {:.2} per control (target ≤ 12)",
        tokens as f64 / interactive as f64
    );
    report("find_controls, table page (exact)", finds, "—");
    report("find_controls, table page (fuzzy)", fuzzy_finds, "—");
    report("  matcher alone, 806 controls (fuzzy)", matcher, "≤ 2 ms");
    report(
        "wait_for_control: insertion to answer",
        wait_latency,
        "≤ 30 ms",
    );
    report("  whole call (page delay 1200 ms)", waits, "—");
    script_pages(&client, &pages).await;
    let _ = client.cancel().await;
    if let Ok(b) = server.browser().await {
        b.stop().await;
    }
}

/// find_controls on the 200-row table page, exact and fuzzy (the whole tool: listing and
/// matching), and the matcher alone on that page's controls.
async fn find_figures(
    client: &Client,
    pages: &PageServer,
) -> (Vec<Duration>, Vec<Duration>, Vec<Duration>) {
    use deft_protocol::observation::Control;
    use deft_protocol::selector::{MatchOptions, Selector, find};
    call(client, "navigate", json!({"url": pages.url("table.html")})).await;
    let mut exact = Vec::new();
    let mut fuzzy = Vec::new();
    let exact_sel = json!({"text": "Edit 150", "type": "button", "match": "exact"});
    let fuzzy_sel = json!({"text": "Edit 15O", "type": "button", "match": "fuzzy"});
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        call(client, "find_controls", json!({"selector": exact_sel})).await;
        exact.push(t0.elapsed());
        let t0 = Instant::now();
        call(client, "find_controls", json!({"selector": fuzzy_sel})).await;
        fuzzy.push(t0.elapsed());
    }
    let r = call(
        client,
        "get_app_window_controls_info",
        json!({"format": "json", "max_controls": 5000}),
    )
    .await;
    let listing = r.structured_content.expect("JSON listing");
    let controls: Vec<Control> =
        serde_json::from_value(listing["controls"].clone()).expect("controls");
    let depths = vec![0; controls.len()];
    let sel: Selector = serde_json::from_value(fuzzy_sel).expect("selector");
    let mut matcher = Vec::new();
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        let found = find(&controls, &depths, &sel, &MatchOptions::default()).expect("usable");
        matcher.push(t0.elapsed());
        assert!(found.chosen().is_some());
    }
    (exact, fuzzy, matcher)
}

/// wait_for_control on a button the page inserts 1200 ms after a click (longer than an
/// action's settle waits for): from the insertion (the page's clock, epoch milliseconds) to the
/// answer reaching the client, and the whole call.
async fn wait_figures(client: &Client, pages: &PageServer) -> (Vec<Duration>, Vec<Duration>) {
    let mut latency = Vec::new();
    let mut whole = Vec::new();
    for _ in 0..10 {
        call(
            client,
            "navigate",
            json!({"url": pages.url("appear.html?ms=1200")}),
        )
        .await;
        let listing = text(&call(client, "get_app_window_controls_info", json!({})).await);
        let show = id_of(&listing, "button \"Show the button later\"");
        call(client, "click_input", json!({"id": show})).await;
        let t0 = Instant::now();
        let r = call(
            client,
            "wait_for_control",
            json!({"selector": {"text": "Appeared", "type": "button"}, "timeout_s": 30}),
        )
        .await;
        let answered = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock after 1970")
            .as_secs_f64()
            * 1000.0;
        whole.push(t0.elapsed());
        assert_eq!(r.structured_content.expect("answer")["appeared"], true);
        let page = text(&call(client, "get_page_text", json!({})).await);
        let inserted: f64 = page
            .split("inserted at ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("the page says when it inserted the button");
        latency.push(Duration::from_secs_f64(
            ((answered - inserted) / 1000.0).max(0.0),
        ));
    }
    (latency, whole)
}

/// Issue 14's figures: the listing tokens of each script-clickable page, the settle of each
/// timer page's action with whether the next listing shows its outcome, and what the page hooks
/// cost per call.
async fn script_pages(client: &Client, pages: &PageServer) {
    let listing = |page: &'static str| async move {
        call(client, "navigate", json!({"url": pages.url(page)})).await;
        text(&call(client, "get_app_window_controls_info", json!({})).await)
    };
    println!("\nscript-only clickables: default listing of each page");
    for page in [
        "clickable_prose.html",
        "tab_words.html",
        "react_like.html",
        "cards.html",
        "onclick.html",
    ] {
        let l = listing(page).await;
        let buttons = l.lines().filter(|x| x.contains(" button ")).count();
        println!(
            "  {page:<24} {:>4} cl100k tokens, {:>2} lines, {buttons} buttons",
            common::tokens(&l),
            l.lines().count()
        );
    }
    println!(
        "\ntimer-driven pages: settle_ms of the action (5 rounds), outcome in the next listing"
    );
    let tasks: [(&str, &str, &str, Value, &str); 4] = [
        (
            "autocomplete.html",
            "set_edit_text",
            "combobox \"City\"",
            json!({"name": "City", "text": "Ber"}),
            " listitem \"Berlin\"",
        ),
        (
            "timed_panel.html",
            "click_input",
            "button \"Show details\"",
            json!({"name": "Show details"}),
            " button \"Confirm order\"\n",
        ),
        (
            "clock.html",
            "click_input",
            "button \"Save layout\"",
            json!({"name": "Save layout"}),
            " text \"Layout saved.\"",
        ),
        (
            "clock.html",
            "click_input",
            "button \"Watch prices\"",
            json!({"name": "Watch prices"}),
            " text \"Watching prices.\"",
        ),
    ];
    for (page, tool, control, mut args, outcome) in tasks {
        let mut settles = Vec::new();
        let mut seen = 0;
        for _ in 0..5 {
            let l = listing(page).await;
            args["id"] = json!(id_of(&l, control));
            let r = call(client, tool, args.clone()).await;
            let ms = r.structured_content.as_ref().expect("result")["settle_ms"]
                .as_u64()
                .unwrap_or(0);
            settles.push(ms);
            let after = text(&call(client, "get_app_window_controls_info", json!({})).await);
            seen += usize::from(after.contains(outcome));
        }
        settles.sort_unstable();
        println!("  {page:<18} {control:<24} settle_ms {settles:?}, outcome listed {seen}/5");
    }
    call(
        client,
        "navigate",
        json!({"url": pages.url("listener_cost.html")}),
    )
    .await;
    let cost = text(&call(client, "get_page_text", json!({})).await);
    let cost = cost
        .lines()
        .find(|l| l.contains(" ns"))
        .unwrap_or("not measured");
    println!("\npage hooks, per add+remove (or set+clear) pair: {cost}");
}
