//! `find_controls` and `wait_for_control` on real GTK apps on a private managed desktop: the
//! project's appear app (controls to find; a button that appears and goes a while after a
//! click; a dialog that closes itself) and gnome-calculator, through the MCP tools.

mod common;

use std::time::Duration;

use common::{Harness, find_id, text_of};
use deft_test_support::desktop::{AppProcess, require_program};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const T: Duration = Duration::from_secs(10);

/// The appear app, started with `delay_ms` between a click and what it makes appear or go,
/// and selected.
async fn appear(delay_ms: u64) -> (Harness, AppProcess) {
    let h = Harness::new().await;
    let app = AppProcess::appear_app(&h.env(), delay_ms).expect("appear app starts");
    assert!(
        app.wait_record(T, |r| r["event"] == "ready").is_some(),
        "the appear app did not start: {:?}",
        app.lines()
    );
    h.select_app("appear_app.py").await;
    (h, app)
}

/// The compact answer of `find_controls` for `args`, which must succeed.
async fn find(h: &Harness, args: Value) -> String {
    let r = h.call("find_controls", args.clone()).await;
    assert_ne!(
        r.is_error,
        Some(true),
        "find_controls({args}) failed: {}",
        text_of(&r)
    );
    text_of(&r)
}

/// The `chosen=` id of a compact answer's header.
fn chosen(answer: &str) -> String {
    answer
        .lines()
        .next()
        .and_then(|h| h.split(' ').find_map(|w| w.strip_prefix("chosen=")))
        .unwrap_or_else(|| panic!("no chosen= in {answer}"))
        .to_owned()
}

/// The `matches=` count of a compact answer's header.
fn matches(answer: &str) -> usize {
    answer
        .lines()
        .next()
        .and_then(|h| h.split(' ').find_map(|w| w.strip_prefix("matches=")))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no matches= in {answer}"))
}

