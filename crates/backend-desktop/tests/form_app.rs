//! The project's GTK3 form app on a private managed desktop, driven through the MCP tools; the
//! app's own JSON records say what arrived and how (pointer, keys, accessibility).

mod common;

use std::time::Duration;

use common::{Harness, text_of};
use deft_test_support::desktop::AppProcess;
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(10);

async fn form() -> (Harness, AppProcess) {
    let h = Harness::new().await;
    let app = AppProcess::form_app(&h.env()).expect("form app starts");
    assert!(
        app.wait_record(T, |r| r["event"] == "ready").is_some(),
        "the form app did not start: {:?}",
        app.lines()
    );
    h.select_app("form_app.py").await;
    (h, app)
}

/// `[l, t, r, b]` of a control from the JSON listing.
async fn rect_of(h: &Harness, id: &str) -> [f64; 4] {
    let j = h
        .ok(
            "get_app_window_controls_info",
            json!({"format": "json", "field_list": ["rect"]}),
        )
        .await;
    let c = j["controls"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("control {id} not in {j}"));
    let r: Vec<f64> = c["rect"]
        .as_array()
        .expect("rect")
        .iter()
        .map(|v| v.as_f64().expect("a rect holds numbers"))
        .collect();
    [r[0], r[1], r[2], r[3]]
}

/// The selected window's rect, from the screenshot's caption.
async fn window_rect(h: &Harness) -> [f64; 4] {
    let r = h.call("capture_window_screenshot", json!({})).await;
    let text = text_of(&r);
    let inner = text
        .split("rect=[")
        .nth(1)
        .and_then(|s| s.split(']').next())
        .unwrap_or_else(|| panic!("no rect in {text}"));
    let v: Vec<f64> = inner
        .split(',')
        .map(|n| n.parse().expect("a rect holds numbers"))
        .collect();
    [v[0], v[1], v[2], v[3]]
}

fn frac(win: [f64; 4], x: f64, y: f64) -> (f64, f64) {
    (
        (x - win[0]) / (win[2] - win[0]),
        (y - win[1]) / (win[3] - win[1]),
    )
}

