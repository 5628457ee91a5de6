//! Phone tool calls against issue 28's speed targets (`cargo bench -p deft-backend-android
//! --bench tools`), on the simulated phone of the adb double behind a private real adb server,
//! driven by an in-process MCP client as the tests drive it:
//!
//! 1. deft's own overhead per tool call beyond adb: each call timed, then the shell commands it
//!    sent (read from the double) replayed straight through `AdbClient::shell` — a screen read's
//!    dump and `dumpsys window` together, as the session sends them — and timed; the difference
//!    is deft's (dump latency zero). Target ≤ 3 ms.
//! 2. How many `uiautomator dump`s a `find_controls`, a listing and an action cost. Target: a
//!    `find_controls` on a fresh dump is one dump.
//! 3. The live view: with dumps taking 0.8 s, a loop of taps and reads alone, then again while a
//!    task captures `capture_desktop_screenshot` every 0.5 s (the console's default 2 frames/s)
//!    and decodes and downscales each frame to JPEG as the console does; and how many frames the
//!    double gives back to back. Target ≥ 2 frames/s and tool calls slowed by ≤ 10 %.
//!
//! Timings are printed, never asserted.

// A benchmark's output is its figures: it prints them (the workspace denies printing elsewhere).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use deft_adb::AdbClient;
use deft_backend_android::AndroidServer;
use deft_backend_android::phone::Phone;
use deft_test_support::adb_double::{AdbDouble, AdbHarness, DoubleConfig};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{Peer, RunningService};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

/// Timed calls per tool (after [`WARMUP`] untimed ones).
const ROUNDS: usize = 100;
const WARMUP: usize = 3;
/// A real phone's `uiautomator dump` (issue 28).
const PHONE_DUMP: Duration = Duration::from_millis(800);
/// Tap-and-read rounds of the live-view loop, each phase.
const LOOP_ROUNDS: usize = 6;
/// The console's live view: `live_fps` 2.0 by default, one capture started every 0.5 s.
const LIVE_INTERVAL: Duration = Duration::from_millis(500);
/// How long frames are captured back to back to see how many the double could give.
const CAPACITY_RUN: Duration = Duration::from_secs(2);
/// The console's frame: at most 1280 px wide, JPEG quality 70.
const LIVE_MAX_WIDTH: u32 = 1280;
const LIVE_JPEG_QUALITY: u8 = 70;

/// A client of an Android tool server for the double's phone, over an in-process pipe.
async fn client_for(harness: &AdbHarness) -> Client {
    let phone = Phone::new(harness.client(), harness.double(0).serial());
    let server = AndroidServer::for_phone(phone);
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("client connects")
}

async fn call(peer: &Peer<RoleClient>, tool: &'static str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    let result = peer
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .expect("call_tool answers");
    assert_eq!(result.is_error, Some(false), "{tool} failed: {result:?}");
    result
}

fn structured(result: &CallToolResult) -> &Value {
    result.structured_content.as_ref().expect("structured")
}

/// The id `selector` picks on the screen now.
async fn find(client: &Client, selector: Value) -> String {
    let found = call(
        client,
        "find_controls",
        json!({"selector": selector, "format": "json"}),
    )
    .await;
    structured(&found)["chosen"]
        .as_str()
        .unwrap_or_else(|| panic!("{selector} found: {found:?}"))
        .to_owned()
}

fn button(text: &str) -> Value {
    json!({"text": text, "type": "button", "match": "exact"})
}

/// p50 and p90 of `times`, in ms.
fn percentiles(times: &[Duration]) -> (f64, f64) {
    let mut t = times.to_vec();
    t.sort();
    let at = |q: usize| t[(t.len() * q / 100).min(t.len() - 1)].as_secs_f64() * 1e3;
    (at(50), at(90))
}

fn is_dump(command: &str) -> bool {
    command.starts_with("uiautomator dump")
}

fn is_focus(command: &str) -> bool {
    command.starts_with("dumpsys window")
}

fn dumps(commands: &[String]) -> usize {
    commands.iter().filter(|c| is_dump(c)).count()
}

