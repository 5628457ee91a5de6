//! Tokens per task (issue 14 §4): the fixture tasks done through deft's browser tools and through
//! Playwright MCP on the same pages and the same Chromium program, each with a scripted policy the
//! way a careful model works. Prints, per task, the tool calls, the cl100k tokens of every tool
//! answer the model would read, and the wall time, for both; a task that fails on a side is
//! printed as lost, with why. Nothing is asserted: a bench prints.
//!
//! deft's policy: list the page once, act by id, and after an action observe with
//! `changes: true` (the change listing) rather than listing everything again. Playwright MCP's:
//! navigate, `browser_snapshot`, act by ref (or by a text selector where the snapshot gives the
//! target no ref), `browser_snapshot` after each action (its action answers link the snapshot as a
//! file), and `browser_wait_for` a second when the snapshot does not show the result yet.
//! Each side's outcome is then checked on the page with a call that is not counted.
//!
//! Install Playwright MCP once (no browser download; it attaches over CDP to deft's Chromium):
//! `cd benches/playwright-mcp && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci`
//! Run: `cargo bench -p deft-backend-browser --bench tokens_vs_playwright`

// A bench reports its figures on stdout; the workspace denies printing to library code only.
#![allow(clippy::print_stdout, clippy::print_stderr)]

// The in-process server and client the test suites use.
#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::Client;
use deft_backend_browser::BrowserConfig;
use deft_backend_browser::launch::{ChromiumProcess, find_chromium};
use deft_test_support::web::PageServer;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// The fixture tasks: name, page, and the text the page shows once the task is done.
const TASKS: &[(&str, &str, &str)] = &[
    (
        "prose: click a word in a paragraph",
        "clickable_prose.html",
        "You chose: cancel the delivery.",
    ),
    (
        "tabs: open a tab, click a word in it",
        "tab_words.html",
        "Your orders: 3 items can go back.",
    ),
    (
        "react: add pears, remove bread",
        "react_like.html",
        "Bread removed.",
    ),
    (
        "cards: put a card in the basket",
        "cards.html",
        "In your basket: Summit GTX.",
    ),
    (
        "autocomplete: type, pick Bern",
        "autocomplete.html",
        "Trip to Bern.",
    ),
    (
        "timed panel: show, confirm",
        "timed_panel.html",
        "Order confirmed.",
    ),
    ("clock: save the layout", "clock.html", "Layout saved."),
    (
        "menu: open, choose Apples",
        "menu_list.html",
        "chosen: Apples",
    ),
    (
        "virtual list: open item 1500",
        "virtual_list.html",
        "opened: Item 1500",
    ),
    (
        "form: fill and submit",
        "form.html",
        "Hello, Ada (Green, large, agreed)",
    ),
];

/// What a task spent on one side.
#[derive(Default, Clone, Copy)]
struct Spent {
    calls: usize,
    tokens: usize,
    wall: Duration,
}

/// One MCP client (deft in-process, or Playwright MCP over stdio) that counts what the model
/// would pay: every tool call, and the cl100k tokens of every answer's text.
struct Side {
    client: Client,
    bpe: tiktoken_rs::CoreBPE,
    spent: Spent,
}

impl Side {
    fn new(client: Client) -> Self {
        Side {
            client,
            bpe: tiktoken_rs::cl100k_base().expect("cl100k tables ship with tiktoken-rs"),
            spent: Spent::default(),
        }
    }

    /// Calls `tool` without counting it: the answer's text, or why it failed.
    async fn peek(&self, tool: &str, args: Value) -> Result<String, String> {
        let Value::Object(args) = args else {
            return Err(format!("{tool}: arguments must be an object"));
        };
        let r = self
            .client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
            .await
            .map_err(|e| format!("{tool} did not answer: {e}"))?;
        let text = common::all_text(&r);
        if r.is_error == Some(true) {
            return Err(format!("{tool} failed: {}", first_line(&text)));
        }
        Ok(text)
    }

