//! deft's adb client against the real adb server, with device doubles as the phones
//! (`deft_test_support::adb_double`): the device list, shell output and exit codes, binary and
//! large `exec-out`, pull, refusals, quoting, starting the server, a phone's details and two
//! phones at once (faults mid-command: faults.rs; the tracked list: track.rs).

use deft_adb::{AdbClient, AdbError, PhoneDetails, quote_command};
use deft_test_support::adb_double::{
    Action, AdbDouble, AdbHarness, DoubleConfig, Input, Reply, android_fixture, tiny_png,
};

#[tokio::test]
async fn devices_lists_two_doubles_with_their_models() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default().model("Pixel 7"),
        DoubleConfig::default().model("SM-G960F"),
    ]);
    let client = harness.client();
    assert_eq!(client.version().await.unwrap(), 41);
    let devices = client.devices().await.unwrap();
    for (i, model) in [(0, "Pixel_7"), (1, "SM_G960F")] {
        let serial = harness.double(i).serial();
        let device = devices
            .iter()
            .find(|d| d.serial == serial)
            .unwrap_or_else(|| panic!("{serial} missing from {devices:?}"));
        assert_eq!(device.state, "device");
        assert_eq!(device.model.as_deref(), Some(model));
        assert_eq!(device.product.as_deref(), Some("sdk_gphone"));
        assert_eq!(device.device.as_deref(), Some("double"));
        assert!(device.transport_id.is_some(), "{device:?}");
    }
    assert_eq!(devices.len(), 2, "{devices:?}");
}

#[tokio::test]
async fn shell_gives_stdout_stderr_and_exit_codes() {
    let config = DoubleConfig::default().command(
        "check-things",
        Reply {
            stdout: b"out\n".to_vec(),
            stderr: b"err\n".to_vec(),
            exit: 1,
        },
    );
    let harness = AdbHarness::start(vec![config]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    // three streams open at once on one device
    let (ok, failed, missing) = tokio::join!(
        client.shell(&serial, "echo hi there"),
        client.shell(&serial, "check-things"),
        client.shell(&serial, "frobnicate --now"),
    );
    let ok = ok.unwrap();
    assert_eq!(
        (ok.stdout.as_slice(), ok.stderr.as_slice(), ok.exit_code),
        (&b"hi there\n"[..], &b""[..], 0)
    );
    let failed = failed.unwrap();
    assert_eq!(
        (
            failed.stdout.as_slice(),
            failed.stderr.as_slice(),
            failed.exit_code
        ),
        (&b"out\n"[..], &b"err\n"[..], 1)
    );
    let missing = missing.unwrap();
    assert_eq!(missing.exit_code, 127);
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "/system/bin/sh: frobnicate: inaccessible or not found\n"
    );
    assert!(missing.stdout.is_empty());
}