/// Sends `commands` again straight through the adb client, in order, a screen read's dump and
/// `dumpsys window` at once (the session sends them together); how long that took.
async fn replay(adb: &AdbClient, serial: &str, commands: &[String]) -> Duration {
    let shell = |c: &str| {
        let (adb, serial, c) = (adb.clone(), serial.to_owned(), c.to_owned());
        async move { adb.shell(&serial, &c).await.expect("replayed command runs") }
    };
    let t0 = Instant::now();
    let mut i = 0;
    while i < commands.len() {
        let pair = commands.get(i + 1).is_some_and(|next| {
            (is_dump(&commands[i]) && is_focus(next)) || (is_focus(&commands[i]) && is_dump(next))
        });
        if pair {
            tokio::join!(shell(&commands[i]), shell(&commands[i + 1]));
            i += 2;
        } else {
            shell(&commands[i]).await;
            i += 1;
        }
    }
    t0.elapsed()
}

/// One tool's figures: the calls, the same adb traffic alone, the difference per call.
struct Overhead {
    tool: &'static str,
    calls: Vec<Duration>,
    adb: Vec<Duration>,
    commands: usize,
    dumps: usize,
    unchanged: usize,
}

/// Times `ROUNDS` calls of `tool` (arguments for round `i` from `args`), each followed by the
/// replay of its adb commands.
async fn overhead(
    client: &Client,
    harness: &AdbHarness,
    tool: &'static str,
    args: impl Fn(usize) -> Value,
) -> Overhead {
    let double = harness.double(0);
    let adb = harness.client();
    let mut o = Overhead {
        tool,
        calls: Vec::new(),
        adb: Vec::new(),
        commands: 0,
        dumps: 0,
        unchanged: 0,
    };
    for i in 0..WARMUP + ROUNDS {
        let sent_before = double.commands().len();
        let t0 = Instant::now();
        let result = call(client, tool, args(i)).await;
        let took = t0.elapsed();
        let sent = double.commands()[sent_before..].to_vec();
        let replayed = replay(&adb, &double.serial(), &sent).await;
        if i < WARMUP {
            continue;
        }
        let effect = result.structured_content.as_ref().map(|v| &v["effect"]);
        o.unchanged += usize::from(effect.is_some_and(|e| e == "no_change"));
        o.calls.push(took);
        o.adb.push(replayed);
        o.commands = sent.len();
        o.dumps = dumps(&sent);
    }
    o
}

fn print_overhead(o: &Overhead) {
    let mut diffs: Vec<f64> = o
        .calls
        .iter()
        .zip(&o.adb)
        .map(|(c, a)| (c.as_secs_f64() - a.as_secs_f64()) * 1e3)
        .collect();
    diffs.sort_by(f64::total_cmp);
    let (c50, c90) = percentiles(&o.calls);
    let (a50, a90) = percentiles(&o.adb);
    let (d50, d90) = (diffs[diffs.len() / 2], diffs[diffs.len() * 9 / 10]);
    let note = if o.unchanged > 0 {
        format!(
            "  ({} of {ROUNDS} saw no change: a settle pause inside)",
            o.unchanged
        )
    } else {
        String::new()
    };
    println!(
        "{:<29} {:>4} {:>5} {c50:>8.2} {c90:>8.2} {a50:>8.2} {a90:>8.2} {d50:>8.2} {d90:>8.2}{note}",
        o.tool, o.commands, o.dumps
    );
}

/// Part 1: the overhead of each tool beyond its adb traffic.
async fn measure_overhead() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness).await;
    call(&client, "launch_app", json!({"app": "Calculator"})).await;
    let seven = find(&client, button("7")).await;
    let mut rows = vec![
        overhead(&client, &harness, "click_input", |_| json!({"id": seven})).await,
        overhead(&client, &harness, "get_app_window_controls_info", |_| {
            json!({})
        })
        .await,
        overhead(
            &client,
            &harness,
            "find_controls",
            |_| json!({"selector": button("7"), "format": "json"}),
        )
        .await,
    ];
    call(&client, "launch_app", json!({"app": "com.example.form"})).await;
    let field = find(&client, json!({"type": "edit"})).await;
    // Same length each time, so the replayed deletes leave the field as the call left it.
    let names = ["Ann Lee", "Bob Ray"];
    rows.push(
        overhead(
            &client,
            &harness,
            "set_edit_text",
            |i| json!({"id": field, "text": names[i % 2]}),
        )
        .await,
    );
    // Always typing (never deleting), so the replay's own keys never undo what a call did and
    // every call sees a change (a screen that looks the same costs a second read).
    rows.push(
        overhead(
            &client,
            &harness,
            "keyboard_input",
            |_| json!({"id": field, "keys": "x"}),
        )
        .await,
    );
    println!(
        "1. deft's overhead per tool call beyond adb (dump latency 0; {ROUNDS} calls each; ms); target ≤ 3 ms"
    );
    println!(
        "{:<29} {:>4} {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "tool",
        "cmds",
        "dumps",
        "call p50",
        "call p90",
        "adb p50",
        "adb p90",
        "deft p50",
        "deft p90"
    );
    for row in &rows {
        print_overhead(row);
    }
}

