//! The device double against the real adb server, driven by the `adb` program itself: the
//! server accepts it after `adb connect`, and `adb shell` gets its output and exit codes, `adb
//! pull` its dumped screen.

use deft_test_support::adb_double::{AdbHarness, DoubleConfig, Reply, android_fixture};

#[test]
fn the_real_adb_accepts_the_double() {
    let config = DoubleConfig::default().command("false", Reply::failure("", 1));
    let harness = AdbHarness::start(vec![config]);
    let serial = harness.double(0).serial();
    let ok = harness.adb(&["-s", &serial, "shell", "echo", "hi"]);
    assert_eq!(String::from_utf8_lossy(&ok.stdout), "hi\n");
    assert_eq!(ok.status.code(), Some(0));
    let failed = harness.adb(&["-s", &serial, "shell", "false"]);
    assert_eq!(failed.status.code(), Some(1));
    let missing = harness.adb(&["-s", &serial, "shell", "frobnicate"]);
    assert_eq!(missing.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "/system/bin/sh: frobnicate: inaccessible or not found\n"
    );
}

#[test]
fn adb_pulls_and_pushes_through_the_doubles_sync_service() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default().screens(&["launcher-aosp-legacy.xml"]),
    ]);
    let serial = harness.double(0).serial();
    let dumped = harness.adb_ok(&["-s", &serial, "shell", "uiautomator", "dump"]);
    assert_eq!(
        String::from_utf8_lossy(&dumped.stdout),
        "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    );
    let local = harness.home().join("dump.xml");
    let local_text = local.to_string_lossy().into_owned();
    harness.adb_ok(&[
        "-s",
        &serial,
        "pull",
        "/sdcard/window_dump.xml",
        &local_text,
    ]);
    assert_eq!(
        std::fs::read_to_string(&local).unwrap(),
        android_fixture("launcher-aosp-legacy.xml")
    );
    std::fs::write(&local, "pushed").unwrap();
    harness.adb_ok(&["-s", &serial, "push", &local_text, "/sdcard/up.txt"]);
    assert_eq!(
        harness.double(0).file("/sdcard/up.txt").as_deref(),
        Some(&b"pushed"[..])
    );
    let missing = harness.adb(&["-s", &serial, "pull", "/sdcard/nope", &local_text]);
    assert!(!missing.status.success());
}

#[test]
fn without_shell_v2_adb_falls_back_to_the_v1_shell() {
    let config = DoubleConfig {
        shell_v2: false,
        ..DoubleConfig::default()
    }
    .command("false", Reply::failure("nope\n", 1));
    let harness = AdbHarness::start(vec![config]);
    let serial = harness.double(0).serial();
    let ok = harness.adb(&["-s", &serial, "shell", "echo", "hi"]);
    assert_eq!(String::from_utf8_lossy(&ok.stdout), "hi\n");
    // shell v1 has no exit status and one stream: stderr arrives on stdout, adb exits 0
    let failed = harness.adb(&["-s", &serial, "shell", "false"]);
    assert_eq!(String::from_utf8_lossy(&failed.stdout), "nope\n");
    assert_eq!(failed.status.code(), Some(0));
    let commands = harness.double(0).commands();
    assert!(commands.contains(&"false".to_owned()), "{commands:?}");
}