    /// Calls `tool` as the model would, counting the call and its answer's tokens (an error's
    /// text costs tokens too).
    /// With `DEFT_BENCH_TRACE` set, each answer goes to stderr with its tokens.
    async fn call(&mut self, tool: &str, args: Value) -> Result<String, String> {
        self.spent.calls += 1;
        let r = self.peek(tool, args).await;
        let text = match &r {
            Ok(t) | Err(t) => t,
        };
        let n = self.bpe.encode_with_special_tokens(text).len();
        self.spent.tokens += n;
        if std::env::var_os("DEFT_BENCH_TRACE").is_some() {
            eprintln!("--- {tool}: {n} tokens\n{text}");
        }
        r
    }
}

/// The first line of `text` (for a short reason).
fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with("###"))
        .unwrap_or(text)
}

/// Fails with `why` unless `text` contains `needle`.
fn expect_in(text: &str, needle: &str, why: &str) -> Result<(), String> {
    if text.contains(needle) {
        Ok(())
    } else {
        Err(format!("{why}: no {needle:?} seen"))
    }
}

// ---------------------------------------------------------------------------------------------
// deft: the policies.

/// The id of the first listing line (whole or change listing, not a gone line) whose
/// `type "name` starts with `kind "name` (a prefix of the name; end it with `"` for all of it).
fn deft_id(listing: &str, kind: &str, name: &str) -> Result<String, String> {
    let needle = format!("{kind} \"{name}");
    listing
        .lines()
        .filter(|l| !l.starts_with('-'))
        .map(|l| l.trim_start_matches(['*', '~']))
        .find_map(|l| {
            let (id, rest) = l.split_once(' ')?;
            rest.starts_with(&needle).then(|| id.to_owned())
        })
        .ok_or_else(|| format!("no {kind} \"{name} listed"))
}

