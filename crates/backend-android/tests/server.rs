//! The Android tool server through an MCP client, the real adb server and a device double that
//! replays real `uiautomator dump`s: the shared tools read and act on a phone the way they do
//! on the desktop and in the browser, every action answers with its effect, and bad ids, bad
//! arguments and missing phones get their own answers.

mod common;

use base64::Engine as _;
use common::{Client, call, client_for, error, ok, serve, text};
use deft_backend_android::{AndroidConfig, AndroidServer, texts};
use deft_test_support::adb_double::{AdbHarness, DoubleConfig, Input, Reply};
use serde_json::json;

async fn connect(harness: &AdbHarness) -> Client {
    client_for(harness, 0).await
}

/// The id `find_controls` picks for `text`.
async fn id_of(client: &Client, wanted: &str) -> String {
    common::find(client, json!({"text": wanted, "match": "exact"})).await
}

const FOCUS_SETTINGS: &str = "  mCurrentFocus=Window{1b2c u0 com.android.settings/com.android.settings.Settings}\n  mFocusedApp=ActivityRecord{9f u0 com.android.settings/.Settings t12}\n";

/// Settings, then the form a tap opens.
fn settings_then_form() -> DoubleConfig {
    let mut config = DoubleConfig::default()
        .screens(&["settings-android14.xml", "form-textfield-flutter.xml"])
        .command("dumpsys window displays", Reply::stdout(FOCUS_SETTINGS))
        .command("wm size", Reply::stdout("Physical size: 1008x2244\n"));
    config.input_advances_screen = true;
    config
}

#[tokio::test]
async fn a_listing_names_the_app_and_a_tap_by_id_answers_with_its_effect() {
    let harness = AdbHarness::start(vec![settings_then_form()]);
    let client = connect(&harness).await;
    let listing = call(&client, "get_app_window_controls_info", json!({})).await;
    let listing = text(&listing);
    let header = listing.lines().next().unwrap();
    assert!(
        header.starts_with("window 1 \"Settings\" app=\"com.android.settings\""),
        "{header}"
    );
    assert!(listing.contains("\"Network and Internet\""), "{listing}");
    let row = id_of(&client, "Network and Internet").await;
    let tapped = call(
        &client,
        "click_input",
        json!({"id": row, "name": "Network and Internet"}),
    )
    .await;
    let answer = ok(&tapped);
    assert_eq!(answer["effect"], "changed", "{answer}");
    assert!(answer.get("warning").is_none(), "{answer}");
    assert_eq!(harness.double(0).inputs(), vec![Input::Tap(504, 670)]);
    // The screen moved on: the row's id is stale now, and says so.
    let again = call(&client, "click_input", json!({"id": row})).await;
    assert_eq!(error(&again), texts::stale_control(&row));
    assert_eq!(harness.double(0).inputs().len(), 1, "nothing was tapped");
}

#[tokio::test]
async fn ids_that_were_never_given_and_names_that_differ_get_their_own_answers() {
    let harness = AdbHarness::start(vec![settings_then_form()]);
    let client = connect(&harness).await;
    call(&client, "get_app_window_controls_info", json!({})).await;
    let unknown = call(&client, "click_input", json!({"id": "999"})).await;
    assert!(
        error(&unknown)
            .starts_with("Control id '999' is unknown (the screen read last has ids 1 to "),
        "{unknown:?}"
    );
    let bad = call(&client, "click_input", json!({"id": "Apps"})).await;
    assert_eq!(error(&bad), texts::bad_control_id("Apps"));
    let row = id_of(&client, "Apps").await;
    let named = call(&client, "texts", json!({"id": row, "name": "Storage"})).await;
    let named = ok(&named);
    assert_eq!(
        named["warning"],
        texts::control_name_warning(&row, "Storage", "Apps", "listitem")
    );
    assert_eq!(named["texts"][0], "Apps");
    let right = call(
        &client,
        "click_input",
        json!({"id": row, "button": "right"}),
    )
    .await;
    assert_eq!(error(&right), texts::no_such_button("right"));
    assert!(harness.double(0).inputs().is_empty(), "nothing was tapped");
}