#[tokio::test]
async fn exec_out_is_binary_safe() {
    let harness = AdbHarness::start(vec![DoubleConfig::default()]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    let png = client.exec_out(&serial, "screencap -p").await.unwrap();
    assert_eq!(png, tiny_png());
    assert_eq!(
        &png[..8],
        b"\x89PNG\r\n\x1a\n",
        "the signature's CR LF intact"
    );
    let through_shell = client.shell(&serial, "screencap -p").await.unwrap();
    assert_eq!(through_shell.stdout, png);
}

#[tokio::test]
async fn a_large_exec_out_arrives_whole() {
    // 3 MB in a pattern no two chunks share: a lost, doubled or reordered WRTE shows
    let big: Vec<u8> = (0..3_000_000u32)
        .map(|i| (i % 251) as u8 ^ (i / 251 % 256) as u8)
        .collect();
    let harness = AdbHarness::start(vec![
        DoubleConfig::default().command("cat /sdcard/big.bin", Reply::stdout(big.clone())),
    ]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    let out = client
        .exec_out(&serial, "cat /sdcard/big.bin")
        .await
        .unwrap();
    assert_eq!(out.len(), big.len());
    assert!(out == big, "the bytes differ");
    let shell = client.shell(&serial, "cat /sdcard/big.bin").await.unwrap();
    assert!(shell.stdout == big, "the shell-v2 bytes differ");
    assert_eq!(shell.exit_code, 0);
}

#[tokio::test]
async fn a_dumped_screen_can_be_pulled_and_read_from_the_tty() {
    let config = DoubleConfig::default().screens(&["settings-android14.xml"]);
    let harness = AdbHarness::start(vec![config]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    let xml = android_fixture("settings-android14.xml");
    let dumped = client
        .shell(&serial, "uiautomator dump /sdcard/window_dump.xml")
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&dumped.stdout),
        "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    );
    let pulled = client
        .pull(&serial, "/sdcard/window_dump.xml")
        .await
        .unwrap();
    assert_eq!(String::from_utf8(pulled).unwrap(), xml);
    let tty = client
        .exec_out(&serial, "uiautomator dump /dev/tty")
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(tty).unwrap(),
        format!("{xml}UI hierchary dumped to: /dev/tty\n")
    );
    let missing = client.pull(&serial, "/sdcard/nope.xml").await.unwrap_err();
    assert_eq!(
        missing.to_string(),
        format!("device '{serial}' could not send /sdcard/nope.xml: No such file or directory")
    );
}

#[tokio::test]
async fn refusals_are_clear_errors() {
    let harness = AdbHarness::start(vec![DoubleConfig::default()]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    // an empty shell command asks for an interactive shell, which the double refuses (CLSE)
    let refused = client.shell(&serial, "").await.unwrap_err();
    assert!(
        matches!(refused, AdbError::ServiceRefused { .. }),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        format!(
            "device '{serial}' refused the service `shell,v2,raw:`: it does not offer it (too old \
             an Android, or a service name it does not know)"
        )
    );
    // a request's length travels as four hex digits: a longer one is refused before it is sent
    let long = format!("echo {}", "x".repeat(70_000));
    let too_long = client.shell(&serial, &long).await.unwrap_err();
    assert!(
        too_long
            .to_string()
            .contains("the request is longer than the 65535 bytes the adb server takes"),
        "{too_long}"
    );
    let fits = format!("echo {}", "y".repeat(60_000));
    let echoed = client.shell(&serial, &fits).await.unwrap();
    assert_eq!(
        echoed.stdout.len(),
        60_001,
        "the longest request still runs"
    );
    let unknown = client.shell("127.0.0.1:1", "echo hi").await.unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "no device '127.0.0.1:1' is connected to the adb server: pick a serial from the device \
         list, or connect the device first (adb connect HOST:PORT)"
    );
}

#[tokio::test]
async fn connect_and_disconnect_report_what_the_server_said() {
    let harness = AdbHarness::start(vec![]);
    let client = harness.client();
    let double = AdbDouble::start(DoubleConfig::default());
    let serial = double.serial();
    assert_eq!(
        client.connect(&serial).await.unwrap(),
        format!("connected to {serial}")
    );
    assert_eq!(
        client.connect(&serial).await.unwrap(),
        format!("already connected to {serial}")
    );
    assert_eq!(
        client.disconnect(&serial).await.unwrap(),
        format!("disconnected {serial}")
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let target = format!("127.0.0.1:{}", closed.local_addr().unwrap().port());
    drop(closed);
    let failed = client.connect(&target).await.unwrap_err();
    assert!(
        matches!(failed, AdbError::ConnectFailed { .. }),
        "{failed:?}"
    );
    assert!(
        failed.to_string().starts_with(&format!(
            "adb could not connect to {target}: failed to connect to"
        )),
        "{failed}"
    );
}

#[tokio::test]
async fn a_hostile_argument_reaches_the_device_as_one_literal() {
    let config =
        DoubleConfig::default().screens(&["launcher-aosp-legacy.xml", "settings-android14.xml"]);
    let config = DoubleConfig {
        input_advances_screen: true,
        ..config
    };
    let harness = AdbHarness::start(vec![config]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    let hostile = "a;b $(reboot) `id` 'q' \"d\" && exit 3\nline two %s \\";
    let command = quote_command(&["input", "text", hostile]).unwrap();
    let out = client.shell(&serial, &command).await.unwrap();
    assert_eq!(out.exit_code, 0, "{}", String::from_utf8_lossy(&out.stderr));
    let tap = quote_command(&["input", "tap", "540", "1200"]).unwrap();
    client.shell(&serial, &tap).await.unwrap();
    let double = harness.double(0);
    assert_eq!(
        double.inputs(),
        [Input::Text(hostile.to_owned()), Input::Tap(540, 1200)]
    );
    assert_eq!(
        double.screen(),
        1,
        "each input moved the screen on, the last one stays"
    );
}

#[tokio::test]
async fn with_no_server_running_the_client_starts_one() {
    let harness = AdbHarness::without_server();
    let client = harness.client();
    assert_eq!(client.version().await.unwrap(), 41);
    assert!(client.devices().await.unwrap().is_empty());
    assert!(
        harness.home().join(".android/adbkey").exists(),
        "the server used the private HOME"
    );
}

#[tokio::test]
async fn with_adb_missing_the_error_says_how_to_install_it() {
    let harness = AdbHarness::without_server();
    let empty = deft_test_support::TempDataDir::new().unwrap(); // a PATH with no adb
    let client = AdbClient::new(harness.port()).with_path(empty.path());
    let err = client.version().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "no adb server answers on 127.0.0.1:{port} and the adb program is not on PATH: \
             install adb (Debian: apt-get install adb), or start an adb server on port {port}",
            port = harness.port()
        )
    );
}

#[tokio::test]
async fn a_device_that_never_answers_is_a_timeout() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default().action("sleep 3600", Action::Hang),
    ]);
    let serial = harness.double(0).serial();
    let client = harness
        .client()
        .with_timeout(std::time::Duration::from_secs(1));
    let err = client.shell(&serial, "sleep 3600").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the adb server did not finish `sleep 3600` on '{serial}' within 1 s: check that the \
             device still answers (adb devices) and try again"
        )
    );
    // the device itself still answers (a client with the default limit: no timing luck)
    let patient = harness.client();
    assert_eq!(
        patient.shell(&serial, "echo hi").await.unwrap().exit_code,
        0
    );
}

