//! The Android tool server on the simulated phone (the device double's apps as state machines)
//! through an MCP client and the real adb server: apps opened by label, a calculation by taps
//! found with selectors, a list scrolled until a row shows, Chinese typed into a field, a
//! dialog, the screen off and on, long text, and two phones driven at once.

mod common;

use common::{Client, call, client_for, error, find, listing, ok, serve};
use deft_backend_android::phone::Phone;
use deft_backend_android::{AndroidServer, texts};
use deft_test_support::adb_double::{AdbHarness, DoubleConfig};
use serde_json::{Value, json};

async fn tap(client: &Client, selector: Value) -> Value {
    let id = find(client, selector).await;
    let tapped = call(client, "click_input", json!({"id": id})).await;
    ok(&tapped).clone()
}

fn button(text: &str) -> Value {
    json!({"text": text, "type": "button", "match": "exact"})
}

#[tokio::test]
async fn an_annotated_screenshot_marks_each_control_with_the_id_the_listing_gives() {
    use base64::Engine as _;
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    ok(&call(&client, "launch_app", json!({"app": "Calculator"})).await);
    let seven = find(&client, button("7")).await;
    let plus = find(&client, button("+")).await;
    let shot = call(
        &client,
        "capture_window_screenshot",
        json!({"annotated": true}),
    )
    .await;
    let caption = &shot.content[0].as_text().expect("a caption").text;
    let (w, h) = (1080, 2400);
    assert!(
        caption.starts_with(&format!("screen rect=[0,0,{w},{h}] annotated: ")),
        "{caption}"
    );
    let image = shot.content[1].as_image().expect("an image");
    let png = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    let rgb = image::load_from_memory(&png).unwrap().to_rgb8();
    let img = deft_protocol::marks::RgbImage {
        width: rgb.width(),
        height: rgb.height(),
        origin: (0, 0),
        pixels: rgb.into_raw(),
    };
    let listed = call(
        &client,
        "get_app_window_controls_info",
        json!({"format": "json", "field_list": ["rect"]}),
    )
    .await;
    let controls = ok(&listed)["controls"].as_array().unwrap().clone();
    let rect_of = |id: &str| -> (i32, i32) {
        let c = controls.iter().find(|c| c["id"] == id).unwrap();
        (
            c["rect"][0].as_i64().unwrap() as i32,
            c["rect"][1].as_i64().unwrap() as i32,
        )
    };
    for id in [&seven, &plus] {
        assert_eq!(
            deft_protocol::marks::read_label(&img, rect_of(id), id.len()).as_deref(),
            Some(id.as_str()),
            "the mark of control {id} sits at its box"
        );
    }
    let plain = call(&client, "capture_window_screenshot", json!({})).await;
    assert_eq!(
        plain.content[0].as_text().unwrap().text,
        format!("screen rect=[0,0,{w},{h}]")
    );
}

#[tokio::test]
async fn the_calculator_opens_by_label_and_computes_by_taps_on_what_selectors_find() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    let opened = call(&client, "launch_app", json!({"app": "Calculator"})).await;
    let opened = ok(&opened);
    assert_eq!(opened["app"], "com.android.calculator2");
    assert_eq!(opened["window"]["name"], "Calculator");
    assert_eq!(harness.double(0).foreground(), "com.android.calculator2");
    for key in ["7", "+", "8"] {
        let tapped = tap(&client, button(key)).await;
        assert_eq!(tapped["effect"], "changed", "{key}: {tapped}");
    }
    let equals = tap(&client, button("=")).await;
    assert_eq!(equals["app"], "com.android.calculator2");
    assert_eq!(
        harness.double(0).calculator().map(|(_, result)| result),
        Some("15".to_owned())
    );
    let shown = call(
        &client,
        "get_app_window_controls_info",
        json!({"changes": true}),
    )
    .await;
    assert!(listing(&shown).contains("\"15\""), "{}", listing(&shown));
    let closed = call(
        &client,
        "close_app",
        json!({"app": "com.android.calculator2"}),
    )
    .await;
    assert_eq!(ok(&closed)["app"], "com.android.launcher3");
}