// One form filled start to finish: long because it is one story.
#[allow(clippy::too_many_lines)]
#[tokio::test(flavor = "multi_thread")]
async fn fill_tick_pick_and_submit_with_real_pointer_clicks() {
    let (h, app) = form().await;
    let listing = h.listing(json!({})).await;
    assert!(
        listing.starts_with("window 1 \"Deft Form\" app=\"form_app.py\" controls="),
        "{listing}"
    );
    // The entry is named from its mnemonic label (labelled-by), the combo by its label with its
    // value, and labels that name a control are not listed again.
    assert!(listing.contains("edit \"Name\" = \"\""), "{listing}");
    assert!(
        listing.contains("combobox \"Color\" = \"red\""),
        "{listing}"
    );
    assert!(listing.contains("button \"Locked\" disabled"), "{listing}");
    assert!(!listing.contains("text \"Name\""), "{listing}");
    // No relation at all: named by the label beside it.
    assert!(listing.contains("edit \"City\" = \"\""), "{listing}");

    let name = "Zoë Straße 苏州";
    let name_id = common::find_id(&listing, "edit", "Name").unwrap();
    // Set, then append with clear_current_text: false: the app sees the whole name.
    let r = h
        .ok(
            "set_edit_text",
            json!({"id": name_id, "name": "Name", "text": "Zoë Straße"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let r = h
        .ok(
            "set_edit_text",
            json!({"id": name_id, "name": "Name", "text": " 苏州", "clear_current_text": false}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let agree = common::find_id(&listing, "checkbox", "I agree").unwrap();
    let r = h
        .ok("click_input", json!({"id": agree, "name": "I agree"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert_eq!(r["via"], "pointer", "{r}");
    let color = common::find_id(&listing, "combobox", "Color").unwrap();
    let r = h
        .ok(
            "select_option",
            json!({"id": color, "name": "Color", "option": "green"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    // Choosing what is already chosen changes nothing.
    let r = h
        .ok(
            "select_option",
            json!({"id": color, "name": "Color", "option": "green"}),
        )
        .await;
    assert_eq!(r["effect"], "no_change", "{r}");

    // A list row, clicked by its text.
    let item1 = common::find_id(&listing, "listitem", "Item 1").unwrap();
    let r = h
        .ok("click_input", json!({"id": item1, "name": "Item 1"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(
        app.wait_record(T, |r| r["event"] == "selected" && r["value"] == "Item 1")
            .is_some(),
        "{:?}",
        app.lines()
    );

    let submit = common::find_id(&listing, "button", "Submit").unwrap();
    let rect = rect_of(&h, &submit).await;
    let r = h
        .ok("click_input", json!({"id": submit, "name": "Submit"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");

    let rec = app
        .wait_record(T, |r| r["event"] == "submit")
        .unwrap_or_else(|| panic!("no submit: {:?}", app.lines()));
    assert_eq!(rec["name"], name);
    assert_eq!(rec["agree"], true);
    assert_eq!(rec["color"], "green");
    assert_eq!(rec["via"], "pointer", "{rec}");
    let press = app
        .records()
        .into_iter()
        .find(|r| r["event"] == "button_press" && r["widget"] == "submit")
        .expect("a real button press on Submit");
    let (x, y) = (press["x"].as_f64().unwrap(), press["y"].as_f64().unwrap());
    assert!(
        x >= rect[0] && x < rect[2] && y >= rect[1] && y < rect[3],
        "press at {x},{y} outside Submit {rect:?}"
    );
    let toggled = app
        .records()
        .into_iter()
        .find(|r| r["event"] == "toggled")
        .expect("toggled");
    assert_eq!(toggled["via"], "pointer");
    let text_changes: Vec<Value> = app
        .records()
        .into_iter()
        .filter(|r| r["event"] == "changed" && r["widget"] == "name")
        .collect();
    assert_eq!(text_changes.last().unwrap()["value"], name);

    let result = h.id_of("text", "Result").await;
    let read = h
        .call("texts", json!({"id": result, "name": "Result"}))
        .await;
    assert_eq!(text_of(&read), format!("Hello {name}"));
}

#[tokio::test(flavor = "multi_thread")]
async fn drag_wheel_and_coordinate_clicks_arrive_as_pointer_events() {
    let (h, app) = form().await;
    let win = window_rect(&h).await;
    let slider = h.id_of("slider", "Volume").await;
    let s = rect_of(&h, &slider).await;
    let cy = (s[1] + s[3]) / 2.0;
    let (sx, sy) = frac(win, s[0] + 4.0, cy);
    let (ex, ey) = frac(win, s[2] - 2.0, cy);
    let r = h
        .ok(
            "drag_on_coordinates",
            json!({"start_x": sx, "start_y": sy, "end_x": ex, "end_y": ey}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let moved = app
        .wait_record(T, |r| {
            r["event"] == "changed" && r["widget"] == "volume" && r["value"].as_f64() > Some(80.0)
        })
        .unwrap_or_else(|| panic!("slider did not move: {:?}", app.lines()));
    assert!(moved["value"].as_f64().unwrap() <= 100.0);
    assert!(
        app.records()
            .iter()
            .any(|r| r["event"] == "button_press" && r["widget"] == "volume"),
        "the drag was not a pointer press on the slider"
    );

    let item = h.id_of("listitem", "Item 1").await;
    let r = h
        .ok(
            "wheel_mouse_input",
            json!({"id": item, "name": "Item 1", "wheel_dist": -3}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let scrolled = app
        .wait_record(T, |r| {
            r["event"] == "changed" && r["widget"] == "items_scroll"
        })
        .unwrap_or_else(|| panic!("list did not scroll: {:?}", app.lines()));
    assert!(scrolled["value"].as_f64().unwrap() > 0.0);
    assert!(app.records().iter().any(|r| r["event"] == "scroll"));

    let submit = h.id_of("button", "Submit").await;
    let b = rect_of(&h, &submit).await;
    let (fx, fy) = frac(win, (b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0);
    let r = h
        .ok("click_on_coordinates", json!({"x": fx, "y": fy}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let rec = app
        .wait_record(T, |r| r["event"] == "submit")
        .unwrap_or_else(|| panic!("no submit: {:?}", app.lines()));
    assert_eq!(rec["via"], "pointer");
    assert!(rec["volume"].as_f64().unwrap() > 80.0, "{rec}");
    assert!(rec["scroll"].as_f64().unwrap() > 0.0, "{rec}");

    let e = h
        .err("click_on_coordinates", json!({"x": 1.5, "y": 0.5}))
        .await;
    assert_eq!(
        e,
        "x = 1.5 is outside the window: coordinates are fractions of the selected window, from 0.0 (left/top) to 1.0 (right/bottom)."
    );
    let e = h
        .err(
            "click_on_coordinates",
            json!({"x": 0.5, "y": 0.5, "button": "thumb"}),
        )
        .await;
    assert_eq!(
        e,
        "Unknown mouse button \"thumb\": use \"left\", \"right\" or \"middle\"."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_press_holds_the_button_down_for_hold_s() {
    let (h, app) = form().await;
    let submit = h.id_of("button", "Submit").await;
    let r = h
        .ok(
            "click_input",
            json!({"id": submit, "name": "Submit", "hold_s": 0.6}),
        )
        .await;
    assert_eq!(r["held_ms"], 600, "{r}");
    let release = app
        .wait_record(T, |r| {
            r["event"] == "button_release" && r["widget"] == "submit"
        })
        .unwrap_or_else(|| panic!("no release on Submit: {:?}", app.lines()));
    let press = app
        .records()
        .into_iter()
        .find(|r| r["event"] == "button_press" && r["widget"] == "submit")
        .expect("a press on Submit");
    // The X server's own clock: the release came at least the hold after the press.
    let held = release["time"].as_i64().unwrap() - press["time"].as_i64().unwrap();
    assert!(held >= 600, "held {held} ms");
    // Still a click: the button's handler ran on the release.
    assert!(
        app.wait_record(T, |r| r["event"] == "submit").is_some(),
        "{:?}",
        app.lines()
    );
    // A hold is a single press: not with double, and within 0.05-10 s.
    assert_eq!(
        h.err(
            "click_input",
            json!({"id": submit, "name": "Submit", "hold_s": 1, "double": true})
        )
        .await,
        "hold_s is a long press and double a double-click: give one of them."
    );
    assert_eq!(
        h.err("click_input", json!({"id": submit, "hold_s": 30}))
            .await,
        "hold_s must be between 0.05 and 10 seconds, got 30."
    );
}

// Every way an id can be wrong, each with its text: long because the list is.
#[allow(clippy::too_many_lines)]
#[tokio::test(flavor = "multi_thread")]
async fn ids_are_checked_and_errors_say_what_to_do() {
    let h = Harness::new().await;
    // Nothing listed or selected yet.
    assert_eq!(
        h.err("select_application_window", json!({"id": "1", "name": "x"}))
            .await,
        "No application windows available. Please call get_desktop_app_info first."
    );
    assert_eq!(
        h.err("click_input", json!({"id": "1", "name": "x"})).await,
        "No window selected. Call get_desktop_app_info and select_application_window first."
    );
    let app = AppProcess::form_app(&h.env()).expect("form app starts");
    assert!(app.wait_record(T, |r| r["event"] == "ready").is_some());
    h.select_app("form_app.py").await;
    let e = h
        .err(
            "select_application_window",
            json!({"id": "99", "name": "x"}),
        )
        .await;
    assert!(
        e.starts_with("Window id 99 is not in the list of windows. Available window ids: 1."),
        "{e}"
    );
    assert_eq!(
        h.err("click_input", json!({"id": "1", "name": "x"})).await,
        "No controls available. Please call get_app_window_controls_info first."
    );
    let listing = h.listing(json!({})).await;

    // Name mismatch: the action runs on the id and warns, naming the real control.
    let agree = common::find_id(&listing, "checkbox", "I agree").unwrap();
    let r = h
        .ok("click_input", json!({"id": agree, "name": "I disagree"}))
        .await;
    assert_eq!(
        r["warning"],
        format!(
            "Warning: The name of your chosen control id {agree} is I agree, but the name argument is I disagree. The action is performed on control {agree}:I agree."
        )
    );
    assert!(app.wait_record(T, |r| r["event"] == "toggled").is_some());
    // texts on a mismatch returns only the warning.
    let submit = common::find_id(&listing, "button", "Submit").unwrap();
    let t = h
        .call("texts", json!({"id": submit, "name": "Cancel"}))
        .await;
    assert_eq!(
        text_of(&t),
        format!(
            "Warning: The name of your chosen control id {submit} is Submit, but the name argument is Cancel. Nothing was read; call texts again with the matching id and name."
        )
    );
    // Unknown id lists what exists.
    let e = h
        .err("click_input", json!({"id": "999", "name": "x"}))
        .await;
    assert!(
        e.starts_with("Control id 999 is not in the control list of the selected window. Available control ids: 1, 2,"),
        "{e}"
    );
    assert!(
        e.ends_with("Call get_app_window_controls_info to refresh it."),
        "{e}"
    );
    // Empty id.
    assert_eq!(
        h.err("click_input", json!({"id": "", "name": "x"})).await,
        "The control id is empty. Give the id from the latest listing."
    );
    // Disabled control: waits for enabled, then refuses.
    let locked = common::find_id(&listing, "button", "Locked").unwrap();
    assert_eq!(
        h.err("click_input", json!({"id": locked, "name": "Locked"}))
            .await,
        format!(
            "Control {locked}: Locked is not available or not interactable for the action click_input (disabled), please refresh the application state to get the latest interactable control information."
        )
    );
    // A control that vanished keeps its id, which now fails with the refresh hint.
    let remove = common::find_id(&listing, "button", "Remove me").unwrap();
    let r = h
        .ok("click_input", json!({"id": remove, "name": "Remove me"}))
        .await;
    assert_eq!(r["effect"], "changed");
    assert!(app.wait_record(T, |r| r["event"] == "removed").is_some());
    let again = h.listing(json!({})).await;
    assert!(!again.contains("Remove me"), "{again}");
    assert_eq!(
        h.err("click_input", json!({"id": remove, "name": "Remove me"}))
            .await,
        format!(
            "Control {remove}: Remove me no longer exists in the window, please refresh the application state with get_app_window_controls_info to get the latest control ids."
        )
    );
    // Ids are stable across listings.
    assert_eq!(
        common::find_id(&again, "button", "Submit"),
        Some(submit.clone())
    );
    // Bad key syntax.
    let name = common::find_id(&listing, "edit", "Name").unwrap();
    let e = h
        .err(
            "keyboard_input",
            json!({"id": name, "name": "Name", "keys": "{NOPE}"}),
        )
        .await;
    assert!(
        e.starts_with("The keys could not be typed: Unknown key '{NOPE}' at position 0."),
        "{e}"
    );
    // Actions that do not fit the control.
    let color = common::find_id(&listing, "combobox", "Color").unwrap();
    assert_eq!(
        h.err(
            "select_option",
            json!({"id": color, "name": "Color", "option": "purple"})
        )
        .await,
        "There is no option \"purple\". Options: \"red\", \"green\", \"blue\"."
    );
    assert_eq!(
        h.err(
            "select_option",
            json!({"id": submit, "name": "Submit", "option": "x"})
        )
        .await,
        format!(
            "Control {submit}: Submit has no options to select. select_option works on combo boxes, lists and tables."
        )
    );
    assert_eq!(
        h.err(
            "set_edit_text",
            json!({"id": agree, "name": "I agree", "text": "x"})
        )
        .await,
        format!(
            "Control {agree}: I agree does not take text. Use set_edit_text on an edit control, or keyboard_input."
        )
    );
    // wait bounds.
    assert_eq!(
        h.err("wait", json!({"seconds": 301})).await,
        "seconds must be between 0 and 300, got 301."
    );
    let s = h.call("summary", json!({"text": "form is filled"})).await;
    assert_eq!(s.structured_content.unwrap()["summary"], "form is filled");
}

#[tokio::test(flavor = "multi_thread")]
async fn screenshots_are_pngs_of_the_window_and_marks_sit_on_the_rects() {
    let (h, _app) = form().await;
    let win = window_rect(&h).await;
    let r = h.call("capture_window_screenshot", json!({})).await;
    let png = image_of(&r);
    let (w, hgt) = png_size(&png);
    assert_eq!(f64::from(w), win[2] - win[0]);
    assert_eq!(f64::from(hgt), win[3] - win[1]);

    let answer = h.ok("get_ui_tree", json!({"max_depth": 1})).await;
    let tree = &answer["tree"];
    assert_eq!(tree["type"], "window", "{tree}");
    assert_eq!(tree["name"], "Deft Form");
    let kids = tree["children"].as_array().expect("children at depth 1");
    assert!(
        !kids.is_empty() && kids.iter().all(|k| k.get("children").is_none()),
        "{tree}"
    );
    assert_eq!(answer["depth"], 1);
    assert_eq!(answer["nodes"], 1 + kids.len());
    assert!(
        kids.iter()
            .any(|k| k["children_omitted"].as_u64() > Some(0)),
        "{tree}"
    );
    // Too deep is clamped, with a note.
    let answer = h.ok("get_ui_tree", json!({"max_depth": 99})).await;
    let note = answer["note"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        note.starts_with("max_depth 99 is above the maximum of 32; the tree is shown to depth 32."),
        "{note}"
    );
    assert!(answer["nodes"].as_u64().unwrap() <= 300, "{answer}");
    assert_eq!(
        h.err("get_ui_tree", json!({"max_depth": -2})).await,
        "max_depth must be a whole number from 0 to 32 (default 8), got -2."
    );

    let d = h.call("capture_desktop_screenshot", json!({})).await;
    assert_eq!(text_of(&d), "desktop rect=[0,0,1280,1024]");
    assert_eq!(png_size(&image_of(&d)), (1280, 1024));

    let j = h
        .ok(
            "get_app_window_controls_info",
            json!({"format": "json", "field_list": ["rect"], "only_interactive": true}),
        )
        .await;
    let a = h
        .call("capture_window_screenshot", json!({"annotated": true}))
        .await;
    let img = decode(&image_of(&a), (win[0] as i32, win[1] as i32));
    let mut checked = 0;
    for c in j["controls"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        // Rows scrolled out of the list have no rect (and no mark).
        let Some(rect) = c["rect"].as_array() else {
            assert!(
                c["states"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("offscreen")),
                "{c}"
            );
            continue;
        };
        let rect: Vec<i32> = rect.iter().map(|v| v.as_i64().unwrap() as i32).collect();
        if rect[2] > win[2] as i32 || rect[3] > win[3] as i32 {
            continue;
        }
        let read = deft_backend_desktop::read_label(&img, (rect[0], rect[1]), id.len());
        // A later mark may cover an earlier one where boxes overlap (list rows).
        if read.as_deref() == Some(id) {
            checked += 1;
        }
    }
    assert!(
        checked >= 5,
        "only {checked} marks read back at their rects"
    );
}

fn image_of(r: &rmcp::model::CallToolResult) -> Vec<u8> {
    use base64::Engine;
    let data = r
        .content
        .iter()
        .find_map(|c| c.as_image().map(|i| i.data.clone()))
        .unwrap_or_else(|| panic!("no image in {r:?}"));
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64")
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().expect("a valid PNG");
    let info = reader.info();
    (info.width, info.height)
}

fn decode(bytes: &[u8], origin: (i32, i32)) -> deft_backend_desktop::RgbImage {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a valid PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("frame");
    buf.truncate(info.buffer_size());
    deft_backend_desktop::RgbImage {
        width: info.width,
        height: info.height,
        origin,
        pixels: buf,
    }
}
