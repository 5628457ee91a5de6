//! What the adb test files share: waiting for the tracker to show a device list, and for a
//! double to have received a command.

#![allow(dead_code)] // each test file uses a part

use std::time::Duration;

use deft_adb::{Device, DeviceTracker, TrackEvent};
use deft_test_support::adb_double::AdbDouble;

/// The longest wait for a condition (a guard against a hang, not a synchronisation).
pub const LIMIT: Duration = Duration::from_secs(30);

/// Whether `devices` holds `serial` in `state`.
pub fn has(devices: &[Device], serial: &str, state: &str) -> bool {
    devices
        .iter()
        .any(|d| d.serial == serial && d.state == state)
}

/// The first device list from `tracker` for which `wanted` holds (an outage fails the test).
pub async fn until(tracker: &mut DeviceTracker, wanted: impl Fn(&[Device]) -> bool) -> Vec<Device> {
    let deadline = tokio::time::Instant::now() + LIMIT;
    let mut last = None;
    loop {
        let event = tokio::time::timeout_at(deadline, tracker.next())
            .await
            .unwrap_or_else(|_| panic!("no such device list came; the last: {last:?}"));
        match event {
            Some(TrackEvent::Devices(devices)) if wanted(&devices) => return devices,
            Some(TrackEvent::Devices(devices)) => last = Some(devices),
            Some(TrackEvent::Outage(error)) => panic!("an outage while waiting: {error}"),
            None => panic!("the tracker ended"),
        }
    }
}

/// Waits until `double` has received `command` (it runs on the double from then on).
pub async fn until_received(double: &AdbDouble, command: &str) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !double.commands().iter().any(|c| c == command) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the double never received `{command}`: {:?}",
            double.commands()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
