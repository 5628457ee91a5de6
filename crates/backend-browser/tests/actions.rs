//! Actions with real input events (the fixture pages record `event.isTrusted`), validation,
//! settling on XHR, dialogs, frames and shadow roots.

mod common;

use common::Harness;
use serde_json::json;

/// The fixture's event log line: all events trusted, at least `min` of them.
fn assert_trusted(text: &str, min: usize) {
    let line = text
        .lines()
        .find(|l| l.starts_with("events="))
        .unwrap_or_else(|| panic!("no event log in:\n{text}"));
    let n: usize = line
        .trim_start_matches("events=")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(n >= min, "expected at least {min} events: {line}");
    assert!(
        line.contains(" untrusted=0 "),
        "every event must be trusted: {line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_is_filled_with_trusted_input_and_submitted() {
    let h = Harness::start().await;
    h.open("form.html").await;
    let f = Form::listed(&h).await;
    the_form_is_filled(&h, &f).await;
    controls_that_do_not_take_the_action_say_so(&h, &f).await;
    the_form_is_submitted_with_trusted_input(&h, &f).await;
    keys_with_modifiers_edit_the_name(&h, &f.name).await;
    assert!(h.shutdown().await);
}

/// The ids of the form page's controls.
struct Form {
    name: String,
    notes: String,
    color: String,
    agree: String,
    large: String,
    submit: String,
}

impl Form {
    async fn listed(h: &Harness) -> Form {
        let l = h.listing(json!({})).await;
        Form {
            name: Harness::id_of(&l, "edit", "Name"),
            notes: Harness::id_of(&l, "edit", "Notes"),
            color: Harness::id_of(&l, "combobox", "Color"),
            agree: Harness::id_of(&l, "checkbox", "I agree"),
            large: Harness::id_of(&l, "radio", "Large"),
            submit: Harness::id_of(&l, "button", "Submit"),
        }
    }
}

/// Text replaced and appended, keys typed, an option chosen.
async fn the_form_is_filled(h: &Harness, f: &Form) {
    let Form {
        name, notes, color, ..
    } = f;
    let r = h
        .ok(
            "set_edit_text",
            json!({"id": name, "name": "Name", "text": "Zoë Ünal 漢字"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(r["settle_ms"].is_u64(), "{r}");
    // Replace by default, append on request.
    h.ok(
        "set_edit_text",
        json!({"id": name, "name": "Name", "text": "Ada"}),
    )
    .await;
    h.ok(
        "set_edit_text",
        json!({"id": name, "name": "Name", "text": " Lovelace", "clear_current_text": false}),
    )
    .await;
    h.ok(
        "keyboard_input",
        json!({"id": notes, "name": "Notes", "keys": "Hi{!}{ENTER}+x"}),
    )
    .await
    .to_string();
    h.ok(
        "select_option",
        json!({"id": color, "name": "Color", "option": "Green"}),
    )
    .await;
}

/// A missing option, a select on a checkbox and text into a checkbox fail with their texts.
async fn controls_that_do_not_take_the_action_say_so(h: &Harness, f: &Form) {
    let Form { color, agree, .. } = f;
    let err = h
        .fails(
            "select_option",
            json!({"id": color, "name": "Color", "option": "Purple"}),
        )
        .await;
    assert_eq!(
        err,
        format!(
            "Control {color} has no option \"Purple\". Its options: \"Red\", \"Green\", \"Blue\"."
        )
    );
    let err = h
        .fails(
            "select_option",
            json!({"id": agree, "name": "I agree", "option": "x"}),
        )
        .await;
    assert_eq!(
        err,
        format!(
            "Control {agree} (\"I agree\") is a checkbox, not a select list. Use click_input on it, or list the controls again."
        )
    );
    let err = h
        .fails(
            "set_edit_text",
            json!({"id": agree, "name": "I agree", "text": "x"}),
        )
        .await;
    assert_eq!(
        err,
        format!(
            "Control {agree} (\"I agree\") is a checkbox, which does not take text. Use click_input, select_option or keyboard_input instead."
        )
    );
}

/// Clicks (one under a wrong name, which warns), then the page and the listing show it all.
async fn the_form_is_submitted_with_trusted_input(h: &Harness, f: &Form) {
    let Form {
        color,
        agree,
        large,
        submit,
        ..
    } = f;
    h.ok("click_input", json!({"id": agree, "name": "I agree"}))
        .await;
    h.ok("click_input", json!({"id": large, "name": "Large"}))
        .await;
    // id is authority, name is a check: a wrong name acts and warns.
    let r = h
        .ok("click_input", json!({"id": submit, "name": "Send"}))
        .await;
    assert_eq!(r["effect"], "changed");
    assert_eq!(
        r["warning"],
        format!(
            "Warning: control {submit} is the button \"Submit\", not \"Send\"; the action was done on control {submit} by its id."
        )
    );
    let text = h.page_text().await;
    assert!(
        text.contains("Hello, Ada Lovelace (Green, large, agreed) notes: Hi! X"),
        "{text}"
    );
    assert_trusted(&text, 5);
    let l = h.listing(json!({})).await;
    assert!(
        l.contains(&format!("{agree} checkbox \"I agree\" checked")),
        "{l}"
    );
    assert!(
        l.contains(&format!("{large} radio \"Large\" checked")),
        "{l}"
    );
    assert!(
        l.contains(&format!("{color} combobox \"Color\" = \"Green\" collapsed")),
        "{l}"
    );
    assert!(l.contains("\"Ada Lovelace\""), "{l}");
}

/// Bad keys are refused; Ctrl+A, arrows, held modifiers and Ctrl+End edit field `name`.
async fn keys_with_modifiers_edit_the_name(h: &Harness, name: &str) {
    // Bad keys are refused before anything is typed.
    let err = h.fails("keyboard_input", json!({"keys": "{NOPE}"})).await;
    assert!(
        err.starts_with("The keys could not be typed: Unknown key '{NOPE}'"),
        "{err}"
    );
    // Modifier combinations: Ctrl+A selects the field's text, typing replaces it.
    h.ok(
        "keyboard_input",
        json!({"id": name, "name": "Name", "keys": "^aGrace{LEFT 5}{DELETE}g"}),
    )
    .await;
    let l = h.listing(json!({})).await;
    assert!(
        l.contains(&format!(
            "{name} edit \"Name\" = \"grace\" focused required"
        )),
        "{l}"
    );
    // A modifier held across keys: Shift upper-cases, Ctrl+End moves past the text.
    h.ok(
        "keyboard_input",
        json!({"id": name, "name": "Name", "keys": "{HOME}{VK_SHIFT down}h{VK_SHIFT up}{DELETE}^{END}{VK_SHIFT down}!{VK_SHIFT up}"}),
    )
    .await;
    let l = h.listing(json!({})).await;
    assert!(
        l.contains(&format!("{name} edit \"Name\" = \"Hrace!\"")),
        "{l}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_table_row_is_clicked_after_scrolling_and_wheel_and_coordinates_work() {
    let h = Harness::start().await;
    h.open("table.html").await;
    let l = h.listing(json!({})).await;
    let edit150 = Harness::id_of(&l, "button", "Edit 150");
    let r = h
        .ok("click_input", json!({"id": edit150, "name": "Edit 150"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let text = h.page_text().await;
    assert!(
        text.contains("Editing item 150"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert_trusted(&text, 1);
    assert!(
        text.contains("last=click:true:Edit 150"),
        "{}",
        &text[..300.min(text.len())]
    );
    // The wheel scrolls the page; a click on coordinates lands where the viewport says.
    let r = h.ok("wheel_mouse_input", json!({"wheel_dist": 100})).await;
    assert_eq!(r["effect"], "changed", "the page scrolled up: {r}");
    let r = h.ok("wheel_mouse_input", json!({"wheel_dist": 5})).await;
    assert_eq!(
        r["effect"], "no_change",
        "at the top, scrolling up moves nothing: {r}"
    );
    let err = h
        .fails("click_on_coordinates", json!({"x": 1.5, "y": 0.5}))
        .await;
    assert_eq!(
        err,
        "x=1.5 is outside the window: coordinates are fractions of the tab's viewport, from 0.0 (left/top) to 1.0 (right/bottom)."
    );
    h.ok("click_on_coordinates", json!({"x": 0.5, "y": 0.5}))
        .await;
    h.ok(
        "drag_on_coordinates",
        json!({"start_x": 0.1, "start_y": 0.1, "end_x": 0.3, "end_y": 0.2}),
    )
    .await;
    let text = h.page_text().await;
    assert_trusted(&text, 2);
    assert!(!text.contains("mousedown with"), "{text}");
    h.ok(
        "drag_on_coordinates",
        json!({"start_x": 0.1, "start_y": 0.1, "end_x": 0.3, "end_y": 0.2, "key_hold": "ctrl"}),
    )
    .await;
    let text = h.page_text().await;
    assert!(text.contains("mousedown with ctrl trusted=true"), "{text}");
    let e = h
        .fails(
            "drag_on_coordinates",
            json!({"start_x": 0.1, "start_y": 0.1, "end_x": 0.3, "end_y": 0.2, "key_hold": "hyper"}),
        )
        .await;
    assert_eq!(
        e,
        "Unknown key_hold \"hyper\": use \"ctrl\", \"shift\" or \"alt\"."
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controls_in_frames_and_shadow_roots_are_actionable() {
    let h = Harness::start().await;
    h.open("frames.html").await;
    let l = h.listing(json!({})).await;
    // The second click moves no focus: only the frame's (or shadow tree's) own DOM changes,
    // and `effect` must still see it.
    for name in ["Same frame button", "Cross frame button", "Shadow button"] {
        let id = Harness::id_of(&l, "button", name);
        for round in 1..=2 {
            let r = h.ok("click_input", json!({"id": id, "name": name})).await;
            assert_eq!(r["effect"], "changed", "{name}, click {round}: {r}");
        }
    }
    let fields: Vec<String> = l
        .lines()
        .filter(|x| x.contains("edit \"Frame field\""))
        .filter_map(|x| x.split(' ').next().map(str::to_owned))
        .collect();
    assert_eq!(fields.len(), 2, "{l}");
    // A value typed into a frame's field changes no DOM: the form state of frames counts.
    for field in &fields {
        for text in ["abc", "über"] {
            let r = h
                .ok(
                    "set_edit_text",
                    json!({"id": field, "name": "Frame field", "text": text}),
                )
                .await;
            assert_eq!(r["effect"], "changed", "{field} <- {text}: {r}");
        }
    }
    let text = h.page_text().await;
    assert!(text.contains("same clicked trusted=true"), "{text}");
    assert!(text.contains("cross clicked trusted=true"), "{text}");
    assert!(text.contains("Shadow clicked"), "{text}");
    let l = h.listing(json!({})).await;
    assert!(
        fields
            .iter()
            .all(|f| l.contains(&format!("{f} edit \"Frame field\" = \"über\""))),
        "{l}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabled_and_hidden_controls_are_refused() {
    let h = Harness::start().await;
    h.open("states.html").await;
    let l = h.listing(json!({})).await;
    let disabled = Harness::id_of(&l, "button", "Disabled button");
    assert!(
        l.contains(&format!("{disabled} button \"Disabled button\" disabled")),
        "{l}"
    );
    let target = Harness::id_of(&l, "button", "Target button");
    let hide = Harness::id_of(&l, "button", "Hide target");
    let err = h
        .fails(
            "click_input",
            json!({"id": disabled, "name": "Disabled button"}),
        )
        .await;
    assert_eq!(
        err,
        format!(
            "Control {disabled} (\"Disabled button\") is disabled, so it cannot be operated. Please refresh the application state, complete what enables it first, or pick another control."
        )
    );
    h.ok("click_input", json!({"id": hide, "name": "Hide target"}))
        .await;
    let err = h
        .fails(
            "click_input",
            json!({"id": target, "name": "Target button"}),
        )
        .await;
    assert_eq!(
        err,
        format!(
            "Control {target} (\"Target button\") is not visible now, so it cannot be operated. Please refresh the application state with get_app_window_controls_info and pick a visible control."
        )
    );
    assert!(h.page_text().await.contains("idle"), "nothing was clicked");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settling_waits_for_the_xhr_answer() {
    let h = Harness::start().await;
    h.open("xhr.html").await;
    let l = h.listing(json!({})).await;
    let load = Harness::id_of(&l, "button", "Load data");
    let r = h
        .ok("click_input", json!({"id": load, "name": "Load data"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    // No sleep here: the very next observation sees what the XHR brought.
    let l = h.listing(json!({})).await;
    assert!(l.contains("text \"Loaded 42 items\""), "{l}");
    let use_data = Harness::id_of(&l, "button", "Use data");
    assert!(
        l.contains(&format!("*{use_data} button \"Use data\"")),
        "{l}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_to_a_slow_page_settles_on_the_new_page() {
    let h = Harness::start().await;
    h.open("links.html").await;
    let l = h.listing(json!({})).await;
    let slow = Harness::id_of(&l, "link", "Slow order form");
    let r = h
        .ok(
            "click_input",
            json!({"id": slow, "name": "Slow order form"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(r["settle_ms"].as_u64().unwrap_or(0) >= 300, "{r}");
    // The old page stays up while the next one is fetched; the result waits for the new one.
    let l = h.listing(json!({})).await;
    assert!(l.contains("New order"), "{l}");
    assert!(!l.contains("Slow order form"), "{l}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogs_are_reported_and_handled() {
    let h = Harness::start().await;
    h.open("dialog.html").await;
    let l = h.listing(json!({})).await;
    let alert = Harness::id_of(&l, "button", "Show alert");
    let confirm = Harness::id_of(&l, "button", "Ask confirm");
    let r = h
        .ok("click_input", json!({"id": alert, "name": "Show alert"}))
        .await;
    assert_eq!(r["dialog"]["type"], "alert", "{r}");
    assert_eq!(r["dialog"]["message"], "Hello from the alert");
    let blocked = "A alert dialog is open on this tab: \"Hello from the alert\". Call handle_dialog(accept, text?) before doing anything else on the page.";
    assert_eq!(
        h.fails("get_app_window_controls_info", json!({})).await,
        blocked
    );
    assert_eq!(
        h.fails("click_input", json!({"id": confirm, "name": "Ask confirm"}))
            .await,
        blocked
    );
    let r = h.ok("handle_dialog", json!({"accept": true})).await;
    assert_eq!(r["handled"], "alert", "{r}");
    assert!(h.page_text().await.contains("alert closed"));
    assert_eq!(
        h.fails("handle_dialog", json!({"accept": true})).await,
        "No dialog is open on the selected tab; there is nothing to handle."
    );
    let r = h
        .ok("click_input", json!({"id": confirm, "name": "Ask confirm"}))
        .await;
    assert_eq!(r["dialog"]["type"], "confirm", "{r}");
    h.ok("handle_dialog", json!({"accept": false})).await;
    let text = h.page_text().await;
    assert!(text.contains("cancelled"), "{text}");
    assert_trusted(&text, 2);
    // Leaving a guarded page asks first (beforeunload); dismissing stays, accepting leaves.
    let guard = Harness::id_of(&l, "checkbox", "Guard leaving");
    h.ok("click_input", json!({"id": guard, "name": "Guard leaving"}))
        .await;
    let r = h
        .ok("navigate", json!({"url": h.pages.url("form.html")}))
        .await;
    assert_eq!(r["dialog"]["type"], "beforeunload", "{r}");
    h.ok("handle_dialog", json!({"accept": false})).await;
    assert!(
        h.page_text().await.contains("Guard leaving"),
        "stayed on the page"
    );
    let r = h
        .ok("navigate", json!({"url": h.pages.url("form.html")}))
        .await;
    assert_eq!(r["dialog"]["type"], "beforeunload", "{r}");
    h.ok("handle_dialog", json!({"accept": true})).await;
    let text = h.page_text().await;
    assert!(text.contains("New order"), "left for the form: {text}");
    assert!(h.shutdown().await);
}
