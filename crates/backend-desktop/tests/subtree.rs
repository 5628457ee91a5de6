//! `get_app_window_controls_info(subtree: id)`: only that control and its descendants, the header
//! counting the subtree; bad ids fail with the texts of an action on them.

mod common;

use std::time::Duration;

use common::{Harness, control_lines, find_id, header_counts};
use deft_test_support::desktop::{AppProcess, require_program};
use serde_json::json;

const T: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread")]
async fn form_app_subtree_lists_one_list_and_its_rows() {
    let h = Harness::new().await;
    let app = AppProcess::form_app(&h.env()).expect("form app starts");
    assert!(app.wait_record(T, |r| r["event"] == "ready").is_some());
    h.select_app("form_app.py").await;
    let whole = h.listing(json!({})).await;
    let items = find_id(&whole, "list", "Items").unwrap_or_else(|| panic!("{whole}"));
    let submit = find_id(&whole, "button", "Submit").unwrap();

    let part = h.listing(json!({"subtree": items})).await;
    let lines = control_lines(&part);
    assert!(
        part.starts_with("window 1 \"Deft Form\" app=\"form_app.py\" controls="),
        "{part}"
    );
    assert_eq!(lines[0], format!("{items} list \"Items\""), "{part}");
    // All 60 rows, and nothing from outside the list.
    assert_eq!(lines.len(), 61, "{part}");
    assert!(
        lines[1..].iter().all(|l| l.contains(" listitem \"Item ")),
        "{part}"
    );
    assert!(lines[60].contains("listitem \"Item 60\""), "{part}");
    assert!(!part.contains("Submit"), "{part}");
    // The header counts the subtree: the list is not interactive, its rows are.
    assert_eq!(header_counts(&part), (61, 60, 0), "{part}");

    // The same as JSON, narrowed further: the footers work as usual.
    let j = h
        .ok(
            "get_app_window_controls_info",
            json!({"subtree": items.parse::<u64>().unwrap(), "max_controls": 3, "format": "json"}),
        )
        .await;
    assert_eq!(j["counts"]["controls"], 61, "{j}");
    assert_eq!(j["counts"]["listed"], 3, "{j}");
    assert_eq!(j["omitted"][0]["reason"], "max_controls", "{j}");
    assert_eq!(j["omitted"][0]["count"], 58, "{j}");

    // A leaf: just the control.
    let leaf = h.listing(json!({"subtree": submit})).await;
    assert_eq!(
        leaf,
        format!(
            "window 1 \"Deft Form\" app=\"form_app.py\" controls=1 interactive=1 new=0\n{submit} button \"Submit\"\n"
        )
    );

    // Unknown id: the action's text, listing what exists.
    let e = h
        .err("get_app_window_controls_info", json!({"subtree": "999"}))
        .await;
    assert!(
        e.starts_with("Control id 999 is not in the control list of the selected window. Available control ids: 1, 2,"),
        "{e}"
    );
    assert_eq!(
        h.err("get_app_window_controls_info", json!({"subtree": true}))
            .await,
        "Invalid arguments: subtree must be a control id such as \"7\", got true"
    );

    // A vanished control: the refresh hint.
    let remove = find_id(&whole, "button", "Remove me").unwrap();
    h.ok("click_input", json!({"id": remove, "name": "Remove me"}))
        .await;
    assert!(app.wait_record(T, |r| r["event"] == "removed").is_some());
    let e = h
        .err("get_app_window_controls_info", json!({"subtree": remove}))
        .await;
    assert_eq!(
        e,
        format!(
            "Control {remove}: Remove me no longer exists in the window, please refresh the application state with get_app_window_controls_info to get the latest control ids."
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mousepad_menu_subtree_and_a_calculator_id() {
    require_program("gnome-calculator", "gnome-calculator");
    require_program("mousepad", "mousepad");
    let h = Harness::new().await;
    let calc = h.ok("launch_app", json!({"app": "gnome-calculator"})).await;
    let calc_id = calc["window"]["id"].as_str().unwrap().to_owned();
    h.select_app("gnome-calculator").await;
    let whole = h.listing(json!({})).await;
    // A named container without listed descendants: just itself, not interactive.
    let history = find_id(&whole, "group", "HistoryView").unwrap_or_else(|| panic!("{whole}"));
    let part = h.listing(json!({"subtree": history})).await;
    assert_eq!(
        part,
        format!(
            "window {calc_id} \"Calculator\" app=\"gnome-calculator\" controls=1 interactive=0 new=0\n{history} group \"HistoryView\"\n"
        )
    );

    h.ok("launch_app", json!({"app": "mousepad"})).await;
    h.select_app("mousepad").await;
    let whole = h.listing(json!({})).await;
    let file = find_id(&whole, "menuitem", "File").unwrap_or_else(|| panic!("{whole}"));
    // Another window's id fails as an action on it would.
    let e = h
        .err("get_app_window_controls_info", json!({"subtree": history}))
        .await;
    assert_eq!(
        e,
        format!(
            "Control {history} belongs to window {calc_id} (\"Calculator\"), not the selected window; select it first with select_application_window."
        )
    );
    // The open File menu: the menu and its items, nothing of the other menus or the document.
    h.ok("click_input", json!({"id": file, "name": "File"}))
        .await;
    let part = h.listing(json!({"subtree": file})).await;
    let lines = control_lines(&part);
    assert!(
        lines[0].starts_with(&format!("{file} menuitem \"File\"")),
        "{part}"
    );
    assert!(lines.len() >= 5, "{part}");
    assert!(
        lines[1..].iter().all(|l| matches!(
            l.trim_start_matches('*').split(' ').nth(1),
            Some("menuitem" | "menu")
        )),
        "{part}"
    );
    assert!(find_id(&part, "menuitem", "Save").is_some(), "{part}");
    assert!(find_id(&part, "menuitem", "Edit").is_none(), "{part}");
    assert!(!part.contains(" edit "), "{part}");
    // Counts are those of the subtree; every new item is counted, and marked unless all are
    // (then the header's new = controls says it once).
    let (controls, interactive, new) = header_counts(&part);
    assert_eq!(
        (controls, interactive),
        (lines.len(), lines.len()),
        "{part}"
    );
    let marked = lines.iter().filter(|l| l.starts_with('*')).count();
    assert!(marked == new || (new == controls && marked == 0), "{part}");
    assert!(new >= 4, "{part}");
    h.ok(
        "keyboard_input",
        json!({"keys": "{ESC}", "control_focus": false}),
    )
    .await;
}