// Every way a selector matches, on one window: long because the list is.
#[allow(clippy::too_many_lines)]
#[tokio::test(flavor = "multi_thread")]
async fn selectors_match_by_text_type_within_index_and_value_with_the_listing_ids() {
    let (h, _app) = appear(300).await;
    let listing = h.listing(json!({})).await;
    let left_ok = find_id(&listing, "button", "OK").unwrap();
    let apply = find_id(&listing, "button", "Apply").unwrap();
    let note = find_id(&listing, "edit", "Note").unwrap();
    let right_ok = listing
        .lines()
        .filter(|l| l.ends_with("button \"OK\""))
        .nth(1)
        .and_then(|l| l.split(' ').next())
        .expect("a second OK")
        .to_owned();

    // exact: two equal buttons, the tie broken by document order and said so.
    let a = find(&h, json!({"selector": {"text": " ok ", "match": "exact"}})).await;
    assert_eq!(
        a,
        format!(
            "window 1 \"Deft Appear\" app=\"appear_app.py\" matches=2 chosen={left_ok} selector=\"\\\" ok \\\" (exact)\"\n\
             {left_ok} button \"OK\" score=100\n\
             {right_ok} button \"OK\" score=100\n\
             … 2 controls score 100; index 0 in document order picks id {left_ok}.\n"
        )
    );
    // index picks among the ties.
    let a = find(
        &h,
        json!({"selector": {"text": "OK", "match": "exact", "index": 1}}),
    )
    .await;
    assert_eq!(chosen(&a), right_ok, "{a}");
    assert!(
        a.contains(&format!("index 1 in document order picks id {right_ok}.")),
        "{a}"
    );
    let a = find(
        &h,
        json!({"selector": {"text": "OK", "match": "exact", "index": 2}}),
    )
    .await;
    assert_eq!(chosen(&a), "none", "{a}");
    assert!(
        a.ends_with("… index 2 asked, but only 2 controls share the best match.\n"),
        "{a}"
    );
    // within: only the subtree of the group "Right" (its button is not nested in "Left").
    let a = find(
        &h,
        json!({"selector": {"text": "OK", "within": {"type": "group", "text": "Right"}}}),
    )
    .await;
    assert_eq!(matches(&a), 1, "{a}");
    assert_eq!(chosen(&a), right_ok, "{a}");
    let a = find(
        &h,
        json!({"selector": {"type": "button", "within": {"type": "group", "text": "Left"}}}),
    )
    .await;
    assert_eq!(matches(&a), 2, "OK and Apply: {a}");
    let a = find(
        &h,
        json!({"selector": {"text": "OK", "within": {"text": "Middle"}}}),
    )
    .await;
    assert!(
        a.ends_with("… nothing matches the within selector \"Middle\".\n"),
        "{a}"
    );
    // contains (the default) finds every row whose name holds the text.
    let a = find(&h, json!({"selector": {"text": "row 1"}})).await;
    assert_eq!(matches(&a), 4, "Row 1, 10, 11, 12: {a}");
    // fuzzy: a typo still finds the button, scored below 100.
    let a = find(&h, json!({"selector": {"text": "Aply", "match": "fuzzy"}})).await;
    assert_eq!(chosen(&a), apply, "{a}");
    let score: u8 = a
        .lines()
        .nth(1)
        .and_then(|l| l.rsplit("score=").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no score in {a}"));
    assert!((70..100).contains(&score), "{a}");
    // regex: the raw name, case-sensitive.
    let a = find(
        &h,
        json!({"selector": {"text": "^Row [1-9]$", "match": "regex"}}),
    )
    .await;
    assert_eq!(matches(&a), 9, "{a}");
    let a = find(
        &h,
        json!({"selector": {"text": "^row", "match": "regex", "type": "button"}}),
    )
    .await;
    assert_eq!(matches(&a), 0, "{a}");
    assert!(a.contains("chosen=none"), "{a}");
    // type alone.
    let a = find(&h, json!({"selector": {"type": "edit"}})).await;
    assert_eq!(chosen(&a), note, "{a}");
    assert!(
        a.contains(&format!("{note} edit \"Note\" = \"draft 42\"")),
        "{a}"
    );
    // the value: an edit found by its text, and said so.
    let a = find(&h, json!({"selector": {"text": "draft"}})).await;
    assert_eq!(chosen(&a), note, "{a}");
    assert!(
        a.lines().nth(1).unwrap().ends_with(" score=100 on=value"),
        "{a}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn found_ids_are_the_ids_actions_take_even_before_any_listing() {
    let (h, app) = appear(300).await;
    // No listing first: find_controls gives the ids a listing would, and actions accept them.
    let a = find(&h, json!({"selector": {"text": "Apply", "match": "exact"}})).await;
    let apply = chosen(&a);
    let r = h
        .ok("click_input", json!({"id": apply, "name": "Apply"}))
        .await;
    assert_eq!(r["via"], "pointer", "{r}");
    assert!(
        app.wait_record(T, |r| r["event"] == "clicked"
            && r["widget"] == "Left Apply")
            .is_some(),
        "{:?}",
        app.lines()
    );
    let a = find(&h, json!({"selector": {"type": "edit", "text": "Note"}})).await;
    let note = chosen(&a);
    let r = h
        .ok(
            "set_edit_text",
            json!({"id": note, "name": "Note", "text": "café 苏州"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(
        app.wait_record(T, |r| r["event"] == "changed" && r["value"] == "café 苏州")
            .is_some(),
        "{:?}",
        app.lines()
    );
    // The new value is found, and the listing has the same ids.
    let a = find(&h, json!({"selector": {"text": "苏州", "type": "edit"}})).await;
    assert_eq!(chosen(&a), note, "{a}");
    let listing = h.listing(json!({})).await;
    assert_eq!(find_id(&listing, "button", "Apply"), Some(apply));
    assert_eq!(find_id(&listing, "edit", "Note"), Some(note));
}

#[tokio::test(flavor = "multi_thread")]
async fn limit_cuts_the_matches_with_a_footer_and_json_has_the_fields() {
    let (h, _app) = appear(300).await;
    let a = find(&h, json!({"selector": {"text": "Row"}, "limit": 3})).await;
    let lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines.len(), 6, "{a}");
    assert!(lines[0].contains("matches=12"), "{a}");
    assert!(lines[1].ends_with("button \"Row 1\" score=100"), "{a}");
    assert!(lines[3].ends_with("button \"Row 3\" score=100"), "{a}");
    assert!(
        lines[4].starts_with("… 12 controls score 100; index 0 in document order picks id "),
        "{a}"
    );
    assert_eq!(lines[5], "… 9 more matches not listed (limit=3).");

    let j = h
        .ok(
            "find_controls",
            json!({"selector": {"text": "Row"}, "limit": 2, "format": "JSON"}),
        )
        .await;
    assert_eq!(j["window"]["name"], "Deft Appear", "{j}");
    assert_eq!(j["window"]["app"], "appear_app.py", "{j}");
    assert_eq!(j["selector"], json!({"text": "Row", "match": "contains"}));
    assert_eq!(j["total"], 12, "{j}");
    assert_eq!(j["best_count"], 12, "{j}");
    let m = j["matches"].as_array().expect("matches");
    assert_eq!(m.len(), 2, "{j}");
    assert_eq!(m[0]["name"], "Row 1");
    assert_eq!(m[0]["type"], "button");
    assert_eq!(m[0]["score"], 100);
    assert_eq!(m[0]["on"], "name");
    assert_eq!(j["chosen"], m[0]["id"], "{j}");
    assert!(
        j["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("12 controls score 100")),
        "{j}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_arguments_are_refused_with_every_problem() {
    let h = Harness::new().await;
    // A bad selector is refused before anything else, each problem with its path.
    let bad = json!({"type": "buton", "match": "regex", "text": "(", "within": {"match": "exact"}});
    for tool in ["find_controls", "wait_for_control"] {
        let e = h.err(tool, json!({"selector": bad})).await;
        assert!(
            e.starts_with("The selector cannot be used (3 problems): selector.type: unknown control type \"buton\"; use a type word of docs/observation.md"),
            "{tool}: {e}"
        );
        assert!(
            e.contains("; selector.text: the regex does not compile: "),
            "{tool}: {e}"
        );
        assert!(
            e.contains("; selector.within: a selector needs a text or a type. A selector is {"),
            "{tool}: {e}"
        );
        let e = h.err(tool, json!({"selector": {}})).await;
        assert!(
            e.starts_with(
                "The selector cannot be used (1 problem): selector: a selector needs a text or a type."
            ),
            "{tool}: {e}"
        );
    }
    let sel = json!({"text": "OK"});
    assert_eq!(
        h.err("find_controls", json!({"selector": sel, "limit": 0}))
            .await,
        "limit must be between 1 and 100, got 0."
    );
    assert_eq!(
        h.err("find_controls", json!({"selector": sel, "limit": 101}))
            .await,
        "limit must be between 1 and 100, got 101."
    );
    let e = h
        .err("find_controls", json!({"selector": sel, "format": "yaml"}))
        .await;
    assert!(e.contains("expected \"compact\""), "{e}");
    assert_eq!(
        h.err(
            "wait_for_control",
            json!({"selector": sel, "timeout_s": 301})
        )
        .await,
        "timeout_s must be between 0 and 300, got 301."
    );
    assert_eq!(
        h.err(
            "wait_for_control",
            json!({"selector": sel, "timeout_s": -1})
        )
        .await,
        "timeout_s must be between 0 and 300, got -1."
    );
    // No window selected: the listing's text.
    for tool in ["find_controls", "wait_for_control"] {
        assert_eq!(
            h.err(tool, json!({"selector": sel})).await,
            "No window selected. Call get_desktop_app_info and select_application_window first.",
            "{tool}"
        );
    }
}

/// Clicks the button named `name` (found by selector) and returns once the click is done.
async fn click(h: &Harness, name: &str) {
    let a = find(h, json!({"selector": {"text": name, "match": "exact"}})).await;
    let id = chosen(&a);
    h.ok("click_input", json!({"id": id, "name": name})).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_answers_when_a_control_appears_and_when_it_goes() {
    // Long enough that the click is over before the button comes: the wait really waits.
    let (h, app) = appear(1500).await;
    let sel = json!({"text": "Details ready", "match": "exact", "type": "button"});
    click(&h, "Show later").await;
    let r = h
        .ok(
            "wait_for_control",
            json!({"selector": sel, "timeout_s": 20}),
        )
        .await;
    assert_eq!(r["appeared"], true, "{r}");
    assert_eq!(r["control"]["name"], "Details ready", "{r}");
    assert_eq!(r["control"]["score"], 100, "{r}");
    let waited = r["waited_ms"].as_u64().expect("waited_ms");
    assert!(waited < 20_000, "{r}");
    assert!(app.wait_record(T, |r| r["event"] == "shown").is_some());
    // Its id is a listing's: actions take it.
    let id = r["control"]["id"].as_str().unwrap().to_owned();
    h.ok("click_input", json!({"id": id, "name": "Details ready"}))
        .await;
    // Already there: answered at once.
    let r = h
        .ok("wait_for_control", json!({"selector": sel, "timeout_s": 0}))
        .await;
    assert_eq!(r["control"]["id"], id.as_str(), "{r}");

    click(&h, "Hide later").await;
    let r = h
        .ok(
            "wait_for_control",
            json!({"selector": sel, "timeout_s": 20, "gone": true}),
        )
        .await;
    assert_eq!(r, json!({"gone": true, "waited_ms": r["waited_ms"]}), "{r}");
    assert!(r["waited_ms"].as_u64().unwrap() < 20_000, "{r}");
    assert!(app.wait_record(T, |r| r["event"] == "hidden").is_some());
    let e = h
        .err("click_input", json!({"id": id, "name": "Details ready"}))
        .await;
    assert!(e.contains("no longer exists"), "{e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_for_gone_answers_when_the_selected_dialog_closes() {
    let (h, app) = appear(1000).await;
    click(&h, "Open dialog").await;
    assert!(
        app.wait_record(T, |r| r["event"] == "dialog_shown")
            .is_some()
    );
    let mut dialog = None;
    for _ in 0..100 {
        let list = h.ok("get_desktop_app_info", json!({})).await;
        dialog = list["windows"]
            .as_array()
            .and_then(|ws| ws.iter().find(|w| w["name"] == "Deft Dialog"))
            .cloned();
        if dialog.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let dialog = dialog.expect("the dialog is listed");
    h.ok(
        "select_application_window",
        json!({"id": dialog["id"], "name": "Deft Dialog"}),
    )
    .await;
    let sel = json!({"text": "Close later", "type": "button"});
    let r = h
        .ok("wait_for_control", json!({"selector": sel, "timeout_s": 5}))
        .await;
    assert_eq!(r["appeared"], true, "{r}");
    click(&h, "Close later").await;
    let r = h
        .ok(
            "wait_for_control",
            json!({"selector": sel, "timeout_s": 20, "gone": true}),
        )
        .await;
    assert_eq!(r["gone"], true, "{r}");
    assert!(
        app.wait_record(T, |r| r["event"] == "dialog_closed")
            .is_some()
    );
    // Waiting for a control in a window that is gone fails with the window's text.
    let e = h
        .err("wait_for_control", json!({"selector": sel, "timeout_s": 5}))
        .await;
    assert!(
        e.starts_with(&format!(
            "Window {} (\"Deft Dialog\") is no longer open.",
            dialog["id"].as_str().unwrap()
        )),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wait_that_runs_out_says_what_it_waited_for() {
    let (h, _app) = appear(300).await;
    let e = h
        .err(
            "wait_for_control",
            json!({"selector": {"text": "Never there"}, "timeout_s": 0.5}),
        )
        .await;
    assert_eq!(
        e,
        "No control matched \"Never there\" within 0.5 s. Check the selector with find_controls, or wait longer."
    );
    let ok = chosen(&find(&h, json!({"selector": {"text": "OK", "match": "exact"}})).await);
    let e = h
        .err(
            "wait_for_control",
            json!({"selector": {"text": "OK", "match": "exact"}, "timeout_s": 0.3, "gone": true}),
        )
        .await;
    assert_eq!(
        e,
        format!(
            "A control still matches \"OK\" (exact) after 0.3 s: {ok} button \"OK\" score=100."
        )
    );
}

/// Writes one JSON-RPC message as a line.
async fn send(w: &mut (impl tokio::io::AsyncWrite + Unpin), msg: Value) {
    w.write_all(format!("{msg}\n").as_bytes())
        .await
        .expect("the server reads");
}

/// Reads lines until the reply to request `id`.
async fn reply(lines: &mut (impl tokio::io::AsyncBufRead + Unpin), id: u64) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        let n = lines.read_line(&mut line).await.expect("the server writes");
        assert!(n > 0, "the server closed the connection");
        let v: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
        if v["id"] == id {
            return v;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_wait_answers_at_once_and_frees_the_server() {
    let (h, _app) = appear(300).await;
    // A second connection to the same server (the same session, window selected), spoken in
    // raw JSON-RPC so the server's reply to a cancelled request can be read.
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = h.server.clone();
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_io);
    let mut read = BufReader::new(read);
    send(
        &mut write,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
    )
    .await;
    reply(&mut read, 1).await;
    send(
        &mut write,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    send(
        &mut write,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "wait_for_control",
            "arguments": {"selector": {"text": "Never there"}, "timeout_s": 300}}}),
    )
    .await;
    until(|| h.server.waits_in_flight() == 1, "the wait to start").await;
    // The server keeps serving while the wait runs.
    let r = h
        .call("find_controls", json!({"selector": {"text": "OK"}}))
        .await;
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    send(
        &mut write,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 2, "reason": "the run was stopped"}}),
    )
    .await;
    // Without honouring the cancel the wait would go on for 300 s (rmcp drops the reply to a
    // cancelled request, so the count is what shows it).
    until(
        || h.server.waits_in_flight() == 0,
        "the cancelled wait to end",
    )
    .await;
    // A second wait on the first connection is answered as usual.
    let e = h
        .err(
            "wait_for_control",
            json!({"selector": {"text": "Never there"}, "timeout_s": 0}),
        )
        .await;
    assert!(e.starts_with("No control matched"), "{e}");
}

/// Waits (up to 60 s) until `done` holds.
async fn until(done: impl Fn() -> bool, what: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "waited 60 s for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn calculator_seven_times_eight_by_selectors_and_a_wait_on_the_display() {
    require_program("gnome-calculator", "gnome-calculator");
    let h = Harness::new().await;
    h.ok("launch_app", json!({"app": "gnome-calculator"})).await;
    h.select_app("gnome-calculator").await;
    for label in ["7", "×", "8", "="] {
        let a = find(
            &h,
            json!({"selector": {"text": label, "type": "button", "match": "exact"}}),
        )
        .await;
        let id = chosen(&a);
        assert_ne!(id, "none", "{label}: {a}");
        let r = h.ok("click_input", json!({"id": id, "name": label})).await;
        assert_eq!(r["effect"], "changed", "{label}: {r}");
    }
    // The display is an edit whose value is the result.
    let r = h
        .ok(
            "wait_for_control",
            json!({"selector": {"type": "edit", "text": "56", "match": "exact"}, "timeout_s": 10}),
        )
        .await;
    assert_eq!(r["control"]["value"], "56", "{r}");
    assert_eq!(r["control"]["on"], "value", "{r}");
}
