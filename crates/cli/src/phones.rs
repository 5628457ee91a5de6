//! `deft serve`'s phones: the adb server's device list followed as it changes
//! (`host:track-devices`), each ready phone a device of the `android` profile named by its serial
//! (with its model and Android version), the others listed with their state and what to do. When
//! the adb server stops, the phones are listed offline with the reason and come back with it.

use std::collections::HashMap;
use std::sync::Arc;

use deft_adb::{AdbClient, Device as AdbDevice, TrackEvent};
use deft_server::{PhoneGone, PhoneSeen, Registry};
use tokio::task::JoinHandle;

use crate::{Globals, local_devices};

/// Follows the phones of the adb server `adb` into `registry` until the task is aborted; a
/// ready phone that leaves or is no longer ready is told to `app`'s notifications.
pub fn follow(
    globals: &Globals,
    adb: AdbClient,
    registry: Registry,
    app: deft_app::App,
) -> JoinHandle<()> {
    let globals = Arc::new(globals.clone());
    tokio::spawn(async move {
        let mut tracker = adb.track_devices();
        let mut labels: HashMap<String, Option<String>> = HashMap::new();
        let mut last: Vec<AdbDevice> = Vec::new();
        let make = |serial: &str| {
            local_devices::phone_device(&globals, serial).map_err(|e| {
                tracing::warn!(%serial, "the phone cannot be a device: {e:#}");
                format!("{e:#}")
            })
        };
        let mut outage = false;
        while let Some(event) = tracker.next().await {
            match event {
                TrackEvent::Devices(list) => {
                    if outage {
                        tracing::info!("the adb server is back: phones followed again");
                        outage = false;
                    }
                    for d in list.iter().filter(|d| d.is_ready()) {
                        if !labels.contains_key(&d.serial) {
                            let label = label(&adb, d).await;
                            labels.insert(d.serial.clone(), label);
                        }
                    }
                    labels.retain(|serial, _| list.iter().any(|d| &d.serial == serial));
                    let seen = list.iter().map(|d| seen(d, &labels, None)).collect();
                    notify(&app, registry.set_phones(seen, &make)).await;
                    last = list;
                }
                TrackEvent::Outage(e) => {
                    if !outage {
                        tracing::warn!("phones: {e}");
                        outage = true;
                    }
                    let note = e.to_string();
                    let seen = last.iter().map(|d| seen(d, &labels, Some(&note))).collect();
                    notify(&app, registry.set_phones(seen, &make)).await;
                }
            }
        }
    })
}

/// Tells the notifications of the phones that were ready and are not any more.
async fn notify(app: &deft_app::App, gone: Vec<PhoneGone>) {
    for phone in gone {
        app.notifier()
            .phone_offline(&phone.serial, phone.state.as_deref(), phone.note.as_deref())
            .await;
    }
}

/// A phone of the list as the registry shows it; `outage`: the adb server is gone (why).
fn seen(
    d: &AdbDevice,
    labels: &HashMap<String, Option<String>>,
    outage: Option<&str>,
) -> PhoneSeen {
    let label = labels
        .get(&d.serial)
        .cloned()
        .flatten()
        .or_else(|| d.model.as_ref().map(|m| m.replace('_', " ")));
    match outage {
        Some(why) => PhoneSeen {
            serial: d.serial.clone(),
            state: "offline".to_owned(),
            label,
            note: Some(why.to_owned()),
        },
        None => PhoneSeen {
            serial: d.serial.clone(),
            state: d.state.clone(),
            label,
            note: d.state_advice(),
        },
    }
}

/// `Pixel 7 · Android 14` from the phone itself (none when it does not answer).
async fn label(adb: &AdbClient, d: &AdbDevice) -> Option<String> {
    match adb.details(&d.serial).await {
        Ok(details) => Some(details.label()),
        Err(e) => {
            tracing::warn!(serial = %d.serial, "the phone's details: {e}");
            None
        }
    }
}
