//! Start, tabs as windows, navigation, page text and teardown on a real headless Chromium.

mod common;

use common::{Harness, all_text};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_navigation_page_text_and_teardown() {
    let h = Harness::start().await;
    let first = the_first_tab_is_selected(&h).await;
    a_page_opens_and_its_text_is_read(&h).await;
    history_goes_back_forward_and_reloads(&h).await;
    a_second_tab_gets_new_ids_and_closes(&h, &first).await;
    assert!(
        h.shutdown().await,
        "Chromium's process group outlived the server"
    );
}

/// The browser starts with one blank tab; it is selected. Returns its window id.
async fn the_first_tab_is_selected(h: &Harness) -> String {
    let tabs = h
        .ok("get_desktop_app_info", json!({"remove_empty": false}))
        .await;
    let windows = tabs["windows"].as_array().expect("windows").clone();
    assert_eq!(windows.len(), 1, "{tabs}");
    assert_eq!(windows[0]["type"], "page");
    assert_eq!(windows[0]["app"], "about");
    let first = windows[0]["id"].as_str().expect("id").to_owned();

    let sel = h
        .ok(
            "select_application_window",
            json!({"id": first, "name": "about:blank"}),
        )
        .await;
    assert_eq!(sel["root_name"], "about", "{sel}");
    first
}

/// Navigating reports the page; its text is read whole or cut at max_chars.
async fn a_page_opens_and_its_text_is_read(h: &Harness) {
    let nav = h
        .ok("navigate", json!({"url": h.pages.url("form.html")}))
        .await;
    assert_eq!(nav["root_name"], "127.0.0.1", "{nav}");
    assert_eq!(nav["window_info"]["name"], "Order form");
    assert!(nav["settle_ms"].is_u64());

    let text = h.page_text().await;
    assert!(
        text.contains("New order") && text.contains("Go to the table"),
        "{text}"
    );
    let cut = h.call("get_page_text", json!({"max_chars": 5})).await;
    let cut = all_text(&cut);
    assert!(cut.starts_with("New o\n… "), "{cut}");
    assert!(
        cut.contains(" more characters not shown (max_chars=5). Ask again with max_chars=")
            && cut.ends_with(" to read everything."),
        "{cut}"
    );
}

/// Back, forward (and the end of history), an unreachable page, reload.
async fn history_goes_back_forward_and_reloads(h: &Harness) {
    h.ok("navigate", json!({"url": h.pages.url("table.html")}))
        .await;
    let back = h.ok("go_back", json!({})).await;
    assert_eq!(back["window_info"]["name"], "Order form", "{back}");
    let fwd = h.ok("go_forward", json!({})).await;
    assert_eq!(fwd["window_info"]["name"], "Inventory", "{fwd}");
    let err = h.fails("go_forward", json!({})).await;
    assert_eq!(
        err,
        "There is no page to go forward to in this tab's history."
    );
    // A page that cannot be reached is an error that says why.
    let dead = format!("http://127.0.0.1:{}/", deft_test_support::net::free_port());
    let err = h.fails("navigate", json!({"url": dead})).await;
    assert_eq!(
        err,
        format!(
            "Navigating to {dead} failed: net::ERR_CONNECTION_REFUSED. Check the address and try again."
        )
    );
    h.ok("go_back", json!({})).await;
    let rel = h.ok("reload", json!({})).await;
    assert_eq!(rel["window_info"]["name"], "Inventory");
}