#[tokio::test]
async fn a_scroll_swipes_inside_the_list_and_keys_reach_the_phone_as_key_events() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default()
            .screens(&["settings-android14.xml"])
            .command("wm size", Reply::stdout("Physical size: 1008x2244\n")),
    ]);
    let client = connect(&harness).await;
    let listing = call(
        &client,
        "get_app_window_controls_info",
        json!({"format": "json", "field_list": ["rect"]}),
    )
    .await;
    let listing = ok(&listing);
    let list = listing["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "list")
        .expect("the scrolling list")
        .clone();
    let rect: Vec<i64> = serde_json::from_value(list["rect"].clone()).unwrap();
    let scrolled = call(
        &client,
        "wheel_mouse_input",
        json!({"id": list["id"], "wheel_dist": -5}),
    )
    .await;
    assert_eq!(
        ok(&scrolled)["effect"],
        "no_change",
        "a replayed screen does not move"
    );
    let (x, mid, h) = (
        (rect[0] + rect[2]) / 2,
        (rect[1] + rect[3]) as f64 / 2.0,
        (rect[3] - rect[1]) as f64,
    );
    let half = (0.5 * h / 2.0) as i64;
    let Input::Swipe(swipe) = &harness.double(0).inputs()[0] else {
        panic!("a swipe: {:?}", harness.double(0).inputs());
    };
    assert_eq!(swipe[0], x);
    assert!(
        (swipe[1] - (mid as i64 + half)).abs() <= 1,
        "{swipe:?} starts low"
    );
    assert!(
        (swipe[3] - (mid as i64 - half)).abs() <= 1,
        "{swipe:?} ends high: the list scrolls down"
    );
    let keys = call(
        &client,
        "keyboard_input",
        json!({"keys": "ok{ENTER}{GO_BACK}{VOLUME_UP}"}),
    )
    .await;
    assert_eq!(ok(&keys)["input"], "adb input text");
    assert_eq!(
        harness.double(0).inputs()[1..],
        [
            Input::Text("ok".into()),
            Input::KeyEvent("66".into()),
            Input::KeyEvent("4".into()),
            Input::KeyEvent("24".into()),
        ]
    );
    let bad = call(&client, "keyboard_input", json!({"keys": "{F13}"})).await;
    assert_eq!(error(&bad), texts::no_phone_key("F13"));
    let middle = call(
        &client,
        "click_on_coordinates",
        json!({"x": 0.5, "y": 0.5, "button": "middle"}),
    )
    .await;
    assert_eq!(error(&middle), texts::no_such_button("middle"));
    let off = call(&client, "click_on_coordinates", json!({"x": 1.5, "y": 0.5})).await;
    assert_eq!(error(&off), texts::bad_fraction("x", 1.5));
    let tap = call(
        &client,
        "click_on_coordinates",
        json!({"x": 0.5, "y": 0.25}),
    )
    .await;
    ok(&tap);
    assert_eq!(
        harness.double(0).inputs().last(),
        Some(&Input::Tap(504, 561))
    );
}