#[tokio::test]
async fn an_unauthorized_device_says_to_accept_the_prompt() {
    let harness = AdbHarness::start(vec![]);
    let client = harness.client();
    let double = AdbDouble::start(DoubleConfig {
        unauthorized: true,
        ..DoubleConfig::default()
    });
    let serial = double.serial();
    // `connect` waits for a CNXN that never comes; the server lists the device meanwhile
    let connecting = tokio::spawn({
        let (client, serial) = (client.clone(), serial.clone());
        async move { client.connect(&serial).await }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let devices = client.devices().await.unwrap();
        if devices
            .iter()
            .any(|d| d.serial == serial && d.state == "unauthorized")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never unauthorized: {devices:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let err = client.shell(&serial, "echo hi").await.unwrap_err();
    assert!(
        matches!(err, AdbError::DeviceState { ref state, .. } if state == "unauthorized"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "device '{serial}' is unauthorized: unlock the phone and accept its 'Allow USB \
             debugging?' prompt (tick 'Always allow from this computer'); no prompt? unplug and \
             plug it in again, or revoke the USB debugging authorizations in Developer options — \
             the key the phone is asked to trust is ~/.android/adbkey of the user running the adb \
             server"
        )
    );
    connecting.abort();
}

#[tokio::test]
async fn a_phone_without_shell_v2_is_refused_clearly() {
    let harness = AdbHarness::start(vec![DoubleConfig {
        shell_v2: false,
        ..DoubleConfig::default()
    }]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    let err = client.shell(&serial, "echo hi").await.unwrap_err();
    assert!(matches!(err, AdbError::ServiceRefused { .. }), "{err:?}");
    // exec-out needs no shell protocol
    assert_eq!(client.exec_out(&serial, "echo hi").await.unwrap(), b"hi\n");
}

/// The one command `details` runs.
const PROPERTIES: &str =
    "getprop ro.product.model; getprop ro.build.version.release; getprop ro.build.version.sdk";

#[tokio::test]
async fn details_read_model_version_and_sdk_in_one_command() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default().command(PROPERTIES, Reply::stdout("Pixel 7\n14\n34\n")),
        // no ro.product.model: the device list's model stands in
        DoubleConfig::default()
            .model("SM-G960F")
            .command(PROPERTIES, Reply::stdout("\n8.1.0\n27\n")),
        DoubleConfig::default(), // no getprop at all
    ]);
    let client = harness.client();
    let serial = |i: usize| harness.double(i).serial();
    assert_eq!(
        client.details(&serial(0)).await.unwrap(),
        PhoneDetails {
            model: Some("Pixel 7".into()),
            android_version: Some("14".into()),
            sdk: Some(34),
        }
    );
    assert_eq!(harness.double(0).commands(), [PROPERTIES], "one round trip");
    assert_eq!(
        client.details(&serial(1)).await.unwrap(),
        PhoneDetails {
            model: Some("SM_G960F".into()),
            android_version: Some("8.1.0".into()),
            sdk: Some(27),
        }
    );
    let err = client.details(&serial(2)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "device '{}' could not read its properties with getprop (exit status 127: \
             /system/bin/sh: getprop: inaccessible or not found): is it an Android device \
             running its system?",
            serial(2)
        )
    );
}

