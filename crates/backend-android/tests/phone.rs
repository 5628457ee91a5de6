//! One phone through the real adb server, the phone being a device double that replays real
//! `uiautomator dump`s (deft-test-support's `adb_double`): reading its screen, acting on what
//! was read, typing, keys, its focus, its screenshot, and what it refuses.

use deft_backend_android::controls::controls;
use deft_backend_android::input::{PhoneInput, keycode};
use deft_backend_android::phone::{Phone, PhoneError};
use deft_backend_android::ui_tree::DumpError;
use deft_test_support::adb_double::{AdbHarness, DoubleConfig, Input, Reply, tiny_png};

fn phone(harness: &AdbHarness) -> Phone {
    Phone::new(harness.client(), harness.double(0).serial())
}

#[tokio::test]
async fn a_row_read_from_the_screen_is_tapped_at_its_centre_and_the_next_screen_follows() {
    let mut config =
        DoubleConfig::default().screens(&["settings-android14.xml", "form-textfield-flutter.xml"]);
    config.input_advances_screen = true;
    let harness = AdbHarness::start(vec![config]);
    let phone = phone(&harness);
    let screen = phone.screen().await.unwrap();
    assert_eq!(screen.package(), Some("com.android.settings"));
    let mut n = 0;
    let listed = controls(&screen, |_| {
        n += 1;
        n.to_string()
    });
    let row = listed
        .iter()
        .find(|c| c.name == "Network and Internet" && c.interactive)
        .expect("the row");
    let [l, t, r, b] = row.rect.unwrap();
    phone.tap((l + r) / 2, (t + b) / 2).await.unwrap();
    assert_eq!(harness.double(0).inputs(), vec![Input::Tap(504, 670)]);
    let next = phone.screen().await.unwrap();
    assert_eq!(next.package(), Some("com.example.wallet"));
}

#[tokio::test]
async fn text_keys_and_combinations_reach_the_phone_and_unicode_without_an_input_method_is_refused()
{
    let config = DoubleConfig::default().command(
        "ime list -s",
        Reply::stdout("com.android.inputmethod.latin/.LatinIME\n"),
    );
    let harness = AdbHarness::start(vec![config]);
    let phone = phone(&harness);
    phone
        .send(&PhoneInput::Text("Hello world".into()))
        .await
        .unwrap();
    phone.send(&PhoneInput::Key(keycode::ENTER)).await.unwrap();
    phone.set_screen(true).await.unwrap();
    let refused = phone.send(&PhoneInput::Unicode("苏州".into())).await;
    assert!(
        matches!(refused, Err(PhoneError::NoInputMethod(_))),
        "{refused:?}"
    );
    assert_eq!(
        harness.double(0).inputs(),
        vec![
            Input::Text("Hello%sworld".into()),
            Input::KeyEvent("66".into()),
            Input::KeyEvent("224".into()),
        ]
    );
}

#[tokio::test]
async fn an_exception_printed_with_exit_status_0_is_a_refusal() {
    let config = DoubleConfig::default().command(
        "input tap 1 2",
        Reply::stdout(
            "java.lang.SecurityException: Injecting input events requires the caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS permission.\n",
        ),
    );
    let harness = AdbHarness::start(vec![config]);
    let err = phone(&harness).tap(1, 2).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("the phone refused `input tap 1 2`: java.lang.SecurityException"),
        "{text}"
    );
}

#[tokio::test]
async fn focus_screenshot_and_a_phone_without_a_window() {
    let config = DoubleConfig::default().command(
        "dumpsys window displays",
        Reply::stdout(
            "  mCurrentFocus=Window{48b4735 u0 com.android.settings/com.android.settings.Settings}\n",
        ),
    );
    let harness = AdbHarness::start(vec![config]);
    let phone = phone(&harness);
    let focus = phone.focus().await.unwrap();
    assert_eq!(focus.package.as_deref(), Some("com.android.settings"));
    assert_eq!(phone.screenshot().await.unwrap(), tiny_png());
    // No screens configured: uiautomator prints its error with exit status 0.
    let err = phone.screen().await.unwrap_err();
    assert!(
        matches!(&err, PhoneError::Dump(DumpError::Failed(why)) if why.contains("null root node")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_build_that_cannot_dump_to_the_tty_is_read_through_a_file() {
    let config = DoubleConfig::default()
        .screens(&["launcher-miui-chinese.xml"])
        .command("uiautomator dump /dev/tty", Reply::stdout(""));
    let harness = AdbHarness::start(vec![config]);
    let screen = phone(&harness).screen().await.unwrap();
    assert_eq!(screen.package(), Some("com.miui.home"));
    let commands = harness.double(0).commands();
    assert!(
        commands
            .iter()
            .any(|c| c.contains("cat /data/local/tmp/deft-window.xml")),
        "{commands:?}"
    );
}
