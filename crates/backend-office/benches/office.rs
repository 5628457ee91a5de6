//! Office benchmark (`cargo bench -p deft-backend-office --bench office`): prints p50/p90 for
//! - API calls on an open document through deft's tool layer, as a model makes them: a Calc
//!   cell written (`insert_excel_table` 1 × 1) and read (`get_range_values`), Writer's
//!   `select_text` and `get_document_text`;
//! - a document opened (`launch_app`, selected) to its first control listing: cold (LibreOffice
//!   not running; its profile template already set up, as after deft's first start — the very
//!   first start, which builds the template, is printed apart) and warm (the instance up);
//! - a 20-page document's Writer window listed: its first listing in a fresh desktop session
//!   (walked) and repeats, and its size in cl100k tokens.
//!
//! Everything runs on a private managed desktop with real LibreOffice; targets from issue 16.

// A benchmark's output is its figures: it prints them (the workspace denies printing elsewhere).
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use deft_test_support::office;
use serde_json::json;

fn report(what: &str, mut samples: Vec<Duration>, target_ms: f64) {
    samples.sort();
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what:52} p50 {:8.1} ms   p90 {:8.1} ms   (n={}, target ≤ {target_ms} ms)",
        ms(p(0.5)),
        ms(p(0.9)),
        samples.len()
    );
}

/// Times `n` runs of `f`.
async fn timed<F, Fut>(n: usize, mut f: F) -> Vec<Duration>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let t = Instant::now();
        f(i).await;
        out.push(t.elapsed());
    }
    out
}

/// Opens `path`, selects its window and lists it; the window.
async fn open_and_list(h: &Harness, path: &str) -> Window {
    let w = h.open(path).await;
    ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    w
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    const N: usize = 30;
    let profiles = tempfile::tempdir().expect("profiles");

    // Cold: a new harness (desktop, no LibreOffice) per sample, sharing one profile folder.
    let mut first_start = Vec::new();
    let mut cold = Vec::new();
    for i in 0..4 {
        let h = Harness::with(None, Some(profiles.path().to_owned())).await;
        let doc = office::document_from_html(&h.docs, "cold", "<p>Cold start.</p>", "docx");
        let t = Instant::now();
        open_and_list(&h, &s(&doc)).await;
        if i == 0 {
            first_start.push(t.elapsed());
        } else {
            cold.push(t.elapsed());
        }
    }
    report(
        "open → first listing, first start (profile template)",
        first_start,
        3000.0,
    );
    report(
        "open → first listing, cold (LibreOffice not running)",
        cold,
        3000.0,
    );

    let h = Harness::with(None, Some(profiles.path().to_owned())).await;
    let docs: Vec<String> = (0..10)
        .map(|i| {
            s(&office::document_from_html(
                &h.docs,
                &format!("warm{i}"),
                "<p>Warm.</p>",
                "docx",
            ))
        })
        .collect();
    open_and_list(
        &h,
        &s(&office::document_from_html(
            &h.docs, "first", "<p>x</p>", "odt",
        )),
    )
    .await;
    let warm = timed(docs.len(), |i| {
        let (h, doc) = (&h, docs[i].clone());
        async move {
            open_and_list(h, &doc).await;
        }
    })
    .await;
    report("open → first listing, warm (instance up)", warm, 1500.0);

    api_calls(&h, N).await;
    long_document(&h).await;
}

/// API calls on open documents, as the AppAgent makes them.
async fn api_calls(h: &Harness, n: usize) {
    let xlsx = office::sheet_from_csv(&h.docs, "cells", "a,b\n1,2\n", "xlsx");
    let calc = &h.open(&s(&xlsx)).await;
    let set = timed(n, |i| {
        let args = json!({"table": [[i]], "sheet_name": 1, "start_row": 3, "start_col": 1});
        async move {
            changed(&h.app(calc, "insert_excel_table", args).await);
        }
    })
    .await;
    report("API: set a cell (insert_excel_table 1 × 1)", set, 30.0);
    let get = timed(n, |_| async {
        let args =
            json!({"sheet_name": 1, "start_row": 3, "start_col": 1, "end_row": 3, "end_col": 1});
        ok(&h.app(calc, "get_range_values", args).await);
    })
    .await;
    report("API: read a cell (get_range_values 1 × 1)", get, 30.0);

    let doc = office::document_from_html(
        &h.docs,
        "text",
        "<p>Revenue grew in Q1.</p><p>Costs fell.</p>",
        "docx",
    );
    let writer = &h.open(&s(&doc)).await;
    let select = timed(n, |_| async {
        changed(&h.app(writer, "select_text", json!({"text": "Costs"})).await);
    })
    .await;
    report("API: select_text in Writer", select, 30.0);
    let text = timed(n, |_| async {
        ok(&h.app(writer, "get_document_text", json!({})).await);
    })
    .await;
    report("API: get_document_text (2 paragraphs)", text, 30.0);
}

/// The 20-page document's window: first listing of a fresh desktop session, repeats, tokens.
async fn long_document(h: &Harness) {
    let doc =
        office::document_from_html(&h.docs, "annual", &office::long_report_html(20, 9), "docx");
    let w = h.open(&s(&doc)).await;
    let listing = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let listing = listing.as_str().expect("a listing").to_owned();
    let mut first = Vec::new();
    for _ in 0..10 {
        let d = h.fresh_dispatcher();
        select_on(&d, &w).await;
        let t = Instant::now();
        ok(&app_on(&d, &w, "get_app_window_controls_info", json!({})).await);
        first.push(t.elapsed());
    }
    report(
        "20-page Writer window: first listing (walked)",
        first,
        250.0,
    );
    let repeat = timed(10, |_| async {
        ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    })
    .await;
    report("20-page Writer window: repeat listing", repeat, 250.0);
    println!(
        "20-page Writer window listing: {} lines, {} cl100k tokens (budget 4000)",
        listing.lines().count(),
        tokens(&listing)
    );
}