#[tokio::test]
async fn settings_scrolls_until_a_row_below_the_screen_shows_and_opens_it() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    ok(&call(&client, "launch_app", json!({"app": "设置"})).await);
    let first = call(
        &client,
        "get_app_window_controls_info",
        json!({"format": "json"}),
    )
    .await;
    let first = ok(&first).clone();
    let about = json!({"text": "About phone", "match": "exact"});
    let missing = call(
        &client,
        "find_controls",
        json!({"selector": about, "format": "json"}),
    )
    .await;
    assert!(
        ok(&missing)["chosen"].is_null(),
        "About phone is below the screen"
    );
    let list = first["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "list")
        .expect("the settings list")["id"]
        .clone();
    let mut swipes = 0;
    loop {
        let found = call(
            &client,
            "find_controls",
            json!({"selector": about, "format": "json"}),
        )
        .await;
        if ok(&found)["chosen"].is_string() {
            break;
        }
        swipes += 1;
        assert!(swipes <= 10, "About phone never showed");
        let scrolled = call(
            &client,
            "wheel_mouse_input",
            json!({"id": list, "wheel_dist": -5}),
        )
        .await;
        assert_eq!(ok(&scrolled)["effect"], "changed");
    }
    let opened = tap(&client, about).await;
    assert_eq!(opened["effect"], "changed");
    let page = call(&client, "get_app_window_controls_info", json!({})).await;
    assert!(listing(&page).contains("About phone"), "{}", listing(&page));
    let back = call(&client, "keyboard_input", json!({"keys": "{GO_BACK}"})).await;
    assert_eq!(ok(&back)["effect"], "changed");
}

#[tokio::test]
async fn chinese_reaches_the_notes_field_through_adbkeyboard_and_the_keyboard_comes_back() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    let ime_before = harness.double(0).ime();
    // 记事本 is no known label nor a package word: it is found on the home screen.
    let opened = call(&client, "launch_app", json!({"app": "记事本"})).await;
    let opened = ok(&opened);
    assert_eq!(opened["app"], "com.example.notes");
    assert_eq!(opened["found_by"], "home screen icon");
    let field = find(&client, json!({"type": "edit"})).await;
    let typed = call(
        &client,
        "set_edit_text",
        json!({"id": field, "text": "苏州 天气 ok"}),
    )
    .await;
    let typed = ok(&typed);
    assert_eq!(typed["input"], "ADBKeyBoard broadcast (ADB_INPUT_B64)");
    assert_eq!(typed["value"], "苏州 天气 ok");
    assert!(typed.get("warning").is_none(), "{typed}");
    assert_eq!(
        harness
            .double(0)
            .field_text("com.example.notes:id/note")
            .as_deref(),
        Some("苏州 天气 ok")
    );
    assert_eq!(
        harness.double(0).ime(),
        ime_before,
        "the phone's keyboard is back"
    );
    // Replacing it clears what was typed first.
    let again = call(&client, "set_edit_text", json!({"id": field, "text": "ok"})).await;
    assert_eq!(ok(&again)["value"], "ok");
}

#[tokio::test]
async fn a_phone_without_adbkeyboard_types_ascii_and_refuses_chinese_untouched() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone().without_adb_keyboard()]);
    let client = client_for(&harness, 0).await;
    ok(&call(&client, "launch_app", json!({"app": "com.example.form"})).await);
    let name = find(&client, json!({"type": "edit"})).await;
    let typed = call(
        &client,
        "set_edit_text",
        json!({"id": name, "text": "Ann Lee"}),
    )
    .await;
    assert_eq!(ok(&typed)["input"], "adb input text");
    let refused = call(
        &client,
        "set_edit_text",
        json!({"id": name, "text": "苏州"}),
    )
    .await;
    assert_eq!(error(&refused), texts::no_input_method("苏州"));
    // The refusal came before anything was cleared or typed.
    assert_eq!(
        harness
            .double(0)
            .field_text("com.example.form:id/name")
            .as_deref(),
        Some("Ann Lee")
    );
}

