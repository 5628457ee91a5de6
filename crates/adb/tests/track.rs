//! The device list followed as it changes (`AdbClient::track_devices`) against the real adb
//! server with device doubles: phones appearing and leaving, an unauthorized one with what to do
//! about it, the server killed and back, and a dropped tracker letting go of its connection.

mod common;

use common::{LIMIT, has, until};
use deft_adb::{AdbClient, AdbError, TrackEvent};
use deft_test_support::adb_double::{AdbDouble, AdbHarness, DoubleConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn phones_appear_and_leave_while_tracked() {
    let harness = AdbHarness::start(vec![DoubleConfig::default()]);
    let client = harness.client();
    let first = harness.double(0).serial();
    let mut tracker = client.track_devices();
    // the whole list comes at once, without a change
    match tracker.next().await {
        Some(TrackEvent::Devices(devices)) => {
            assert!(has(&devices, &first, "device"), "{devices:?}")
        }
        other => panic!("the first event: {other:?}"),
    }
    let second = AdbDouble::start(DoubleConfig::default().model("SM-G960F"));
    let serial = second.serial();
    client.connect(&serial).await.unwrap();
    let devices = until(&mut tracker, |d| has(d, &serial, "device")).await;
    let added = devices.iter().find(|d| d.serial == serial).unwrap();
    assert_eq!(added.model.as_deref(), Some("SM_G960F"));
    assert!(has(&devices, &first, "device"), "{devices:?}");
    client.disconnect(&serial).await.unwrap();
    let devices = until(&mut tracker, |d| !d.iter().any(|d| d.serial == serial)).await;
    assert!(has(&devices, &first, "device"), "{devices:?}");
}

#[tokio::test]
async fn an_unauthorized_phone_is_tracked_with_what_to_do() {
    let harness = AdbHarness::start(vec![]);
    let client = harness.client();
    let mut tracker = client.track_devices();
    until(&mut tracker, <[_]>::is_empty).await;
    let double = AdbDouble::start(DoubleConfig {
        unauthorized: true,
        ..DoubleConfig::default()
    });
    let serial = double.serial();
    // `connect` waits for a CNXN that never comes; the server lists the phone meanwhile
    let connecting = tokio::spawn({
        let (client, serial) = (client.clone(), serial.clone());
        async move { client.connect(&serial).await }
    });
    let devices = until(&mut tracker, |d| has(d, &serial, "unauthorized")).await;
    let phone = devices.iter().find(|d| d.serial == serial).unwrap();
    assert!(!phone.is_ready());
    assert_eq!(
        phone.state_advice().as_deref(),
        Some(
            "unlock the phone and accept its 'Allow USB debugging?' prompt (tick 'Always allow \
             from this computer'); no prompt? unplug and plug it in again, or revoke the USB \
             debugging authorizations in Developer options — the key the phone is asked to trust \
             is ~/.android/adbkey of the user running the adb server"
        )
    );
    connecting.abort();
}

#[tokio::test]
async fn the_tracker_reports_the_server_killed_and_follows_it_back() {
    let harness = AdbHarness::start(vec![DoubleConfig::default()]);
    let serial = harness.double(0).serial();
    let mut tracker = harness.client().track_devices();
    until(&mut tracker, |d| has(d, &serial, "device")).await;
    harness.adb_ok(&["kill-server"]);
    let outage = outage_after_lists(&mut tracker).await;
    assert!(
        matches!(outage, AdbError::ServerStopped(port) if port == harness.port()),
        "{outage:?}"
    );
    assert_eq!(
        outage.to_string(),
        format!(
            "the adb server on 127.0.0.1:{} stopped: the device list is unknown until it is \
             back; deft reconnects by itself (starting it once if adb is installed)",
            harness.port()
        )
    );
    // the tracker started the server again: a fresh server, which has not connected the phone
    until(&mut tracker, |d| d.is_empty()).await;
    harness.adb_ok(&["connect", &serial]);
    until(&mut tracker, |d| has(d, &serial, "device")).await;
    // a second outage: reported again, and the server started again
    harness.adb_ok(&["kill-server"]);
    outage_after_lists(&mut tracker).await;
    until(&mut tracker, |d| d.is_empty()).await;
}

/// The next outage, after lists the server may still send.
async fn outage_after_lists(tracker: &mut deft_adb::DeviceTracker) -> AdbError {
    loop {
        match tokio::time::timeout(LIMIT, tracker.next()).await {
            Ok(Some(TrackEvent::Outage(error))) => return error,
            Ok(Some(TrackEvent::Devices(_))) => continue, // the server's last words
            other => panic!("no outage reported: {other:?}"),
        }
    }
}

#[tokio::test]
async fn with_adb_missing_the_tracker_says_how_to_install_it() {
    let harness = AdbHarness::without_server();
    let empty = deft_test_support::TempDataDir::new().unwrap(); // a PATH with no adb
    let mut tracker = AdbClient::new(harness.port())
        .with_path(empty.path())
        .track_devices();
    let event = tokio::time::timeout(LIMIT, tracker.next()).await.unwrap();
    let Some(TrackEvent::Outage(error)) = event else {
        panic!("not an outage: {event:?}");
    };
    assert!(matches!(error, AdbError::NotInstalled(_)), "{error:?}");
    // once the server is there (started by someone else), the list follows
    harness.adb_ok(&["start-server"]);
    until(&mut tracker, <[_]>::is_empty).await;
}

#[tokio::test]
async fn a_dropped_tracker_lets_go_of_its_connection() {
    // a socket in the server's place, to see the tracker's connection close
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut tracker = AdbClient::new(port).track_devices();
    let (mut server, _) = listener.accept().await.unwrap();
    let mut request = [0u8; 24];
    server.read_exact(&mut request).await.unwrap();
    assert_eq!(&request, b"0014host:track-devices-l");
    server.write_all(b"OKAY0000").await.unwrap();
    assert!(matches!(
        tracker.next().await,
        Some(TrackEvent::Devices(ref devices)) if devices.is_empty()
    ));
    drop(tracker);
    let mut rest = Vec::new();
    let read = tokio::time::timeout(LIMIT, server.read_to_end(&mut rest)).await;
    assert!(
        matches!(read, Ok(Ok(0))),
        "the connection stayed open: {read:?}"
    );
}

/// Reads the request `expected` on `socket` and answers it with `OKAY` and `list`.
async fn answer(socket: &mut tokio::net::TcpStream, expected: &str, list: &str) {
    let mut request = vec![0u8; 4 + expected.len()];
    socket.read_exact(&mut request).await.expect("the request");
    assert_eq!(
        String::from_utf8_lossy(&request),
        format!("{:04x}{expected}", expected.len())
    );
    let answer = format!("OKAY{:04x}{list}", list.len());
    socket
        .write_all(answer.as_bytes())
        .await
        .expect("the answer");
}

#[tokio::test]
async fn a_change_the_server_does_not_announce_is_read_again() {
    // adb 29 may turn a phone from `offline` to `unauthorized` (or a network phone whose
    // connection broke to `offline`) without announcing it: a socket in the server's place
    // announces one list and answers the tracker's own reading with another
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut tracker = AdbClient::new(port).track_devices();
    let (mut tracking, _) = listener.accept().await.unwrap();
    answer(
        &mut tracking,
        "host:track-devices-l",
        "R58M offline usb:1-1\n",
    )
    .await;
    let listed = until(&mut tracker, |d| has(d, "R58M", "offline")).await;
    assert_eq!(listed.len(), 1);
    let (mut reading, _) = tokio::time::timeout(LIMIT, listener.accept())
        .await
        .expect("the tracker never read the list again")
        .unwrap();
    answer(
        &mut reading,
        "host:devices-l",
        "R58M unauthorized usb:1-1\n",
    )
    .await;
    until(&mut tracker, |d| has(d, "R58M", "unauthorized")).await;
    drop(tracking);
}
