//! Third-party applications on a private managed desktop: gnome-calculator (GTK4) and mousepad
//! (GTK3), started with `launch_app`.

mod common;

use common::{Harness, find_id, text_of};
use deft_test_support::desktop::require_program;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn calculator_twelve_times_seven_is_84() {
    require_program("gnome-calculator", "gnome-calculator");
    let h = Harness::new().await;
    let w = h.ok("launch_app", json!({"app": "gnome-calculator"})).await;
    assert_eq!(w["window"]["app"], "gnome-calculator", "{w}");
    h.select_app("gnome-calculator").await;
    let listing = h.listing(json!({})).await;
    for label in ["1", "2", "×", "7", "="] {
        let id = find_id(&listing, "button", label)
            .unwrap_or_else(|| panic!("no button {label:?} in\n{listing}"));
        let r = h.ok("click_input", json!({"id": id, "name": label})).await;
        assert_eq!(r["effect"], "changed", "{label}: {r}");
        assert_eq!(r["via"], "pointer");
    }
    let after = h.listing(json!({})).await;
    let display = after
        .lines()
        .find(|l| l.contains(" edit ") && l.contains(" focused"))
        .or_else(|| after.lines().find(|l| l.contains(" edit ")))
        .unwrap_or_else(|| panic!("no display edit in\n{after}"));
    assert!(display.contains("= \"84\""), "display: {display}\n{after}");
    let id = display.trim_start_matches('*').split(' ').next().unwrap();
    let name = display.split('"').nth(1).unwrap_or_default();
    let t = h.call("texts", json!({"id": id, "name": name})).await;
    assert_eq!(text_of(&t), "84");
}

#[tokio::test(flavor = "multi_thread")]
async fn mousepad_keeps_non_ascii_text_set_and_typed() {
    require_program("mousepad", "mousepad");
    let h = Harness::new().await;
    let w = h.ok("launch_app", json!({"app": "mousepad"})).await;
    assert_eq!(w["window"]["app"], "mousepad", "{w}");
    h.select_app("mousepad").await;
    let listing = h.listing(json!({})).await;
    let tokens = tiktoken_rs::cl100k_base()
        .expect("cl100k tables")
        .encode_with_special_tokens(&listing)
        .len();
    assert!(
        tokens <= 2000,
        "listing costs {tokens} cl100k tokens:\n{listing}"
    );
    let doc = listing
        .lines()
        .find(|l| l.contains(" edit "))
        .unwrap_or_else(|| panic!("no document edit in\n{listing}"));
    let id = doc
        .trim_start_matches('*')
        .split(' ')
        .next()
        .unwrap()
        .to_owned();
    let name = doc.split('"').nth(1).unwrap_or_default().to_owned();
    let first = "Grüße aus 苏州, café ß";
    let r = h
        .ok(
            "set_edit_text",
            json!({"id": id, "name": name, "text": first}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let r = h
        .ok(
            "keyboard_input",
            json!({"id": id, "name": name, "keys": "^{END}{ENTER}Zoë 東京 — ñ!"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let want = format!("{first}\nZoë 東京 — ñ!");
    assert_eq!(h.text_until(&id, &name, &want).await, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_apps_switching_windows_changes_root_and_scopes_ids() {
    require_program("gnome-calculator", "gnome-calculator");
    require_program("mousepad", "mousepad");
    let h = Harness::new().await;
    let calc = h.ok("launch_app", json!({"app": "gnome-calculator"})).await;
    let pad = h.ok("launch_app", json!({"app": "mousepad"})).await;
    let calc_id = calc["window"]["id"].as_str().unwrap().to_owned();
    let pad_id = pad["window"]["id"].as_str().unwrap().to_owned();
    assert_ne!(calc_id, pad_id);
    let list = h.ok("get_desktop_app_info", json!({})).await;
    let apps: Vec<&str> = list["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["app"].as_str().unwrap())
        .collect();
    assert!(
        apps.contains(&"gnome-calculator") && apps.contains(&"mousepad"),
        "{list}"
    );

    let sel = h
        .ok(
            "select_application_window",
            json!({"id": calc_id, "name": calc["window"]["name"]}),
        )
        .await;
    assert_eq!(sel["root_name"], "gnome-calculator");
    let calc_listing = h.listing(json!({})).await;
    let seven = find_id(&calc_listing, "button", "7").unwrap();

    let sel = h
        .ok(
            "select_application_window",
            json!({"id": pad_id, "name": pad["window"]["name"]}),
        )
        .await;
    assert_eq!(sel["root_name"], "mousepad");
    h.listing(json!({})).await;
    let e = h
        .err("click_input", json!({"id": seven, "name": "7"}))
        .await;
    assert_eq!(
        e,
        format!(
            "Control {seven} belongs to window {calc_id} (\"Calculator\"), not the selected window; select it first with select_application_window."
        )
    );
    // A wrong window name still selects by id, with the warning.
    let sel = h
        .ok(
            "select_application_window",
            json!({"id": calc_id, "name": "Calc"}),
        )
        .await;
    assert_eq!(
        sel["warning"],
        format!(
            "Warning: The name of your chosen control id {calc_id} is Calculator, but the name argument is Calc. The action is performed on control {calc_id}:Calculator."
        )
    );
    let r = h.ok("click_input", json!({"id": seven, "name": "7"})).await;
    assert_eq!(r["effect"], "changed");
    let e = h.err("launch_app", json!({"app": "rm"})).await;
    assert!(
        e.starts_with("Cannot launch \"rm\": it is neither an installed desktop application"),
        "{e}"
    );
}
