//! Faults in the middle of a command, against the real adb server with device doubles: the
//! phone's connection dropped, the phone gone, the adb server killed — each a typed error that
//! says the command may have run, never a hang; the tracker sees the phone leave, and the next
//! call brings the server back.

mod common;

use common::{has, until, until_received};
use deft_adb::AdbError;
use deft_test_support::adb_double::{Action, AdbDouble, AdbHarness, DoubleConfig};

#[tokio::test]
async fn a_phone_dropping_mid_command_is_disconnected_and_leaves_the_list() {
    let config = DoubleConfig::default().action(
        "long-job",
        Action::DropConnection {
            partial: b"half of it\n".to_vec(),
        },
    );
    let harness = AdbHarness::start(vec![config]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    let mut tracker = client.track_devices();
    until(&mut tracker, |d| has(d, &serial, "device")).await;
    let err = client.shell(&serial, "long-job").await.unwrap_err();
    assert!(matches!(err, AdbError::PhoneDisconnected { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "the phone '{serial}' disconnected while running `long-job`; it may have run: \
             reconnect it (check the cable, or `adb connect HOST:PORT` for a network phone), \
             then check what the command did before running it again"
        )
    );
    until(&mut tracker, |d| !has(d, &serial, "device")).await;
}

#[tokio::test]
async fn a_phone_gone_mid_command_is_disconnected_and_leaves_the_list() {
    let harness = AdbHarness::start(vec![]);
    let client = harness.client();
    let double = AdbDouble::start(DoubleConfig::default().action("sleep 3600", Action::Hang));
    let serial = double.serial();
    let mut tracker = client.track_devices();
    client.connect(&serial).await.unwrap();
    until(&mut tracker, |d| has(d, &serial, "device")).await;
    let running = tokio::spawn({
        let (client, serial) = (client.clone(), serial.clone());
        async move { client.shell(&serial, "sleep 3600").await }
    });
    until_received(&double, "sleep 3600").await;
    drop(double); // the phone pulled off
    let err = running.await.unwrap().unwrap_err();
    assert!(
        matches!(err, AdbError::PhoneDisconnected { ref command, .. } if command == "sleep 3600"),
        "{err:?}"
    );
    until(&mut tracker, |d| !has(d, &serial, "device")).await;
}

#[tokio::test]
async fn the_server_killed_mid_command_is_said_and_the_next_call_restarts_it() {
    let harness = AdbHarness::start(vec![
        DoubleConfig::default().action("sleep 3600", Action::Hang),
    ]);
    let (client, serial) = (harness.client(), harness.double(0).serial());
    let running = tokio::spawn({
        let (client, serial) = (client.clone(), serial.clone());
        async move { client.shell(&serial, "sleep 3600").await }
    });
    until_received(harness.double(0), "sleep 3600").await;
    harness.adb_ok(&["kill-server"]);
    let err = running.await.unwrap().unwrap_err();
    assert!(matches!(err, AdbError::ServerGone { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "the adb server on 127.0.0.1:{} went away while `sleep 3600` ran on '{serial}': the \
             command may or may not have run; check what it did before running it again (the \
             next call starts the server again if adb is installed)",
            harness.port()
        )
    );
    assert_eq!(client.version().await.unwrap(), 41, "the server is back");
}
