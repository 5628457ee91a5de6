//! Matcher benchmark (`cargo bench -p deft-protocol --bench selector`): `selector::find` on a
//! synthetic 600-control listing (a heading, a table and 149 rows of a checkbox, a link, an edit
//! holding a value and a button, nested in the table), once per match mode and for `within`;
//! prints p50/p90 per call against the 2 ms. The listing is built once; only `find` is
//! timed.

// A benchmark's output is its figures: it prints them (the workspace denies printing elsewhere).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::{Duration, Instant};

use deft_protocol::observation::{Control, ControlType};
use deft_protocol::selector::{MatchOptions, Selector, find};
use serde_json::json;

/// 600 controls and their nesting depths.
fn listing() -> (Vec<Control>, Vec<u32>) {
    let mut controls = vec![
        Control::new("1", ControlType::Heading, "Inventory"),
        Control::new("2", ControlType::Table, "Items"),
        Control::new("3", ControlType::Columnheader, "Select"),
        Control::new("4", ControlType::Columnheader, "Item"),
    ];
    let mut depths = vec![0, 0, 1, 1];
    let mut id = 5;
    let mut push = |controls: &mut Vec<Control>, c: Control| {
        controls.push(c);
        depths.push(1);
    };
    for n in 1..=149 {
        let mut next = || {
            id += 1;
            (id - 1).to_string()
        };
        push(
            &mut controls,
            Control::new(next(), ControlType::Checkbox, format!("Select row {n}")),
        );
        push(
            &mut controls,
            Control::new(next(), ControlType::Link, format!("Item {n}")),
        );
        push(
            &mut controls,
            Control::new(next(), ControlType::Edit, format!("Note {n}"))
                .with_value(format!("widget number {n}, blue, in stock")),
        );
        push(
            &mut controls,
            Control::new(next(), ControlType::Button, format!("Edit {n}")),
        );
    }
    assert_eq!(controls.len(), 600);
    (controls, depths)
}

fn report(what: &str, mut samples: Vec<Duration>, matches: usize) {
    samples.sort();
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what:46} p50 {:7.3} ms   p90 {:7.3} ms   ({matches} matches, n={}, target ≤ 2 ms)",
        ms(p(0.5)),
        ms(p(0.9)),
        samples.len()
    );
}

fn main() {
    let (controls, depths) = listing();
    let long = "a needle longer than sixty-four characters takes the dynamic programme";
    let cases = [
        ("exact", json!({"text": "Edit 132", "match": "exact"})),
        ("contains", json!({"text": "item 13"})),
        ("fuzzy", json!({"text": "widgt numbr 77", "match": "fuzzy"})),
        (
            "fuzzy, 71-character text",
            json!({"text": long, "match": "fuzzy"}),
        ),
        (
            "regex",
            json!({"text": "^Item 1[0-4][0-9]$", "match": "regex"}),
        ),
        ("type only", json!({"type": "button"})),
        (
            "within (table), type and index",
            json!({"type": "link", "index": 3, "within": {"type": "table", "text": "Items"}}),
        ),
    ];
    const N: usize = 200;
    let opts = MatchOptions::default();
    for (name, v) in cases {
        let selector: Selector = serde_json::from_value(v).expect("a selector");
        let mut samples = Vec::with_capacity(N);
        let mut matches = 0;
        for _ in 0..N {
            let t = Instant::now();
            let found = find(&controls, &depths, &selector, &opts).expect("a good selector");
            samples.push(t.elapsed());
            matches = found.matches.len();
        }
        report(&format!("find, {name}"), samples, matches);
    }
}