/// The commands `double` was sent by one call of `tool`.
async fn commands_of(
    client: &Client,
    double: &AdbDouble,
    tool: &'static str,
    args: Value,
) -> (Vec<String>, CallToolResult) {
    let before = double.commands().len();
    let result = call(client, tool, args).await;
    (double.commands()[before..].to_vec(), result)
}

/// Part 2: the dumps a find, a listing and an action take.
async fn count_dumps() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let double = harness.double(0);
    let client = client_for(&harness).await;
    call(&client, "launch_app", json!({"app": "Calculator"})).await;
    let seven = find(&client, button("7")).await;
    println!("2. uiautomator dumps per call; target: find_controls on a fresh dump = 1");
    let find = json!({"selector": button("7"), "format": "json"});
    let (sent, _) = commands_of(&client, double, "find_controls", find).await;
    println!(
        "{:<46} {} dump(s)  [{}]",
        "find_controls",
        dumps(&sent),
        sent.join(" | ")
    );
    let (sent, _) = commands_of(&client, double, "get_app_window_controls_info", json!({})).await;
    println!(
        "{:<46} {} dump(s)  [{}]",
        "get_app_window_controls_info",
        dumps(&sent),
        sent.join(" | ")
    );
    let (sent, result) = commands_of(&client, double, "click_input", json!({"id": seven})).await;
    println!(
        "{:<46} {} dump(s)  [{}]",
        format!("click_input, effect {}", structured(&result)["effect"]),
        dumps(&sent),
        sent.join(" | ")
    );
    let (sent, result) = commands_of(
        &client,
        double,
        "click_on_coordinates",
        json!({"x": 0.5, "y": 0.02}),
    )
    .await;
    println!(
        "{:<46} {} dump(s)  [{}]",
        format!(
            "click_on_coordinates, effect {}",
            structured(&result)["effect"]
        ),
        dumps(&sent),
        sent.join(" | ")
    );
}

/// One live-view frame as the console makes it: the screenshot tool's PNG decoded, scaled to
/// at most [`LIVE_MAX_WIDTH`] wide, encoded as JPEG.
async fn live_frame(peer: &Peer<RoleClient>) -> usize {
    use base64::Engine as _;
    let shot = call(peer, "capture_desktop_screenshot", json!({})).await;
    let data = &shot
        .content
        .iter()
        .find_map(|c| c.as_image())
        .expect("the screenshot has an image")
        .data;
    let png = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("the image is base64");
    tokio::task::spawn_blocking(move || {
        let mut rgb = image::load_from_memory(&png)
            .expect("the PNG decodes")
            .into_rgb8();
        if rgb.width() > LIVE_MAX_WIDTH {
            let h = (u64::from(rgb.height()) * u64::from(LIVE_MAX_WIDTH) / u64::from(rgb.width()))
                .max(1);
            let h = u32::try_from(h).expect("a frame's height");
            rgb = image::imageops::thumbnail(&rgb, LIVE_MAX_WIDTH, h);
        }
        let (w, h) = (
            u16::try_from(rgb.width()).expect("width"),
            u16::try_from(rgb.height()).expect("height"),
        );
        let mut jpeg = Vec::new();
        jpeg_encoder::Encoder::new(&mut jpeg, LIVE_JPEG_QUALITY)
            .encode(rgb.as_raw(), w, h, jpeg_encoder::ColorType::Rgb)
            .expect("the JPEG encodes");
        jpeg.len()
    })
    .await
    .expect("the frame task")
}

/// What the live view did while it ran.
struct Live {
    frames: usize,
    /// From the first frame's start to the last one's.
    ran: Duration,
    captures: Vec<Duration>,
    jpeg_bytes: usize,
}

