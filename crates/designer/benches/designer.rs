//! Designer-mode benchmark (`cargo bench -p deft-designer --bench designer`): what the designer
//! adds to a run, measured on its own —
//! - the prompt: tokens (cl100k_base) of the designer template with the step language filled in;
//! - the evidence: reading back one 600-control compact listing the model saw (as each of a
//!   run's observations is read);
//! - `submit_task`'s judgement of a 500-step draft (the language's limit) after a full
//!   exploration of 40 listings of 600 controls — 40 different pages (the worst case: 24,000
//!   distinct controls), and one window listed 40 times (what a run does) — with half the
//!   draft's selectors found in them and the other half (the slow case: everything is
//!   searched) not: validator, coordinate check, selector check.
//!
//! Prints p50/p90 per operation.

// A benchmark's output is its figures: it prints them (the workspace denies printing elsewhere).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::{Duration, Instant};

use deft_designer::evidence::Evidence;
use deft_designer::submit::{Submissions, Verdict};
use deft_protocol::observation::{
    Control, ControlType, ListingOptions, WindowSummary, WindowType, render_compact,
};
use deft_protocol::{CommandResult, NullImages, ToolStep};
use deft_tasks::validate::DeviceKind;
use serde_json::{Value, json};

/// A 600-control compact listing whose names carry `page`.
fn listing(page: usize) -> String {
    let mut controls = vec![Control::new("1", ControlType::Heading, "Inventory")];
    for n in 0..599 {
        let id = (page * 1000 + n + 2).to_string();
        let c = match n % 3 {
            0 => Control::new(id, ControlType::Button, format!("Edit {page}-{n}")),
            1 => Control::new(id, ControlType::Edit, format!("Note {page}-{n}"))
                .with_value(format!("widget {n}, blue, in stock")),
            _ => Control::new(id, ControlType::Link, format!("Item {page}-{n}")),
        };
        controls.push(c);
    }
    let window = WindowSummary::new("2", "Inventory", WindowType::Page, "127.0.0.1");
    render_compact(&window, &controls, &ListingOptions::default())
}

fn step(text: String) -> ToolStep {
    ToolStep::from_result(
        "get_app_window_controls_info",
        json!({}),
        &CommandResult::success("c", Value::String(text), None),
        &NullImages::default(),
        Duration::ZERO,
    )
}

/// 500 clicks: even ones name a button of the listings, odd ones a button none has.
fn draft() -> Value {
    let steps: Vec<Value> = (0..500)
        .map(|i| {
            let text = if i % 2 == 0 {
                format!("Edit {}-{}", i % 40, (i * 3) % 597)
            } else {
                format!("Missing {i}")
            };
            json!({"type": "click", "selector": {"text": text, "type": "button", "match": "exact"}})
        })
        .collect();
    json!({"task": {"name": "five hundred clicks", "steps": steps}})
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what:<58} p50 {:>8.3} ms   p90 {:>8.3} ms   ({} runs)",
        ms(p(0.5)),
        ms(p(0.9)),
        samples.len()
    );
}

fn main() {
    let bpe = tiktoken_rs::cl100k_base().expect("cl100k tables");
    let language = deft_designer::language::summary();
    let template = include_str!("../prompts/designer.j2");
    println!(
        "designer prompt: {} tokens (step language {} of them, {} lines), before the tool names",
        bpe.encode_ordinary(template).len() + bpe.encode_ordinary(&language).len(),
        bpe.encode_ordinary(&language).len(),
        language.lines().count()
    );

    let texts: Vec<String> = (0..40).map(listing).collect();
    let samples = (0..200)
        .map(|i| {
            let s = step(texts[i % 40].clone());
            let mut e = Evidence::default();
            let t = Instant::now();
            e.record(&s);
            t.elapsed()
        })
        .collect();
    report("read back one 600-control listing", samples);

    judge_bench(
        "judge a 500-step draft: 40 distinct listings (24,000 controls)",
        &texts,
    );
    let same: Vec<String> = (0..40).map(|_| listing(7)).collect();
    judge_bench("judge a 500-step draft: one window listed 40 times", &same);
}

/// Times `submit_task`'s judgement of the 500-step draft after an exploration that saw `texts`.
fn judge_bench(what: &str, texts: &[String]) {
    let mut evidence = Evidence::default();
    for t in texts {
        evidence.record(&step(t.clone()));
    }
    let args = draft();
    let args = args.as_object().expect("an object");
    let mut held = 0;
    let samples = (0..10)
        .map(|_| {
            let mut s = Submissions::default();
            let t = Instant::now();
            let verdict = s.judge(args, "browser", DeviceKind::Browser, &evidence);
            let took = t.elapsed();
            if let Verdict::Refused(text) = verdict
                && text.starts_with("Not accepted yet: ")
            {
                held += 1;
            }
            took
        })
        .collect();
    assert_eq!(held, 10, "the unseen selectors are held back");
    report(what, samples);
}