/// deft's session: the tool server, its client, and the tab selected once.
async fn deft_session() -> Result<Side, String> {
    let (_server, client) = common::connect(BrowserConfig::default()).await;
    let side = Side::new(client);
    let tabs = side
        .client
        .call_tool(
            CallToolRequestParams::new("get_desktop_app_info").with_arguments(
                json!({"remove_empty": false})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        )
        .await
        .map_err(|e| format!("get_desktop_app_info: {e}"))?;
    let first = tabs.structured_content.unwrap_or_default()["windows"][0]["id"].clone();
    side.peek("select_application_window", json!({"id": first}))
        .await?;
    Ok(side)
}

/// Acts, then observes what changed; the change listing, which must show `until` (or the
/// policy looks again, up to three times, as a model would).
async fn deft_act(s: &mut Side, tool: &str, args: Value, until: &str) -> Result<String, String> {
    s.call(tool, args).await?;
    let mut seen = String::new();
    for _ in 0..3 {
        let l = s
            .call("get_app_window_controls_info", json!({"changes": true}))
            .await?;
        seen.push_str(&l);
        if seen.contains(until) {
            return Ok(seen);
        }
    }
    Err(format!("after {tool}: no {until:?} seen"))
}

/// Clicks control `kind "name` of `listing` and observes until `until` shows.
async fn deft_click(
    s: &mut Side,
    listing: &str,
    kind: &str,
    name: &str,
    until: &str,
) -> Result<String, String> {
    let id = deft_id(listing, kind, name)?;
    deft_act(s, "click_input", json!({"id": id}), until).await
}

/// The `Item N` rows of a listing (listed as buttons or list items; gone lines left out): (N, id).
fn deft_rows(listing: &str) -> Vec<(u32, String)> {
    listing
        .lines()
        .filter(|l| !l.starts_with('-'))
        .filter_map(|l| {
            let l = l.trim_start_matches(['*', '~']);
            let (id, rest) = l.split_once(' ')?;
            let (_, name) = rest.split_once(" \"Item ")?;
            let n = name.strip_suffix('"')?;
            Some((n.parse().ok()?, id.to_owned()))
        })
        .collect()
}

/// The middle item number of the rows.
fn middle(rows: &[(u32, String)]) -> Option<f64> {
    Some(f64::from(rows.first()?.0 + rows.last()?.0) / 2.0)
}

/// The virtual list: turn the wheel a little, see how far it moved, aim at item 1500, click.
async fn deft_virtual(s: &mut Side, first: &str) -> Result<(), String> {
    let viewport = deft_id(first, "other", "Messages\"")?;
    let wheel = |d: i64| json!({"id": viewport, "wheel_dist": d});
    let start = middle(&deft_rows(first)).ok_or("no rows listed")?;
    let mut seen = deft_act(s, "wheel_mouse_input", wheel(-10), " \"Item ").await?;
    let per_notch = (middle(&deft_rows(&seen)).ok_or("no rows after the wheel")? - start) / 10.0;
    if per_notch <= 0.0 {
        return Err("the wheel did not scroll the list".into());
    }
    for _ in 0..8 {
        let rows = deft_rows(&seen);
        if let Some((_, id)) = rows.iter().find(|(n, _)| *n == 1500) {
            deft_act(s, "click_input", json!({"id": id}), "opened: Item 1500").await?;
            return Ok(());
        }
        let mid = middle(&rows).ok_or("no rows listed")?;
        let notches = ((1500.0 - mid) / per_notch).round() as i64;
        seen = deft_act(
            s,
            "wheel_mouse_input",
            wheel(-notches.clamp(-1000, 1000)),
            " \"Item ",
        )
        .await?;
    }
    Err("item 1500 not reached in 8 turns of the wheel".into())
}

/// The form: type the name, choose the colour, tick, pick the size, submit; look once at the end.
async fn deft_form(s: &mut Side, l: &str) -> Result<(), String> {
    let name = deft_id(l, "edit", "Name\"")?;
    s.call("set_edit_text", json!({"id": name, "text": "Ada"}))
        .await?;
    let color = deft_id(l, "combobox", "Color\"")?;
    s.call("select_option", json!({"id": color, "option": "Green"}))
        .await?;
    for (kind, label) in [("checkbox", "I agree\""), ("radio", "Large\"")] {
        let id = deft_id(l, kind, label)?;
        s.call("click_input", json!({"id": id})).await?;
    }
    deft_click(s, l, "button", "Submit\"", "Hello, Ada").await?;
    Ok(())
}

/// Runs task `index` through deft's tools (the page already open).
async fn deft_task(s: &mut Side, index: usize) -> Result<(), String> {
    let l = s.call("get_app_window_controls_info", json!({})).await?;
    match index {
        0 => deft_click(s, &l, "button", "cancel the delivery\"", "You chose")
            .await
            .map(drop),
        1 => {
            let after = deft_click(s, &l, "tabitem", "Returns\"", "button \"orders\"").await?;
            deft_click(s, &after, "button", "orders\"", "Your orders")
                .await
                .map(drop)
        }
        2 => {
            deft_click(s, &l, "button", "Add pears\"", "Pears added.").await?;
            // The page rebuilt itself, but its re-created controls kept their ids: the change
            // listing counts them unchanged, so the first listing's id still holds.
            deft_click(s, &l, "button", "Remove Bread\"", "Bread removed.")
                .await
                .map(drop)
        }
        3 => deft_click(s, &l, "button", "Summit GTX", "In your basket")
            .await
            .map(drop),
        4 => {
            let city = deft_id(&l, "combobox", "City\"")?;
            let args = json!({"id": city, "text": "Ber"});
            let menu = deft_act(s, "set_edit_text", args, "listitem \"Bern\"").await?;
            deft_click(s, &menu, "listitem", "Bern\"", "Trip to Bern.")
                .await
                .map(drop)
        }
        5 => {
            let panel = deft_click(
                s,
                &l,
                "button",
                "Show details\"",
                "button \"Confirm order\"",
            )
            .await?;
            deft_click(s, &panel, "button", "Confirm order\"", "Order confirmed.")
                .await
                .map(drop)
        }
        6 => deft_click(s, &l, "button", "Save layout\"", "Layout saved.")
            .await
            .map(drop),
        7 => {
            let menu =
                deft_click(s, &l, "button", "Choose a fruit\"", "listitem \"Apples\"").await?;
            deft_click(s, &menu, "listitem", "Apples\"", "chosen: Apples")
                .await
                .map(drop)
        }
        8 => deft_virtual(s, &l).await,
        _ => deft_form(s, &l).await,
    }
}

// ---------------------------------------------------------------------------------------------
// Playwright MCP: the policies.

/// The `[ref=eN]` of the first snapshot line naming `name`: `role "name"` or `role …: name`.
fn pw_ref(snapshot: &str, name: &str) -> Result<String, String> {
    let quoted = format!("\"{name}\"");
    let tail = format!(": {name}");
    snapshot
        .lines()
        .filter(|l| l.contains(&quoted) || l.trim_end().ends_with(&tail))
        .find_map(|l| {
            let at = l.find("[ref=")? + 5;
            let len = l[at..].find(']')?;
            Some(l[at..at + len].to_owned())
        })
        .ok_or_else(|| format!("no ref for {name:?} in the snapshot"))
}

/// Takes snapshots until one shows `until`, waiting a second between (three tries).
async fn pw_look(s: &mut Side, until: &str) -> Result<String, String> {
    for attempt in 0..3 {
        if attempt > 0 {
            s.call("browser_wait_for", json!({"time": 1})).await?;
        }
        let snap = s.call("browser_snapshot", json!({})).await?;
        if snap.contains(until) {
            return Ok(snap);
        }
    }
    Err(format!("no {until:?} in the snapshot"))
}

/// Clicks what the snapshot names `name` (or, given a selector, that) and looks for `until`.
async fn pw_click(s: &mut Side, snap: &str, name: &str, until: &str) -> Result<String, String> {
    let target = if let Some(sel) = name.strip_prefix("text=") {
        format!("text={sel}")
    } else {
        pw_ref(snap, name)?
    };
    let element = name.trim_start_matches("text=");
    s.call(
        "browser_click",
        json!({"element": element, "target": target}),
    )
    .await?;
    pw_look(s, until).await
}

/// The `Item N` rows of a snapshot: (N, ref).
fn pw_rows(snapshot: &str) -> Vec<(u32, String)> {
    snapshot
        .lines()
        .filter_map(|l| {
            let n = l.trim_end().rsplit_once(": Item ")?.1.parse().ok()?;
            let at = l.find("[ref=")? + 5;
            let len = l[at..].find(']')?;
            Some((n, l[at..at + len].to_owned()))
        })
        .collect()
}

/// The virtual list: scroll the viewport a little by script, see how far it moved, aim, click.
async fn pw_virtual(s: &mut Side, first: &str) -> Result<(), String> {
    let viewport = pw_ref(first, "Messages")?;
    let start = middle(&pw_rows(first)).ok_or("no rows in the snapshot")?;
    let scroll = |px: i64| {
        json!({"element": "Messages", "target": viewport,
               "function": format!("(el) => {{ el.scrollTop += {px}; }}")})
    };
    s.call("browser_evaluate", scroll(1000)).await?;
    let mut snap = pw_look(s, ": Item").await?;
    let per_px = (middle(&pw_rows(&snap)).ok_or("no rows after scrolling")? - start) / 1000.0;
    if per_px <= 0.0 {
        return Err("scrolling did not move the list".into());
    }
    for _ in 0..8 {
        let rows = pw_rows(&snap);
        if let Some((_, r)) = rows.iter().find(|(n, _)| *n == 1500) {
            s.call(
                "browser_click",
                json!({"element": "Item 1500", "target": r}),
            )
            .await?;
            pw_look(s, "opened: Item 1500").await?;
            return Ok(());
        }
        let mid = middle(&rows).ok_or("no rows in the snapshot")?;
        s.call(
            "browser_evaluate",
            scroll(((1500.0 - mid) / per_px).round() as i64),
        )
        .await?;
        snap = pw_look(s, ": Item").await?;
    }
    Err("item 1500 not reached in 8 scrolls".into())
}

/// The form: one browser_fill_form for the four fields, then Submit.
async fn pw_form(s: &mut Side, snap: &str) -> Result<(), String> {
    let field = |name: &str, kind: &str, value: &str| -> Result<Value, String> {
        Ok(
            json!({"name": name, "element": name, "target": pw_ref(snap, name)?,
                  "type": kind, "value": value}),
        )
    };
    let fields = vec![
        field("Name", "textbox", "Ada")?,
        field("Color", "combobox", "Green")?,
        field("I agree", "checkbox", "true")?,
        field("Large", "radio", "true")?,
    ];
    s.call("browser_fill_form", json!({"fields": fields}))
        .await?;
    pw_click(s, snap, "Submit", "Hello, Ada").await.map(drop)
}

/// Runs task `index` through Playwright MCP's tools (after browser_navigate).
async fn pw_task(s: &mut Side, index: usize) -> Result<(), String> {
    let snap = s.call("browser_snapshot", json!({})).await?;
    match index {
        0 => pw_click(s, &snap, "text=cancel the delivery", "You chose")
            .await
            .map(drop),
        1 => {
            let after = pw_click(s, &snap, "Returns", "orders").await?;
            pw_click(s, &after, "text=orders", "Your orders")
                .await
                .map(drop)
        }
        2 => {
            let after = pw_click(s, &snap, "Add pears", "Pears added.").await?;
            pw_click(s, &after, "Remove Bread", "Bread removed.")
                .await
                .map(drop)
        }
        3 => pw_click(s, &snap, "Summit GTX", "In your basket")
            .await
            .map(drop),
        4 => {
            let city = pw_ref(&snap, "City")?;
            s.call(
                "browser_type",
                json!({"element": "City", "target": city, "text": "Ber"}),
            )
            .await?;
            let menu = pw_look(s, "\"Bern\"").await?;
            pw_click(s, &menu, "Bern", "Trip to Bern.").await.map(drop)
        }
        5 => {
            let panel = pw_click(s, &snap, "Show details", "Confirm order").await?;
            pw_click(s, &panel, "Confirm order", "Order confirmed.")
                .await
                .map(drop)
        }
        6 => pw_click(s, &snap, "Save layout", "Layout saved.")
            .await
            .map(drop),
        7 => {
            let menu = pw_click(s, &snap, "Choose a fruit", "Apples").await?;
            pw_click(s, &menu, "Apples", "chosen: Apples")
                .await
                .map(drop)
        }
        8 => pw_virtual(s, &snap).await,
        _ => pw_form(s, &snap).await,
    }
}

/// Playwright MCP over stdio, attached over CDP to `ws_url`, writing its files to `out`.
async fn pw_session(ws_url: &str, out: &std::path::Path) -> Result<Side, String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../benches/playwright-mcp");
    let program = dir.join("node_modules/.bin/playwright-mcp");
    if !program.is_file() {
        return Err(format!(
            "{} is missing: run `cd benches/playwright-mcp && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci`",
            program.display()
        ));
    }
    let mut cmd = tokio::process::Command::new(program);
    cmd.arg("--cdp-endpoint")
        .arg(ws_url)
        .arg("--output-dir")
        .arg(out)
        .current_dir(out)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start Playwright MCP: {e}"))?;
    let client = ().serve(transport).await.map_err(|e| format!("Playwright MCP: {e}"))?;
    Ok(Side::new(client))
}