/// Captures frames as the console's live view does (one started every `interval` on a fixed
/// grid, the next at once when one took longer) until `stop`.
async fn live_view(peer: Peer<RoleClient>, interval: Duration, stop: Arc<AtomicBool>) -> Live {
    let mut first = None;
    let mut last = Instant::now();
    let mut grid = tokio::time::Instant::now();
    let mut live = Live {
        frames: 0,
        ran: Duration::ZERO,
        captures: Vec::new(),
        jpeg_bytes: 0,
    };
    while !stop.load(Ordering::Relaxed) {
        let started = tokio::time::Instant::now();
        last = Instant::now();
        first.get_or_insert(last);
        live.jpeg_bytes = live_frame(&peer).await;
        live.captures.push(started.elapsed());
        live.frames += 1;
        // on a fixed grid, as the console's live view
        grid = (grid + interval).max(tokio::time::Instant::now());
        tokio::time::sleep_until(grid).await;
    }
    live.ran = first.map_or(Duration::ZERO, |f| last - f);
    live
}

impl Live {
    /// Frames a second: the frames started after the first, over the time they took to start.
    fn rate(&self) -> f64 {
        self.frames.saturating_sub(1) as f64 / self.ran.as_secs_f64().max(f64::EPSILON)
    }
}

/// Frames captured one after the other for [`CAPACITY_RUN`], nothing else running.
async fn back_to_back(client: &Client) -> Live {
    let stop = Arc::new(AtomicBool::new(false));
    let capturing = tokio::spawn(live_view(
        client.peer().clone(),
        Duration::ZERO,
        stop.clone(),
    ));
    tokio::time::sleep(CAPACITY_RUN).await;
    stop.store(true, Ordering::Relaxed);
    capturing.await.expect("the capture task")
}

/// `LOOP_ROUNDS` times: a digit tapped, then the result read with `find_controls`; each
/// round's time.
async fn tap_and_read(client: &Client, digits: &[String]) -> Vec<Duration> {
    let result = json!({"selector": {"type": "text"}, "format": "json"});
    let mut rounds = Vec::new();
    for i in 0..LOOP_ROUNDS {
        let t0 = Instant::now();
        let tapped = call(
            client,
            "click_input",
            json!({"id": digits[i % digits.len()]}),
        )
        .await;
        assert_eq!(structured(&tapped)["effect"], "changed", "{tapped:?}");
        call(client, "find_controls", result.clone()).await;
        rounds.push(t0.elapsed());
    }
    rounds
}

/// Part 3: tool calls with and without the live view, dumps taking [`PHONE_DUMP`].
async fn live_view_cost() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone().dump_latency(PHONE_DUMP)]);
    let client = client_for(&harness).await;
    call(&client, "launch_app", json!({"app": "Calculator"})).await;
    let mut digits = Vec::new();
    for d in ["1", "2", "3"] {
        digits.push(find(&client, button(d)).await);
    }
    let capacity = back_to_back(&client).await;
    let alone = tap_and_read(&client, &digits).await;
    let stop = Arc::new(AtomicBool::new(false));
    let capturing = tokio::spawn(live_view(
        client.peer().clone(),
        LIVE_INTERVAL,
        stop.clone(),
    ));
    let with_live = tap_and_read(&client, &digits).await;
    stop.store(true, Ordering::Relaxed);
    let live = capturing.await.expect("the live view task");
    let total = |t: &[Duration]| t.iter().sum::<Duration>().as_secs_f64();
    let (a50, a90) = percentiles(&alone);
    let (l50, l90) = percentiles(&with_live);
    let (c50, c90) = percentiles(&live.captures);
    let fps = live.rate();
    let slowdown = (total(&with_live) / total(&alone) - 1.0) * 100.0;
    println!(
        "3. live view at the console's {:.0} frames/s, dumps {:.1} s, {LOOP_ROUNDS} rounds of tap + find_controls each way",
        1.0 / LIVE_INTERVAL.as_secs_f64(),
        PHONE_DUMP.as_secs_f64()
    );
    println!(
        "   round alone:        p50 {a50:>7.1} ms, p90 {a90:>7.1} ms, total {:.2} s",
        total(&alone)
    );
    println!(
        "   round with live:    p50 {l50:>7.1} ms, p90 {l90:>7.1} ms, total {:.2} s",
        total(&with_live)
    );
    println!(
        "   frame (capture + decode + downscale + JPEG): p50 {c50:.1} ms, p90 {c90:.1} ms, {} bytes",
        live.jpeg_bytes
    );
    println!(
        "   frames back to back, nothing else running: {:.1} frames/s (what the double could give)",
        capacity.rate()
    );
    println!(
        "   live view: {fps:.2} frames/s (target ≥ 2); tool calls slowed by {slowdown:+.1} % (target ≤ 10 %)"
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        Box::pin(measure_overhead()).await;
        println!();
        Box::pin(count_dumps()).await;
        println!();
        Box::pin(live_view_cost()).await;
    });
}