#[tokio::test]
async fn two_phones_run_commands_at_once_without_cross_talk() {
    // each phone answers the same command with its own bytes, large enough for many WRTEs
    let body = |seed: u8| -> Vec<u8> {
        (0..300_000u32)
            .map(|i| (i % 253) as u8 ^ seed.wrapping_mul((i / 253) as u8 | 1))
            .collect()
    };
    let (a, b) = (body(3), body(7));
    let harness = AdbHarness::start(vec![
        DoubleConfig::default()
            .model("Phone A")
            .command("cat /sdcard/id", Reply::stdout(a.clone())),
        DoubleConfig::default()
            .model("Phone B")
            .command("cat /sdcard/id", Reply::stdout(b.clone())),
    ]);
    let client = harness.client();
    let mut calls = tokio::task::JoinSet::new();
    for round in 0..6 {
        for phone in 0..2 {
            let (client, serial) = (client.clone(), harness.double(phone).serial());
            calls.spawn(async move {
                let id = client.shell(&serial, "cat /sdcard/id").await.unwrap();
                let echo = client
                    .shell(&serial, &format!("echo {phone}-{round}"))
                    .await
                    .unwrap();
                let raw = client.exec_out(&serial, "cat /sdcard/id").await.unwrap();
                (phone, round, id.stdout, echo.stdout, raw)
            });
        }
    }
    let mut seen = 0;
    while let Some(done) = calls.join_next().await {
        let (phone, round, id, echo, raw) = done.unwrap();
        let expected = if phone == 0 { &a } else { &b };
        assert!(
            &id == expected && &raw == expected,
            "phone {phone} got other bytes"
        );
        assert_eq!(echo, format!("{phone}-{round}\n").into_bytes());
        seen += 1;
    }
    assert_eq!(seen, 12);
    for phone in 0..2 {
        let commands = harness.double(phone).commands();
        assert_eq!(commands.len(), 18, "{commands:?}");
        let mine = format!("echo {phone}-");
        assert!(
            commands
                .iter()
                .all(|c| c == "cat /sdcard/id" || c.starts_with(&mine)),
            "phone {phone} ran another phone's commands: {commands:?}"
        );
    }
}