#[tokio::test]
async fn chinese_goes_through_adbkeyboard_and_the_phones_keyboard_comes_back() {
    let b64 = base64::engine::general_purpose::STANDARD.encode("苏州 ok".as_bytes());
    let broadcast = format!("am broadcast -a ADB_INPUT_B64 --es msg {b64}");
    let config = DoubleConfig::default()
        .screens(&["form-textfield-flutter.xml"])
        .command(
            "ime list -s",
            Reply::stdout("com.android.inputmethod.latin/.LatinIME\ncom.android.adbkeyboard/.AdbIME\n"),
        )
        .command(
            "settings get secure default_input_method",
            Reply::stdout("com.android.inputmethod.latin/.LatinIME\n"),
        )
        .command("ime set com.android.adbkeyboard/.AdbIME", Reply::stdout("Input method com.android.adbkeyboard/.AdbIME selected for user #0\n"))
        .command("ime set com.android.inputmethod.latin/.LatinIME", Reply::stdout("Input method com.android.inputmethod.latin/.LatinIME selected for user #0\n"))
        .command(
            &broadcast,
            Reply::stdout("Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n"),
        );
    let harness = AdbHarness::start(vec![config]);
    let client = connect(&harness).await;
    call(&client, "get_app_window_controls_info", json!({})).await;
    let field = call(
        &client,
        "find_controls",
        json!({"selector": {"type": "edit"}, "format": "json"}),
    )
    .await;
    let field = ok(&field)["chosen"].as_str().unwrap().to_owned();
    let typed = call(
        &client,
        "set_edit_text",
        json!({"id": field, "text": "苏州 ok", "clear_current_text": false}),
    )
    .await;
    let typed = ok(&typed);
    assert_eq!(typed["input"], "ADBKeyBoard broadcast (ADB_INPUT_B64)");
    // The replayed screen keeps its old value: the answer reads it back and says so.
    assert_eq!(typed["value"], "9999999999");
    assert_eq!(
        typed["warning"],
        texts::value_differs(&field, "9999999999苏州 ok", "9999999999")
    );
    let commands = harness.double(0).commands();
    let at = |line: &str| {
        commands
            .iter()
            .position(|c| c == line)
            .unwrap_or_else(|| panic!("{line} in {commands:?}"))
    };
    assert!(at("ime set com.android.adbkeyboard/.AdbIME") < at(&broadcast));
    assert!(at(&broadcast) < at("ime set com.android.inputmethod.latin/.LatinIME"));
    assert!(
        !harness
            .double(0)
            .inputs()
            .iter()
            .any(|i| matches!(i, Input::Tap(..))),
        "the focused field is not tapped again"
    );
}

#[tokio::test]
async fn a_phone_without_adbkeyboard_refuses_unicode_and_types_nothing() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default()
            .screens(&["form-textfield-flutter.xml"])
            .command(
                "ime list -s",
                Reply::stdout("com.android.inputmethod.latin/.LatinIME\n"),
            ),
    ]);
    let client = connect(&harness).await;
    let typed = call(&client, "keyboard_input", json!({"keys": "苏州"})).await;
    assert_eq!(error(&typed), texts::no_input_method("苏州"));
    assert!(harness.double(0).inputs().is_empty());
}

#[tokio::test]
async fn apps_open_by_package_or_label_and_unknown_ones_are_named() {
    let config = DoubleConfig::default()
        .screens(&["settings-android14.xml"])
        .command(
            "pm list packages",
            Reply::stdout("package:com.android.settings\npackage:com.android.calculator2\npackage:com.example.notes\n"),
        )
        .command(
            "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1",
            Reply::stdout("Events injected: 1\n## Network stats: elapsed time=15ms\n"),
        )
        .command("dumpsys window displays", Reply::stdout(FOCUS_SETTINGS))
        .command("am force-stop com.android.calculator2", Reply::default());
    let harness = AdbHarness::start(vec![config]);
    let client = connect(&harness).await;
    let opened = call(&client, "launch_app", json!({"app": "设置"})).await;
    let opened = ok(&opened);
    assert_eq!(opened["app"], "com.android.settings");
    assert_eq!(opened["found_by"], "known label");
    assert_eq!(opened["window"]["name"], "Settings");
    let apps = call(&client, "list_apps", json!({})).await;
    assert_eq!(ok(&apps)["packages"][1], "com.android.settings");
    let closed = call(&client, "close_app", json!({"app": "Calculator"})).await;
    assert_eq!(ok(&closed)["closed"], "com.android.calculator2");
    let none = call(&client, "close_app", json!({"app": "Weather"})).await;
    assert_eq!(error(&none), texts::unknown_app("Weather", &[]));
    let empty = call(&client, "launch_app", json!({"app": " "})).await;
    assert_eq!(error(&empty), texts::APP_NEEDED);
}