// ---------------------------------------------------------------------------------------------
// Running and printing.

/// One task's result on one side.
type Outcome = Result<Spent, (Spent, String)>;

/// Opens the page, runs the policy, checks the outcome on the page (not counted).
async fn run_deft(s: &mut Side, pages: &PageServer, index: usize) -> Outcome {
    let (_, page, done) = TASKS[index];
    s.spent = Spent::default();
    let t0 = Instant::now();
    let mut r = s
        .call("navigate", json!({"url": pages.url(page)}))
        .await
        .map(drop);
    if r.is_ok() {
        r = deft_task(s, index).await;
    }
    s.spent.wall = t0.elapsed();
    if r.is_ok() {
        let text = s.peek("get_page_text", json!({"max_chars": 100000})).await;
        r = text.and_then(|t| expect_in(&t, done, "the page after the task"));
    }
    r.map(|()| s.spent).map_err(|why| (s.spent, why))
}

/// The same for Playwright MCP.
async fn run_pw(s: &mut Side, pages: &PageServer, index: usize) -> Outcome {
    let (_, page, done) = TASKS[index];
    s.spent = Spent::default();
    let t0 = Instant::now();
    let mut r = s
        .call("browser_navigate", json!({"url": pages.url(page)}))
        .await
        .map(drop);
    if r.is_ok() {
        r = pw_task(s, index).await;
    }
    s.spent.wall = t0.elapsed();
    if r.is_ok() {
        let js = json!({"function": "() => document.body.innerText"});
        let text = s.peek("browser_evaluate", js).await;
        r = text.and_then(|t| expect_in(&t, done, "the page after the task"));
    }
    r.map(|()| s.spent).map_err(|why| (s.spent, why))
}