#[tokio::test]
async fn a_dialog_is_its_own_window_and_goes_with_its_button() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    ok(&call(&client, "launch_app", json!({"app": "com.example.form"})).await);
    let submitted = tap(&client, button("Submit")).await;
    assert_eq!(submitted["effect"], "changed");
    let info = call(&client, "get_desktop_app_info", json!({})).await;
    let windows = ok(&info)["windows"].as_array().unwrap().clone();
    assert_eq!(windows.last().unwrap()["type"], "dialog", "{windows:?}");
    assert_eq!(ok(&info)["screen"], "on");
    let listed = call(&client, "get_app_window_controls_info", json!({})).await;
    assert!(
        listing(&listed).contains("\"Saved\""),
        "{}",
        listing(&listed)
    );
    let closed = tap(&client, button("OK")).await;
    assert_eq!(closed["effect"], "changed");
    let info = call(&client, "get_desktop_app_info", json!({})).await;
    assert_eq!(ok(&info)["windows"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn the_screen_turns_off_a_listing_says_so_and_it_comes_back_on() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    let off = call(&client, "set_screen", json!({"on": false})).await;
    assert_eq!(ok(&off)["screen"], "off");
    assert!(!harness.double(0).screen_on());
    let dark = call(&client, "get_app_window_controls_info", json!({})).await;
    assert!(
        error(&dark).starts_with("uiautomator could not dump the screen: ERROR: null root node"),
        "{dark:?}"
    );
    let info = call(&client, "get_desktop_app_info", json!({})).await;
    assert_eq!(ok(&info)["screen"], "off");
    let on = call(&client, "set_screen", json!({"on": true})).await;
    assert_eq!(ok(&on)["screen"], "on");
    listing(&call(&client, "get_app_window_controls_info", json!({})).await);
    let awake = call(&client, "keep_awake", json!({"mode": "always"})).await;
    ok(&awake);
    assert_eq!(harness.double(0).stay_on(), 7);
    let shot = call(&client, "capture_desktop_screenshot", json!({})).await;
    assert_eq!(
        shot.content[0].as_text().unwrap().text,
        "screen rect=[0,0,1080,2400]"
    );
}

#[tokio::test]
async fn text_over_ten_thousand_characters_arrives_whole() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    ok(&call(&client, "launch_app", json!({"app": "com.example.notes"})).await);
    let field = find(&client, json!({"type": "edit"})).await;
    let long: String = (0..10_050)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let typed = call(&client, "set_edit_text", json!({"id": field, "text": long})).await;
    assert_eq!(ok(&typed)["input"], "adb input text");
    assert_eq!(
        harness.double(0).field_text("com.example.notes:id/note"),
        Some(long)
    );
}

#[tokio::test]
async fn two_phones_are_driven_at_once_each_in_its_own_session() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone(), DoubleConfig::phone()]);
    let (a, b) = tokio::join!(client_for(&harness, 0), client_for(&harness, 1));
    let (one, two) = tokio::join!(
        call(&a, "launch_app", json!({"app": "Calculator"})),
        call(&b, "launch_app", json!({"app": "Settings"})),
    );
    ok(&one);
    ok(&two);
    assert_eq!(harness.double(0).foreground(), "com.android.calculator2");
    assert_eq!(harness.double(1).foreground(), "com.android.settings");
    let (seven, listed) = tokio::join!(
        tap(&a, button("7")),
        call(&b, "get_app_window_controls_info", json!({}))
    );
    assert_eq!(seven["app"], "com.android.calculator2");
    assert!(listing(&listed).contains("app=\"com.android.settings\""));
    assert_eq!(
        harness.double(0).calculator().map(|(formula, _)| formula),
        Some("7".to_owned())
    );
}

#[tokio::test]
async fn an_app_that_is_not_installed_is_named_with_what_looks_close() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    let missing = call(&client, "launch_app", json!({"app": "com.example.nothing"})).await;
    let packages = harness.double(0).packages();
    let close: Vec<String> = packages
        .iter()
        .filter(|p| p.contains("example") || p.contains("nothing"))
        .take(5)
        .cloned()
        .collect();
    assert!(
        !close.is_empty(),
        "the phone has com.example apps: {packages:?}"
    );
    assert_eq!(
        error(&missing),
        texts::unknown_app("com.example.nothing", &close)
    );
    assert_eq!(harness.double(0).foreground(), "com.android.launcher3");
}

