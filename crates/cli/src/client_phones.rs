//! `deft client --phones`: the phones of this machine's adb server offered to the server, each
//! as a device of its own (id: its serial, profile `android`) on a connection of its own, so a
//! rack of phones hangs off any machine. Phones are followed as they come and go
//! (`host:track-devices`): a phone that becomes ready connects, one that leaves or stops being
//! ready disconnects.

use std::collections::HashMap;
use std::sync::Arc;

use deft_adb::{AdbClient, Device as AdbDevice, TrackEvent};
use deft_link::{ClientConfig, DeviceClient};
use deft_tools::LocalDispatcher;
use deft_tools::table::RoutingTable;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::{Globals, builtins, local_devices};

/// What every phone's connection shares: the server, the token, the table.
pub struct PhoneLinks {
    /// The server's device endpoint.
    pub url: String,
    /// The device token.
    pub token: String,
    /// The routing table (it must have the `android` profile).
    pub table: Arc<RoutingTable>,
    /// How each connection is tuned (heartbeat, backoff), copied from the machine's.
    pub template: ClientConfig,
}

/// What `--phones` needs: the adb server's client and the connections' settings (`config`:
/// the machine's own connection, tuned the same); an error when the table has no phone profile.
pub fn prepare(
    url: &str,
    token: &str,
    table: Arc<RoutingTable>,
    config: &ClientConfig,
) -> anyhow::Result<(AdbClient, PhoneLinks)> {
    anyhow::ensure!(
        table.profiles.contains_key(local_devices::PHONE_PROFILE),
        "--phones needs the '{}' profile in the routing table {} (the built-in table has it)",
        local_devices::PHONE_PROFILE,
        table.source
    );
    let adb = AdbClient::from_env()?;
    Ok((
        adb,
        PhoneLinks {
            url: url.to_owned(),
            token: token.to_owned(),
            table,
            template: config.clone(),
        },
    ))
}

/// Offers the phones of `adb` to the server until `shutdown`.
pub async fn offer(
    globals: Globals,
    adb: AdbClient,
    links: PhoneLinks,
    shutdown: CancellationToken,
) {
    let mut tracker = adb.track_devices();
    let mut running: HashMap<String, CancellationToken> = HashMap::new();
    loop {
        let event = tokio::select! {
            e = tracker.next() => e,
            () = shutdown.cancelled() => None,
        };
        let Some(event) = event else { break };
        match event {
            TrackEvent::Devices(list) => {
                let ready: Vec<&AdbDevice> = list.iter().filter(|d| d.is_ready()).collect();
                running.retain(|serial, stop| {
                    let keep = ready.iter().any(|d| &d.serial == serial);
                    if !keep {
                        eprintln!("phone {serial} left: no longer offered");
                        stop.cancel();
                    }
                    keep
                });
                for d in ready {
                    if running.contains_key(&d.serial) {
                        continue;
                    }
                    let stop = shutdown.child_token();
                    running.insert(d.serial.clone(), stop.clone());
                    let client = phone_client(&globals, &adb, &links, d).await;
                    let serial = d.serial.clone();
                    tokio::spawn(async move {
                        eprintln!("offering phone {serial}");
                        if let Err(e) = client.run(stop).await {
                            eprintln!("phone {serial}: {e}");
                        }
                    });
                }
                for d in list.iter().filter(|d| !d.is_ready()) {
                    if let Some(advice) = d.state_advice() {
                        tracing::info!(serial = %d.serial, state = %d.state, "{advice}");
                    }
                }
            }
            TrackEvent::Outage(e) => {
                tracing::warn!("phones: {e}");
                for (_, stop) in running.drain() {
                    stop.cancel();
                }
            }
        }
    }
    for (_, stop) in running.drain() {
        stop.cancel();
    }
}

/// The connection of one phone: its own id and metadata, its own tool servers.
async fn phone_client(
    globals: &Globals,
    adb: &AdbClient,
    links: &PhoneLinks,
    d: &AdbDevice,
) -> DeviceClient {
    let details = adb.details(&d.serial).await.ok();
    let label = details.as_ref().map(deft_adb::PhoneDetails::label);
    let mut config = links.template.clone();
    config.url = links.url.clone();
    config.token = links.token.clone();
    config.id = d.serial.clone();
    config.profile = local_devices::PHONE_PROFILE.to_owned();
    config.metadata = json!({
        "platform": "android",
        "profile": local_devices::PHONE_PROFILE,
        "tools": [deft_backend_android::NAME],
        "label": label,
        "phone": {
            "serial": d.serial,
            "model": details.as_ref().and_then(|p| p.model.clone()),
            "android_version": details.as_ref().and_then(|p| p.android_version.clone()),
            "sdk": details.as_ref().and_then(|p| p.sdk),
        },
        "registration_time": deft_link::now_iso8601(),
    });
    let dispatcher = Arc::new(LocalDispatcher::new(
        links.table.clone(),
        builtins::registry_for_phone(globals, &d.serial),
    ));
    DeviceClient::new(config, dispatcher)
}