#[tokio::test]
async fn screenshots_screen_power_and_keep_awake() {
    let config = DoubleConfig::default()
        .command(
            "dumpsys power",
            Reply::stdout("  mWakefulness=Asleep\n  Display Power: state=OFF\n"),
        )
        .command("svc power stayon usb", Reply::default());
    let harness = AdbHarness::start(vec![config]);
    let client = connect(&harness).await;
    let shot = call(&client, "capture_window_screenshot", json!({})).await;
    assert_eq!(text(&shot), "screen rect=[0,0,4,2]");
    assert!(shot.content[1].as_image().is_some(), "{shot:?}");
    let off = call(&client, "set_screen", json!({"on": false})).await;
    assert_eq!(ok(&off)["screen"], "off");
    assert_eq!(
        harness.double(0).inputs(),
        vec![Input::KeyEvent("223".into())]
    );
    let awake = call(&client, "keep_awake", json!({"mode": "USB"})).await;
    assert_eq!(ok(&awake)["keep_awake"], "usb");
    let bad = call(&client, "keep_awake", json!({"mode": "forever"})).await;
    assert_eq!(error(&bad), texts::bad_stay_on("forever"));
    let path = call(&client, "swipe", json!({"path": [[0.5, 0.5]]})).await;
    assert_eq!(error(&path), texts::bad_path(1, 50));
}

#[tokio::test]
async fn a_serial_the_adb_server_does_not_list_is_said_with_what_it_lists() {
    let harness = AdbHarness::start(vec![DoubleConfig::default()]);
    let config = AndroidConfig {
        serial: Some("R58M-nope".into()),
        adb_port: Some(harness.port()),
        ..Default::default()
    };
    let client = serve(AndroidServer::new(config)).await;
    let listing = call(&client, "get_app_window_controls_info", json!({})).await;
    let said = error(&listing);
    let serial = harness.double(0).serial();
    assert_eq!(
        said,
        texts::no_such_phone("R58M-nope", &[format!("{serial} (device)")])
    );
    // Without a serial, the only phone is the one.
    let config = AndroidConfig {
        serial: None,
        adb_port: Some(harness.port()),
        ..Default::default()
    };
    let client = serve(AndroidServer::new(config)).await;
    let info = call(&client, "get_desktop_app_info", json!({})).await;
    ok(&info);
}

#[tokio::test]
async fn a_phone_unplugged_mid_tap_says_the_tap_may_have_run_and_nothing_hangs() {
    let config = settings_then_form().action(
        "input tap 504 670",
        deft_test_support::adb_double::Action::DropConnection {
            partial: Vec::new(),
        },
    );
    let harness = AdbHarness::start(vec![config]);
    let client = connect(&harness).await;
    call(&client, "get_app_window_controls_info", json!({})).await;
    let row = id_of(&client, "Network and Internet").await;
    let tapped = call(&client, "click_input", json!({"id": row})).await;
    let said = error(&tapped);
    let serial = harness.double(0).serial();
    assert!(
        said.starts_with(&format!(
            "the phone '{serial}' disconnected while running `input tap 504 670`; it may have run"
        )),
        "{said}"
    );
}

#[tokio::test]
async fn a_landscape_screen_takes_fractions_of_its_turned_size_and_wm_size_is_asked_once() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default()
            .screens(&["game-landscape-opaque.xml"])
            .command("wm size", Reply::stdout("Physical size: 1080x1920\n")),
    ]);
    let client = connect(&harness).await;
    call(&client, "get_app_window_controls_info", json!({})).await;
    for _ in 0..2 {
        ok(&call(
            &client,
            "click_on_coordinates",
            json!({"x": 0.25, "y": 0.5}),
        )
        .await);
    }
    assert_eq!(
        harness.double(0).inputs(),
        vec![Input::Tap(480, 540), Input::Tap(480, 540)]
    );
    let asked = harness
        .double(0)
        .commands()
        .iter()
        .filter(|c| *c == "wm size")
        .count();
    assert_eq!(asked, 1);
}