#[tokio::test]
async fn apks_install_only_from_the_allowed_folder_whatever_links_say() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let allowed = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let apk = allowed.path().join("com.example.weather.apk");
    // An APK is a zip: its first bytes are a local file header.
    std::fs::write(&apk, b"PK\x03\x04 the rest of a zip").unwrap();
    let secret = outside.path().join("com.example.secret.apk");
    std::fs::write(&secret, b"PK\x03\x04 not yours").unwrap();
    std::os::unix::fs::symlink(&secret, allowed.path().join("link.apk")).unwrap();
    std::fs::write(allowed.path().join("notes.apk"), b"plain text").unwrap();
    let config = deft_backend_android::AndroidConfig {
        apk_dirs: vec![allowed.path().to_owned()],
        ..Default::default()
    };
    let phone = Phone::new(harness.client(), harness.double(0).serial());
    let client: Client = serve(AndroidServer::on_phone(phone, config)).await;
    let installed = call(
        &client,
        "install_app",
        json!({"path": apk.to_str().unwrap()}),
    )
    .await;
    let installed = ok(&installed);
    assert_eq!(installed["new_packages"], json!(["com.example.weather"]));
    assert!(
        harness
            .double(0)
            .packages()
            .contains(&"com.example.weather".to_owned())
    );
    let dirs = vec![allowed.path().display().to_string()];
    let linked = allowed.path().join("link.apk");
    let out = call(
        &client,
        "install_app",
        json!({"path": linked.to_str().unwrap()}),
    )
    .await;
    assert_eq!(
        error(&out),
        texts::apk_outside(linked.to_str().unwrap(), &dirs)
    );
    let out = call(
        &client,
        "install_app",
        json!({"path": secret.to_str().unwrap()}),
    )
    .await;
    assert_eq!(
        error(&out),
        texts::apk_outside(secret.to_str().unwrap(), &dirs)
    );
    assert!(
        !harness
            .double(0)
            .packages()
            .contains(&"com.example.secret".to_owned())
    );
    let text = allowed.path().join("notes.apk");
    let out = call(
        &client,
        "install_app",
        json!({"path": text.to_str().unwrap()}),
    )
    .await;
    assert!(
        error(&out).starts_with(
            "the phone refused `pm install -r -t`: Failure [INSTALL_PARSE_FAILED_NOT_APK"
        ),
        "{out:?}"
    );
    // Without folders, nothing installs.
    let plain = client_for(&harness, 0).await;
    let out = call(
        &plain,
        "install_app",
        json!({"path": apk.to_str().unwrap()}),
    )
    .await;
    assert_eq!(error(&out), texts::NO_APK_DIRS);
}

#[tokio::test]
async fn a_dialog_is_waited_for_and_gone_and_a_background_app_is_selected_back() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let client = client_for(&harness, 0).await;
    let calc = call(&client, "launch_app", json!({"app": "Calculator"})).await;
    let calc_window = ok(&calc)["window"]["id"].as_str().unwrap().to_owned();
    ok(&call(&client, "launch_app", json!({"app": "com.example.form"})).await);
    tap(&client, button("Submit")).await;
    let saved = json!({"text": "Saved", "match": "exact"});
    let appeared = call(
        &client,
        "wait_for_control",
        json!({"selector": saved, "timeout_s": 5}),
    )
    .await;
    let appeared = ok(&appeared);
    assert_eq!(appeared["appeared"], true, "{appeared}");
    tap(&client, button("OK")).await;
    let gone = call(
        &client,
        "wait_for_control",
        json!({"selector": saved, "gone": true, "timeout_s": 5}),
    )
    .await;
    assert_eq!(ok(&gone)["gone"], true);
    let never = call(
        &client,
        "wait_for_control",
        json!({"selector": {"text": "Never there", "match": "exact"}, "timeout_s": 0.3}),
    )
    .await;
    assert!(error(&never).starts_with("No control matched"), "{never:?}");
    // The calculator went to the background; selecting its window brings it back.
    let selected = call(
        &client,
        "select_application_window",
        json!({"id": calc_window, "name": "Calculator"}),
    )
    .await;
    let selected = ok(&selected);
    assert_eq!(
        selected["root_name"], "com.android.calculator2",
        "{selected}"
    );
    assert_eq!(harness.double(0).foreground(), "com.android.calculator2");
    let unknown = call(&client, "select_application_window", json!({"id": "99"})).await;
    assert_eq!(error(&unknown), texts::unknown_window("99"));
    // A drag is one swipe between the two points of the screen.
    let dragged = call(
        &client,
        "drag_on_coordinates",
        json!({"start_x": 0.5, "start_y": 0.8, "end_x": 0.5, "end_y": 0.2}),
    )
    .await;
    ok(&dragged);
    let last = harness.double(0).inputs().pop().unwrap();
    assert_eq!(
        last,
        deft_test_support::adb_double::Input::Swipe(vec![540, 1920, 540, 480, 400])
    );
}
