//! Reading a phone's screen (`cargo bench -p deft-backend-android --bench dump`): a 300-node
//! `uiautomator dump` (a settings-like list of 99 rows, each a clickable row with a title and a
//! summary, under a scrolling container) read into a tree, listed as controls and rendered as
//! the compact listing the model reads; and the real Settings dump of the fixtures. Prints
//! p50/p90 per screen against issue 28's 5 ms. Timings are printed, never asserted.

// A benchmark's output is its figures: it prints them (the workspace denies printing elsewhere).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::{Duration, Instant};

use deft_backend_android::controls::controls;
use deft_backend_android::ui_tree::parse_dump;
use deft_protocol::observation::{ListingOptions, WindowSummary, WindowType, render};

const ROUNDS: usize = 200;

/// A dump of `rows` list rows (3 nodes each) under 3 container nodes.
fn list_dump(rows: usize) -> String {
    let node = |class: &str, text: &str, clickable: bool, b: [i32; 4]| {
        format!(
            "<node index=\"0\" text=\"{text}\" resource-id=\"\" class=\"{class}\" package=\"com.android.settings\" \
             content-desc=\"\" checkable=\"false\" checked=\"false\" clickable=\"{clickable}\" enabled=\"true\" \
             focusable=\"{clickable}\" focused=\"false\" scrollable=\"false\" long-clickable=\"false\" \
             password=\"false\" selected=\"false\" bounds=\"[{},{}][{},{}]\">",
            b[0], b[1], b[2], b[3]
        )
    };
    let mut xml = String::from(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
    );
    xml += &node("android.widget.FrameLayout", "", false, [0, 0, 1080, 2400]);
    xml += &node("android.widget.LinearLayout", "", false, [0, 0, 1080, 2400]);
    xml += &node(
        "androidx.recyclerview.widget.RecyclerView",
        "",
        false,
        [0, 0, 1080, 2400],
    );
    for r in 0..rows {
        let top = 24 * i32::try_from(r).unwrap_or(0);
        xml += &node(
            "android.widget.LinearLayout",
            "",
            true,
            [0, top, 1080, top + 24],
        );
        xml += &node(
            "android.widget.TextView",
            &format!("Setting {r}"),
            false,
            [40, top, 600, top + 12],
        );
        xml += "</node>";
        xml += &node(
            "android.widget.TextView",
            &format!("What setting {r} does"),
            false,
            [40, top + 12, 600, top + 24],
        );
        xml += "</node></node>";
    }
    xml += "</node></node></node></hierarchy>";
    xml
}

/// Read, list and render `dump` `ROUNDS` times; p50 and p90.
fn measure(dump: &str) -> (Duration, Duration, usize, usize) {
    let window = WindowSummary::new("1", "Settings", WindowType::Window, "com.android.settings");
    let opts = ListingOptions::default();
    let mut times = Vec::with_capacity(ROUNDS);
    let (mut nodes, mut listed) = (0, 0);
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let screen = parse_dump(dump).expect("the dump reads");
        let mut n = 0u64;
        let list = controls(&screen, |_| {
            n += 1;
            n.to_string()
        });
        let text = render(&window, &list, &opts);
        times.push(start.elapsed());
        std::hint::black_box(text);
        nodes = screen.nodes().len();
        listed = list.len();
    }
    times.sort();
    (times[ROUNDS / 2], times[ROUNDS * 9 / 10], nodes, listed)
}

fn main() {
    let synthetic = list_dump(99);
    let settings = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../test-support/fixtures/android/settings-android14.xml"),
    )
    .expect("the Settings fixture");
    println!("dump → listing (parse, controls, compact render), {ROUNDS} rounds; target ≤ 5 ms");
    for (what, dump) in [
        ("300-node list", &synthetic),
        ("real Settings dump", &settings),
    ] {
        let (p50, p90, nodes, listed) = measure(dump);
        println!(
            "{what:<20} {nodes:>4} nodes, {listed:>4} controls: p50 {:.3} ms, p90 {:.3} ms",
            p50.as_secs_f64() * 1e3,
            p90.as_secs_f64() * 1e3
        );
    }
}