/// The cells of one side: calls, tokens, wall ms (a lost task's with a `lost` mark).
fn cells(o: &Outcome) -> String {
    let (s, lost) = match o {
        Ok(s) => (s, ""),
        Err((s, _)) => (s, " lost"),
    };
    format!(
        "{:>5} {:>7} {:>7.0}{lost:<5}",
        s.calls,
        s.tokens,
        s.wall.as_secs_f64() * 1000.0
    )
}

fn print_table(rows: &[(Outcome, Outcome)]) {
    println!(
        "{:<38} {:>5} {:>7} {:>7}      {:>5} {:>7} {:>7}      {:>6}",
        "task", "calls", "tokens", "ms", "calls", "tokens", "ms", "ratio"
    );
    println!(
        "{:<38} {:<26} {:<26}",
        "", "---- deft ----", "---- Playwright MCP ----"
    );
    let (mut d, mut p) = (Spent::default(), Spent::default());
    for (i, (dr, pr)) in rows.iter().enumerate() {
        let ratio = match (dr, pr) {
            (Ok(a), Ok(b)) => format!("{:.2}", a.tokens as f64 / b.tokens.max(1) as f64),
            _ => "-".into(),
        };
        println!("{:<38} {} {} {ratio:>6}", TASKS[i].0, cells(dr), cells(pr));
        for (o, total) in [(dr, &mut d), (pr, &mut p)] {
            let s = match o {
                Ok(s) | Err((s, _)) => s,
            };
            total.calls += s.calls;
            total.tokens += s.tokens;
            total.wall += s.wall;
        }
    }
    let ratio = d.tokens as f64 / p.tokens.max(1) as f64;
    println!(
        "{:<38} {} {} {ratio:>6.2}",
        "total",
        cells(&Ok(d)),
        cells(&Ok(p))
    );
    for (i, (dr, pr)) in rows.iter().enumerate() {
        for (side, o) in [("deft", dr), ("Playwright MCP", pr)] {
            if let Err((_, why)) = o {
                println!("lost on {side}: {}: {why}", TASKS[i].0);
            }
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let pages = PageServer::start().await.expect("page server");
    let mut deft = deft_session().await.expect("deft's browser tools start");
    let chromium = find_chromium(None).expect("Chromium (scripts/test.sh installs it)");
    let mut browser = ChromiumProcess::start(&chromium, &[])
        .await
        .expect("a second Chromium for Playwright MCP starts");
    let out = tempfile::tempdir().expect("a folder for Playwright MCP's files");
    let mut pw = pw_session(browser.ws_url(), out.path())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "Chromium: {}; Playwright MCP attached over CDP",
        chromium.display()
    );
    let mut rows = Vec::new();
    for i in 0..TASKS.len() {
        let d = run_deft(&mut deft, &pages, i).await;
        let p = run_pw(&mut pw, &pages, i).await;
        rows.push((d, p));
    }
    print_table(&rows);
    let _ = pw.client.cancel().await;
    let _ = deft.client.cancel().await;
    browser.stop().await;
}
