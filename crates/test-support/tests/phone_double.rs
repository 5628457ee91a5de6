//! The simulated phone (`DoubleConfig::phone()`) through the real adb server and deft's adb
//! client: apps opened with monkey and `am start`, taps at the centres of views read from the
//! dump, a list scrolled by a swipe, ASCII and Chinese typing, a dialog, keys, screen power,
//! a screenshot, and a slow dump that does not hold up the device's other streams.

use std::time::Duration;

use deft_adb::{AdbClient, ShellOutput};
use deft_test_support::adb_double::{AdbHarness, DoubleConfig};

/// A harness with one simulated phone, and deft's client of its server.
struct Rig {
    harness: AdbHarness,
    client: AdbClient,
    serial: String,
}

impl Rig {
    fn start(config: DoubleConfig) -> Rig {
        let harness = AdbHarness::start(vec![config]);
        let client = harness.client();
        let serial = harness.double(0).serial();
        Rig {
            harness,
            client,
            serial,
        }
    }

    async fn sh(&self, line: &str) -> ShellOutput {
        self.client
            .shell(&self.serial, line)
            .await
            .unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    /// Runs `line`, which must exit 0; its stdout.
    async fn ok(&self, line: &str) -> String {
        let out = self.sh(line).await;
        assert_eq!(
            out.exit_code,
            0,
            "{line}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }

    /// The screen's XML.
    async fn dump(&self) -> String {
        let out = self.ok("uiautomator dump /dev/tty").await;
        out.strip_suffix("UI hierchary dumped to: /dev/tty\n")
            .unwrap_or_else(|| panic!("no dump: {out}"))
            .to_owned()
    }

    /// Taps the centre of the view on screen whose resource id or text is `what`.
    async fn tap(&self, what: &str) {
        let xml = self.dump().await;
        let (x, y) = centre(&xml, what).unwrap_or_else(|| panic!("no {what} in {xml}"));
        self.ok(&format!("input tap {x} {y}")).await;
    }

    fn double(&self) -> &deft_test_support::adb_double::AdbDouble {
        self.harness.double(0)
    }
}

/// The centre of the first view whose resource id or text is `what`.
fn centre(xml: &str, what: &str) -> Option<(i32, i32)> {
    let doc = roxmltree::Document::parse(xml).expect("a dump is XML");
    let node = doc
        .descendants()
        .find(|n| n.attribute("resource-id") == Some(what) || n.attribute("text") == Some(what))?;
    let bounds: Vec<i32> = node
        .attribute("bounds")?
        .split(['[', ']', ','])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("a bound is a number"))
        .collect();
    Some(((bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2))
}

/// The texts a dump shows.
fn texts(xml: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(xml).expect("a dump is XML");
    doc.descendants()
        .filter_map(|n| n.attribute("text"))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn the_calculator_adds_what_its_buttons_are_tapped() {
    let rig = Rig::start(DoubleConfig::phone());
    let launched = rig
        .ok("monkey -p com.android.calculator2 -c android.intent.category.LAUNCHER 1")
        .await;
    assert!(launched.contains("Events injected: 1"), "{launched}");
    let focus = rig.ok("dumpsys window displays").await;
    assert!(
        focus.contains("mCurrentFocus=Window{")
            && focus.contains(" u0 com.android.calculator2/com.android.calculator2.Calculator}"),
        "{focus}"
    );
    assert!(focus.contains("mFocusedApp=ActivityRecord{"), "{focus}");
    assert!(
        focus.contains(" u0 com.android.calculator2/.Calculator t"),
        "{focus}"
    );
    for key in ["digit_7", "op_add", "digit_8", "eq"] {
        rig.tap(&format!("com.android.calculator2:id/{key}")).await;
    }
    let xml = rig.dump().await;
    let result = centre(&xml, "com.android.calculator2:id/result");
    assert!(result.is_some());
    assert!(texts(&xml).contains(&"15".to_owned()), "{xml}");
    assert_eq!(
        rig.double().calculator(),
        Some(("7+8".to_owned(), "15".to_owned()))
    );
    rig.tap("com.android.calculator2:id/clr").await;
    assert_eq!(
        rig.double().calculator(),
        Some((String::new(), String::new()))
    );
}

#[tokio::test]
async fn a_swipe_scrolls_settings_to_rows_below_the_screen() {
    let rig = Rig::start(DoubleConfig::phone());
    rig.ok("am start -n com.android.settings/.Settings").await;
    let first = rig.dump().await;
    assert!(texts(&first).contains(&"Storage".to_owned()), "{first}");
    assert!(!texts(&first).contains(&"About phone".to_owned()));
    let (x, y) = centre(&first, "Sound & vibration").unwrap();
    // a swipe up moves the list by as many rows as the finger travelled: twice to the end
    rig.ok(&format!("input swipe {x} {y} {x} {} 300", y - 1000))
        .await;
    let half = texts(&rig.dump().await);
    assert!(half.contains(&"Battery".to_owned()), "{half:?}");
    assert!(!half.contains(&"About phone".to_owned()), "{half:?}");
    rig.ok(&format!("input swipe {x} {y} {x} {} 300", y - 1000))
        .await;
    let scrolled = rig.dump().await;
    let shown = texts(&scrolled);
    assert!(shown.contains(&"About phone".to_owned()), "{scrolled}");
    assert!(!shown.contains(&"Account Holder".to_owned()), "{shown:?}");
    rig.tap("About phone").await;
    let about = texts(&rig.dump().await);
    assert!(about.contains(&"Android version".to_owned()), "{about:?}");
    rig.ok("input keyevent KEYCODE_BACK").await;
    assert!(texts(&rig.dump().await).contains(&"About phone".to_owned()));
}

#[tokio::test]
async fn ascii_types_with_input_text_and_chinese_only_through_adbkeyboard() {
    let rig = Rig::start(DoubleConfig::phone());
    rig.ok("am start -n com.example.form/.MainActivity").await;
    rig.tap("com.example.form:id/name").await;
    rig.ok("input text 'Ada%sLovelace'").await;
    assert_eq!(
        rig.double()
            .field_text("com.example.form:id/name")
            .as_deref(),
        Some("Ada Lovelace")
    );
    rig.ok("input keyevent 67").await;
    assert_eq!(
        rig.double()
            .field_text("com.example.form:id/name")
            .as_deref(),
        Some("Ada Lovelac")
    );

    rig.ok("monkey -p com.example.notes -c android.intent.category.LAUNCHER 1")
        .await;
    rig.tap("com.example.notes:id/note").await;
    let refused = rig.sh("input text '你好'").await;
    assert_eq!(refused.exit_code, 255);
    assert!(
        String::from_utf8_lossy(&refused.stderr).starts_with(
            "Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n"
        ),
        "{refused:?}"
    );
    let note = "com.example.notes:id/note";
    assert_eq!(rig.double().field_text(note).as_deref(), Some(""));
    // a broadcast while another IME is current reaches nobody
    let b64 = "5L2g5aW9"; // 你好
    let ignored = rig
        .ok(&format!("am broadcast -a ADB_INPUT_B64 --es msg {b64}"))
        .await;
    assert_eq!(
        ignored,
        "Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n"
    );
    assert_eq!(rig.double().field_text(note).as_deref(), Some(""));
    let ime = "com.android.adbkeyboard/.AdbIME";
    let set_early = rig.sh(&format!("ime set {ime}")).await;
    assert_ne!(set_early.exit_code, 0, "not enabled yet");
    rig.ok(&format!("ime enable {ime}")).await;
    assert!(rig.ok("ime list -s").await.lines().any(|l| l == ime));
    assert_eq!(
        rig.ok(&format!("ime set {ime}")).await,
        format!("Input method {ime} selected for user #0\n")
    );
    assert_eq!(
        rig.ok("settings get secure default_input_method").await,
        format!("{ime}\n")
    );
    assert_eq!(rig.double().ime(), ime);
    rig.ok(&format!("am broadcast -a ADB_INPUT_B64 --es msg {b64}"))
        .await;
    assert_eq!(rig.double().field_text(note).as_deref(), Some("你好"));
    let shown = texts(&rig.dump().await);
    assert!(shown.contains(&"你好".to_owned()), "{shown:?}");
    rig.ok("am broadcast -a ADB_CLEAR_TEXT").await;
    assert_eq!(rig.double().field_text(note).as_deref(), Some(""));
}

#[tokio::test]
async fn without_adbkeyboard_its_ime_is_unknown() {
    let rig = Rig::start(DoubleConfig::phone().without_adb_keyboard());
    let packages = rig.ok("pm list packages").await;
    assert!(packages.contains("package:com.android.settings\n"));
    assert!(!packages.contains("adbkeyboard"), "{packages}");
    let enable = rig.sh("ime enable com.android.adbkeyboard/.AdbIME").await;
    assert_ne!(enable.exit_code, 0);
    assert!(
        !rig.double()
            .packages()
            .iter()
            .any(|p| p.contains("adbkeyboard"))
    );
}

#[tokio::test]
async fn submit_opens_a_dialog_that_back_closes() {
    let rig = Rig::start(DoubleConfig::phone());
    rig.ok("am start -n com.example.form/.MainActivity").await;
    rig.tap("com.example.form:id/city").await;
    rig.ok("input text Paris").await;
    rig.tap("Submit").await;
    let dialog = rig.dump().await;
    assert!(
        dialog.contains("resource-id=\"android:id/alertTitle\""),
        "{dialog}"
    );
    assert!(texts(&dialog).contains(&"Saved".to_owned()));
    assert!(centre(&dialog, "android:id/button1").is_some());
    assert!(
        centre(&dialog, "com.example.form:id/submit").is_none(),
        "the dialog's window alone"
    );
    let focus = rig.ok("dumpsys window windows").await;
    assert!(focus.contains(" u0 Saved}"), "{focus}");
    assert!(
        focus.contains(" u0 com.example.form/.MainActivity t"),
        "{focus}"
    );
    rig.ok("input keyevent 4").await;
    let form = rig.dump().await;
    assert!(
        centre(&form, "com.example.form:id/submit").is_some(),
        "{form}"
    );
    assert_eq!(rig.double().foreground(), "com.example.form");
    rig.tap("Submit").await;
    rig.tap("android:id/button1").await;
    assert!(centre(&rig.dump().await, "com.example.form:id/submit").is_some());
    rig.ok("input keyevent 4").await;
    assert_eq!(
        rig.double().foreground(),
        "com.android.launcher3",
        "BACK leaves the app"
    );
}

#[tokio::test]
async fn a_dark_screen_cannot_be_dumped_until_it_wakes() {
    let rig = Rig::start(DoubleConfig::phone());
    assert!(
        rig.ok("dumpsys power")
            .await
            .contains("Display Power: state=ON")
    );
    rig.ok("input keyevent KEYCODE_SLEEP").await;
    assert!(!rig.double().screen_on());
    let power = rig.ok("dumpsys power").await;
    assert!(power.contains("mWakefulness=Asleep") && power.contains("Display Power: state=OFF"));
    let dark = rig.sh("uiautomator dump /dev/tty").await;
    assert_eq!(
        String::from_utf8_lossy(&dark.stderr),
        "ERROR: null root node returned by UiTestAutomationBridge.\n"
    );
    assert!(dark.stdout.is_empty());
    rig.ok("input keyevent 224").await;
    assert!(rig.double().screen_on());
    assert!(rig.dump().await.contains("com.android.launcher3"));
    rig.ok("input keyevent 26").await;
    assert!(!rig.double().screen_on(), "POWER toggles");
    rig.ok("svc power stayon usb").await;
    assert_eq!(
        rig.ok("settings get global stay_on_while_plugged_in").await,
        "2\n"
    );
    assert_eq!(rig.double().stay_on(), 2);
}

#[tokio::test]
async fn home_recents_and_force_stop_move_the_front_app() {
    let rig = Rig::start(DoubleConfig::phone());
    rig.tap("Calculator").await;
    assert_eq!(rig.double().foreground(), "com.android.calculator2");
    rig.tap("com.android.calculator2:id/digit_4").await;
    rig.ok("input keyevent KEYCODE_HOME").await;
    assert_eq!(rig.double().foreground(), "com.android.launcher3");
    rig.ok("input keyevent 187").await;
    assert!(rig.dump().await.contains("com.android.systemui"));
    rig.ok("input keyevent 4").await;
    rig.ok("monkey -p com.android.calculator2 -c android.intent.category.LAUNCHER 1")
        .await;
    assert_eq!(
        rig.double().calculator(),
        Some(("4".to_owned(), String::new())),
        "a running app keeps its state"
    );
    rig.ok("am force-stop com.android.calculator2").await;
    assert_eq!(rig.double().foreground(), "com.android.launcher3");
    assert_eq!(rig.double().calculator(), None);
    let focus = rig.ok("dumpsys window displays").await;
    assert!(
        focus.contains("com.android.launcher3/.uioverrides.QuickstepLauncher"),
        "{focus}"
    );
}

#[tokio::test]
async fn unknown_packages_and_activities_fail_as_on_a_phone() {
    let rig = Rig::start(DoubleConfig::phone());
    let monkey = rig
        .sh("monkey -p com.nosuch.app -c android.intent.category.LAUNCHER 1")
        .await;
    assert_eq!(monkey.exit_code, 252);
    assert!(
        String::from_utf8_lossy(&monkey.stdout)
            .ends_with("** No activities found to run, monkey aborted.\n")
    );
    let start = rig.ok("am start -n com.android.settings/.Nope").await;
    assert!(
        start.contains("Error: Activity class {com.android.settings/.Nope} does not exist."),
        "{start}"
    );
    assert_eq!(
        rig.ok("cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.nosuch.app")
            .await,
        "No activity found\n"
    );
    let resolved = rig
        .ok("cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.android.settings")
        .await;
    assert_eq!(
        resolved.lines().nth(1),
        Some("com.android.settings/.Settings")
    );
    assert_eq!(rig.sh("pm path com.nosuch.app").await.exit_code, 1);
    assert_eq!(rig.double().foreground(), "com.android.launcher3");
    assert_eq!(rig.ok("getprop ro.build.version.sdk").await, "34\n");
    assert_eq!(rig.ok("wm size").await, "Physical size: 1080x2400\n");
}

#[tokio::test]
async fn a_pushed_apk_installs_and_a_text_file_does_not() {
    let rig = Rig::start(DoubleConfig::phone());
    let home = rig.harness.home().to_owned();
    let apk = home.join("com.example.fresh.apk");
    std::fs::write(&apk, b"PK\x03\x04 a zip").unwrap();
    let text = home.join("notes.txt");
    std::fs::write(&text, b"not an apk").unwrap();
    for (local, remote) in [
        (&apk, "/data/local/tmp/com.example.fresh.apk"),
        (&text, "/data/local/tmp/x.apk"),
    ] {
        rig.harness
            .adb_ok(&["-s", &rig.serial, "push", &local.to_string_lossy(), remote]);
    }
    let bad = rig.sh("pm install -r -t /data/local/tmp/x.apk").await;
    assert_eq!(bad.exit_code, 1);
    assert!(
        String::from_utf8_lossy(&bad.stdout).starts_with("Failure [INSTALL_PARSE_FAILED_NOT_APK:")
    );
    assert_eq!(
        rig.ok("pm install -r -t /data/local/tmp/com.example.fresh.apk")
            .await,
        "Success\n"
    );
    assert!(
        rig.double()
            .packages()
            .contains(&"com.example.fresh".to_owned())
    );
    assert!(
        rig.ok("pm path com.example.fresh")
            .await
            .starts_with("package:/data/app/")
    );
    rig.tap("com.example.fresh").await;
    assert_eq!(rig.double().foreground(), "com.example.fresh");
}

#[tokio::test]
async fn screencap_is_a_png_of_the_screen_size() {
    let rig = Rig::start(DoubleConfig::phone());
    let png = rig
        .client
        .exec_out(&rig.serial, "screencap -p")
        .await
        .unwrap();
    let image = image::load_from_memory(&png).unwrap().to_rgb8();
    assert_eq!(image.dimensions(), (1080, 2400));
    assert!(image.pixels().any(|p| p.0 != [0, 0, 0]), "a lit screen");
    rig.ok("input keyevent 223").await;
    let dark = rig
        .client
        .exec_out(&rig.serial, "screencap -p")
        .await
        .unwrap();
    let dark = image::load_from_memory(&dark).unwrap().to_rgb8();
    assert!(
        dark.pixels().all(|p| p.0 == [0, 0, 0]),
        "a dark screen is black"
    );
}

#[tokio::test]
async fn a_slow_dump_holds_up_no_other_command() {
    // a dump that takes far longer than the client waits: a double that held its other
    // streams up meanwhile would let `wm size` time out
    let rig = Rig::start(DoubleConfig::phone().dump_latency(Duration::from_secs(60)));
    let slow = rig.client.shell(&rig.serial, "uiautomator dump /dev/tty");
    tokio::pin!(slow);
    let patient = rig.client.clone().with_timeout(Duration::from_secs(20));
    let other = tokio::select! {
        done = &mut slow => panic!("the dump came back first: {done:?}"),
        size = patient.shell(&rig.serial, "wm size") => size.unwrap(),
    };
    assert_eq!(
        String::from_utf8_lossy(&other.stdout),
        "Physical size: 1080x2400\n"
    );
    assert!(
        futures::poll!(&mut slow).is_pending(),
        "the dump is still out"
    );
}

#[tokio::test]
async fn an_animating_screen_fails_dumps_until_it_settles() {
    let rig = Rig::start(DoubleConfig::phone().unsettled_dumps(2));
    rig.ok("am start -n com.android.settings/.Settings").await;
    for _ in 0..2 {
        let busy = rig.sh("uiautomator dump /dev/tty").await;
        assert_eq!(
            String::from_utf8_lossy(&busy.stderr),
            "ERROR: could not get idle state.\n"
        );
    }
    assert!(rig.dump().await.contains("com.android.settings"));
}

#[tokio::test]
async fn gestures_and_combinations_are_recorded_and_a_motion_tap_taps() {
    use deft_test_support::adb_double::Input;
    let rig = Rig::start(DoubleConfig::phone());
    let xml = rig.dump().await;
    let (x, y) = centre(&xml, "Settings").unwrap();
    rig.ok(&format!("input motionevent DOWN {x} {y}")).await;
    rig.ok(&format!("input motionevent UP {x} {y}")).await;
    assert_eq!(rig.double().foreground(), "com.android.settings");
    rig.ok("input keycombination 113 29").await;
    let inputs = rig.double().inputs();
    assert!(inputs.contains(&Input::Motion("DOWN".into(), x.into(), y.into())));
    assert!(inputs.contains(&Input::KeyCombination(vec!["113".into(), "29".into()])));
}