/// A second tab next to window `first`: selected, named by its host, closed; ids never reused.
async fn a_second_tab_gets_new_ids_and_closes(h: &Harness, first: &str) {
    // A second tab: new ids, selected; the cross-site host is its root.
    let tab2 = h
        .ok(
            "new_tab",
            json!({"url": h.pages.cross_site_url("dialog.html")}),
        )
        .await;
    assert_eq!(tab2["root_name"], "localhost", "{tab2}");
    let id2 = tab2["window_info"]["id"].as_str().expect("id").to_owned();
    assert_ne!(id2, first);
    let tabs = h.ok("get_desktop_app_info", json!({})).await;
    assert_eq!(tabs["windows"].as_array().map(Vec::len), Some(2), "{tabs}");

    // Name mismatch is a warning, not a failure.
    let sel = h
        .ok(
            "select_application_window",
            json!({"id": first, "name": "Wrong"}),
        )
        .await;
    assert_eq!(
        sel["warning"],
        format!(
            "Warning: window {first} is named \"Inventory\", not \"Wrong\"; it was selected by its id."
        )
    );
    let closed = h.ok("close_tab", json!({"id": id2})).await;
    assert_eq!(
        closed["windows"].as_array().map(Vec::len),
        Some(1),
        "{closed}"
    );
    // A closed tab's id is never reused and is reported as unknown.
    let err = h
        .fails("select_application_window", json!({"id": id2}))
        .await;
    assert_eq!(
        err,
        format!(
            "Window id '{id2}' does not exist (open tabs: {first}). Call get_desktop_app_info to refresh the list."
        )
    );
    let err = h
        .fails("select_application_window", json!({"id": "07"}))
        .await;
    assert!(err.starts_with("'07' is not a window id"), "{err}");
    let tab3 = h.ok("new_tab", json!({})).await;
    let id3: u64 = tab3["window_info"]["id"]
        .as_str()
        .expect("id")
        .parse()
        .expect("number");
    assert!(
        id3 > id2.parse::<u64>().expect("number"),
        "ids are never reused: {tab3}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_before_selecting_a_tab_say_what_to_do() {
    let h = Harness::start().await;
    let no_window =
        "No window selected. Call get_desktop_app_info and select_application_window first.";
    assert_eq!(
        h.fails("get_app_window_controls_info", json!({})).await,
        no_window
    );
    assert_eq!(
        h.fails("capture_window_screenshot", json!({})).await,
        no_window
    );
    assert_eq!(
        h.fails("click_input", json!({"id": "1", "name": "x"}))
            .await,
        no_window
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_chromium_is_a_clear_error_naming_the_package() {
    let h = Harness::with_options(json!({"chromium": "/nonexistent/chromium"})).await;
    let err = h.fails("get_desktop_app_info", json!({})).await;
    assert_eq!(
        err,
        "The browser is not available: Chromium was not found (looked for /nonexistent/chromium). \
         Install Debian's package with `apt-get install -y chromium`, or set DEFT_CHROMIUM to the browser's path."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attaches_to_a_running_browser_by_cdp_url_and_leaves_it_running() {
    common::require_chromium();
    let program = deft_backend_browser::launch::find_chromium(None).expect("chromium");
    let mut running = deft_backend_browser::ChromiumProcess::start(&program, &[])
        .await
        .expect("chromium starts");
    // http://host:port form: the server reads /json/version for the socket.
    let port = running
        .ws_url()
        .trim_start_matches("ws://")
        .split(['/', ':'])
        .nth(1)
        .expect("port")
        .to_owned();
    let h = Harness::with_options(json!({"cdp_url": format!("http://127.0.0.1:{port}")})).await;
    let nav = h.open("form.html").await;
    assert_eq!(nav["window_info"]["name"], "Order form", "{nav}");
    let browser = h.server.browser().await.expect("attached");
    assert_eq!(
        browser.process_group(),
        None,
        "an attached browser is not ours to stop"
    );
    let Harness {
        pages,
        server,
        client,
    } = h;
    let _ = client.cancel().await;
    drop((server, pages));
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(
        deft_test_support::proc::is_alive(running.pgid()),
        "the attached browser must keep running"
    );
    running.stop().await;
    let pgid = running.pgid();
    let gone = tokio::task::spawn_blocking(move || {
        deft_test_support::proc::wait_group_gone(pgid, std::time::Duration::from_secs(10))
    })
    .await
    .unwrap_or(false);
    assert!(gone, "stop() takes the whole process group down");

    let err = Harness::with_options(json!({"cdp_url": "ftp://x"})).await;
    let text = err.fails("get_desktop_app_info", json!({})).await;
    assert_eq!(
        text,
        "The browser is not available: cannot attach to the browser at ftp://x: expected ws://… or http://host:port"
    );
}
