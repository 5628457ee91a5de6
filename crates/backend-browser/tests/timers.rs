//! Settling waits for what an action's own handlers start (issue 14, part 2): a debounced
//! autocomplete's menu, a panel a timer reveals and a transition fades in; a page's own periodic
//! timers (a clock, a carousel) do not hold it; `settle_timers_ms` bounds which timers count.
//! No test sleeps: the observation right after the action must already show the outcome.

mod common;

use common::{Harness, tokens};
use serde_json::json;

/// The cap of one action's settling (`SETTLE_CAP_MS`).
const SETTLE_CAP_MS: u64 = 3000;

/// An action result's `settle_ms`.
fn settle_ms(r: &serde_json::Value) -> u64 {
    r["settle_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("no settle_ms in {r}"))
}

/// Asserts that action result `r` settled after a timer of `ms` the action started, and before
/// the cap. Settling starts a few milliseconds after the input that started the timer.
fn waited_for(r: &serde_json::Value, ms: u64) {
    let s = settle_ms(r);
    assert!(s + 50 >= ms, "settle_ms {s} < {ms}: {r}");
    assert!(s < SETTLE_CAP_MS, "settle_ms {s} reached the cap: {r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_into_a_debounced_autocomplete_returns_with_its_menu_open() {
    let h = Harness::start().await;
    h.open("autocomplete.html").await;
    let l = h.listing(json!({})).await;
    let city = Harness::id_of(&l, "combobox", "City");
    let r = h
        .ok(
            "set_edit_text",
            json!({"id": city, "name": "City", "text": "Ber"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    // The menu opens 300 ms after the last keystroke; settling waited for it.
    waited_for(&r, 300);
    let l = h.listing(json!({})).await;
    eprintln!("after typing (settle {} ms):\n{l}", settle_ms(&r));
    assert!(
        l.contains(&format!(
            "{city} combobox \"City\" = \"Ber\" focused expanded"
        )),
        "{l}"
    );
    for c in ["Berlin", "Bern", "Bergen"] {
        assert!(l.contains(&format!(" listitem \"{c}\"")), "{c} in:\n{l}");
    }
    assert!(!l.contains("\"Bordeaux\""), "{l}");
    let budget = 110;
    assert!(tokens(&l) <= budget, "{} tokens > {budget}", tokens(&l));
    // Typing on narrows the menu, again waiting for the debounce.
    let r = h
        .ok(
            "keyboard_input",
            json!({"id": city, "name": "City", "keys": "{END}n"}),
        )
        .await;
    waited_for(&r, 300);
    let l = h.listing(json!({})).await;
    assert!(
        l.contains(" listitem \"Bern\"") && !l.contains("\"Berlin\""),
        "{l}"
    );
    let bern = Harness::id_of(&l, "listitem", "Bern");
    h.ok("click_input", json!({"id": bern, "name": "Bern"}))
        .await;
    let l = h.listing(json!({})).await;
    assert!(l.contains("text \"Trip to Bern.\""), "{l}");
    assert!(
        l.contains(&format!("{city} combobox \"City\" = \"Bern\"")),
        "{l}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panel_revealed_by_a_timer_and_a_transition_is_ready_when_the_click_returns() {
    let h = Harness::start().await;
    h.open("timed_panel.html").await;
    let l = h.listing(json!({})).await;
    let details = Harness::id_of(&l, "button", "Show details");
    let r = h
        .ok(
            "click_input",
            json!({"id": details, "name": "Show details"}),
        )
        .await;
    // 400 ms timer, a frame, a 300 ms transition: the button is enabled when it has ended.
    waited_for(&r, 700);
    let l = h.listing(json!({})).await;
    eprintln!("after the click (settle {} ms):\n{l}", settle_ms(&r));
    let confirm = Harness::id_of(&l, "button", "Confirm order");
    assert!(
        l.contains(&format!("*{confirm} button \"Confirm order\"\n")),
        "new and enabled:\n{l}"
    );
    assert!(
        l.contains("text \"Two pairs of walking boots, delivered on Thursday.\""),
        "{l}"
    );
    assert!(tokens(&l) <= 80, "{} tokens:\n{l}", tokens(&l));
    h.ok(
        "click_input",
        json!({"id": confirm, "name": "Confirm order"}),
    )
    .await;
    assert!(
        h.listing(json!({}))
            .await
            .contains("text \"Order confirmed.\"")
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pages_clock_and_carousel_do_not_hold_settling_but_the_clicks_own_timer_does() {
    let h = Harness::start().await;
    h.open("clock.html").await;
    let l = h.listing(json!({})).await;
    let save = Harness::id_of(&l, "button", "Save layout");
    let slow = Harness::id_of(&l, "button", "Save slowly");
    for round in 1..=3 {
        let r = h
            .ok("click_input", json!({"id": save, "name": "Save layout"}))
            .await;
        eprintln!("save, round {round}: settle {} ms", settle_ms(&r));
        // Its own 200 ms timer holds settling; the clock and the carousel never did.
        waited_for(&r, 200);
        let l = h.listing(json!({})).await;
        assert!(l.contains("text \"Layout saved.\""), "{l}");
        assert!(tokens(&l) <= 80, "{} tokens:\n{l}", tokens(&l));
    }
    // A 2 s timer is longer than settle_timers_ms (1000 by default): not waited for.
    let r = h
        .ok("click_input", json!({"id": slow, "name": "Save slowly"}))
        .await;
    eprintln!("save slowly: settle {} ms", settle_ms(&r));
    assert!(settle_ms(&r) < 2000, "{r}");
    let l = h.listing(json!({})).await;
    assert!(l.contains("text \"Saving slowly…\""), "{l}");
    // Loops the click starts (a frame loop, a poll) hold it for settle_timers_ms at most.
    let watch = Harness::id_of(&l, "button", "Watch prices");
    let r = h
        .ok("click_input", json!({"id": watch, "name": "Watch prices"}))
        .await;
    eprintln!("watch prices: settle {} ms", settle_ms(&r));
    assert!(settle_ms(&r) < SETTLE_CAP_MS, "{r}");
    assert!(
        h.listing(json!({}))
            .await
            .contains("text \"Watching prices.\"")
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settle_timers_ms_decides_which_timers_an_action_waits_for() {
    let h = Harness::with_options(json!({"settle_timers_ms": 2500})).await;
    h.open("clock.html").await;
    let l = h.listing(json!({})).await;
    let slow = Harness::id_of(&l, "button", "Save slowly");
    let r = h
        .ok("click_input", json!({"id": slow, "name": "Save slowly"}))
        .await;
    waited_for(&r, 2000);
    assert!(
        h.listing(json!({}))
            .await
            .contains("text \"Layout saved slowly.\"")
    );
    assert!(h.shutdown().await);
    let bad =
        deft_backend_browser::BrowserConfig::from_options(&json!({"settle_timers_ms": "a while"}))
            .expect_err("a number of milliseconds");
    assert!(
        bad.starts_with("invalid options for the browser server: invalid type: string \"a while\""),
        "{bad}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clickables_and_timers_work_in_same_and_cross_site_frames() {
    let h = Harness::start().await;
    h.open("framed_widgets.html").await;
    let l = h.listing(json!({})).await;
    let ids = |kind: &str, name: &str| -> Vec<String> {
        let needle = format!(" {kind} \"{name}\"");
        l.lines()
            .filter(|x| x.ends_with(&needle) || x.contains(&format!("{needle} ")))
            .filter_map(|x| {
                x.trim_start_matches('*')
                    .split(' ')
                    .next()
                    .map(str::to_owned)
            })
            .collect()
    };
    let maps = ids("button", "open the map");
    let checks = ids("button", "Check stock");
    assert_eq!(
        (maps.len(), checks.len()),
        (2, 2),
        "one of each per frame:\n{l}"
    );
    for (frame, (map, check)) in ["same", "cross"].iter().zip(maps.iter().zip(&checks)) {
        h.ok("click_input", json!({"id": map, "name": "open the map"}))
            .await;
        assert!(
            h.listing(json!({}))
                .await
                .contains(&format!("text \"Map open ({frame}).\"")),
            "{frame}"
        );
        let r = h
            .ok("click_input", json!({"id": check, "name": "Check stock"}))
            .await;
        waited_for(&r, 300);
        let l = h.listing(json!({})).await;
        assert!(
            l.contains(&format!("text \"In stock ({frame}).\"")),
            "{frame}:\n{l}"
        );
    }
    assert!(h.shutdown().await);
}
