//! The device registry behind the contract's [`Devices`] trait: the server's own devices
//! (`local`, later `browser`) and every registered `deft client`, with its system info, when it
//! connected, its last heartbeat and its tool servers.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use deft_link::RemoteDispatcher;
use deft_tools::devices::{Device, DeviceInfo, Devices, RESERVED_IDS};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::phones::{self, PhoneEntry, PhoneGone, PhoneSeen};

/// How a device is listed by the API and `deft devices`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Device"))]
#[schemars(rename = "Device")]
pub struct DeviceDetails {
    /// Device id.
    pub id: String,
    /// Routing-table profile.
    pub profile: String,
    /// A run, task or exec batch is executing on it.
    pub busy: bool,
    /// This server's own device, or a connected `deft client`.
    pub kind: DeviceKind,
    /// When it registered (ISO-8601 UTC); remote devices only.
    pub connected_since: Option<String>,
    /// Its last message (ISO-8601 UTC); remote devices only.
    pub last_heartbeat: Option<String>,
    /// What it reported at registration (platform, OS, CPU, memory, hostname, screen…).
    #[cfg_attr(test, ts(type = "unknown"))]
    pub system_info: Value,
    /// The tool servers it offers.
    pub tools: Vec<String>,
    /// Whether the device has a screen the live view can show (not the `shell` profile).
    pub has_screen: bool,
    /// A phone's adb state (`device` when ready; `unauthorized`, `offline` …); none for other
    /// devices, which are listed only while usable.
    pub state: Option<String>,
    /// What the device is, for a person (`Pixel 7 · Android 14`).
    pub label: Option<String>,
    /// What to do before it can be used (a phone not ready).
    pub note: Option<String>,
    /// The server of the fleet that holds it, when another server does (runs started here go
    /// there).
    #[serde(default)]
    pub server: Option<String>,
}

/// Where a device runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    /// This machine's own devices (`local`, `browser`).
    Server,
    /// A connected `deft client`.
    Remote,
    /// A phone of this server's adb server.
    Phone,
    /// A device another server of the fleet holds.
    Fleet,
}

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `local` or `browser`.
    Reserved,
    /// The id is connected already (the first connection is left untouched).
    Duplicate,
}

struct Remote {
    device: Device,
    dispatcher: RemoteDispatcher,
    connection: u64,
    connected_since: SystemTime,
    last_heard: Arc<AtomicU64>,
    system_info: Value,
    tools: Vec<String>,
}

#[derive(Default)]
struct Inner {
    own: Vec<Device>,
    phones: RwLock<BTreeMap<String, PhoneEntry>>,
    remote: RwLock<BTreeMap<String, Remote>>,
    next_connection: AtomicU64,
}

/// The device directory of a server. Cheap to clone.
#[derive(Clone, Default)]
pub struct Registry {
    inner: Arc<Inner>,
}

/// Keeps a remote device registered; dropping it removes the device (only this connection's).
pub struct Registration {
    registry: Registry,
    id: String,
    connection: u64,
    last_heard: Arc<AtomicU64>,
}

impl Registration {
    /// Records that the device was just heard from.
    pub fn heard(&self) {
        self.last_heard.store(now_millis(), Ordering::Relaxed);
    }

    /// The device id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut remote = self.registry.inner.remote.write();
        if remote
            .get(&self.id)
            .is_some_and(|r| r.connection == self.connection)
        {
            if let Some(r) = remote.remove(&self.id) {
                r.dispatcher.disconnect();
            }
            tracing::info!(device = %self.id, "device unregistered");
        }
    }
}

fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn iso(t: SystemTime) -> String {
    deft_link::iso8601(t.duration_since(UNIX_EPOCH).unwrap_or_default())
}

impl Registry {
    /// A registry holding the server's own devices (`local`, `browser`).
    pub fn new(own: Vec<Device>) -> Self {
        Registry {
            inner: Arc::new(Inner {
                own,
                ..Inner::default()
            }),
        }
    }

    /// Registers a connected device. The profile and tools are read from the registration's
    /// metadata (`profile`, `tools`); the rest of it is kept as its system info.
    pub fn register(
        &self,
        id: &str,
        metadata: Value,
        dispatcher: RemoteDispatcher,
    ) -> Result<Registration, Refusal> {
        if RESERVED_IDS.contains(&id)
            || self.inner.own.iter().any(|d| d.id == id)
            || self.inner.phones.read().contains_key(id)
        {
            return Err(Refusal::Reserved);
        }
        let profile = metadata
            .get("profile")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
            .unwrap_or("shell")
            .to_owned();
        let tools = metadata
            .get("tools")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut remote = self.inner.remote.write();
        if remote.contains_key(id) {
            return Err(Refusal::Duplicate);
        }
        let connection = self.inner.next_connection.fetch_add(1, Ordering::Relaxed);
        let last_heard = Arc::new(AtomicU64::new(now_millis()));
        let device = Device::new(id, &profile, Arc::new(dispatcher.clone()));
        remote.insert(
            id.to_owned(),
            Remote {
                device,
                dispatcher,
                connection,
                connected_since: SystemTime::now(),
                last_heard: last_heard.clone(),
                system_info: metadata,
                tools,
            },
        );
        tracing::info!(device = %id, %profile, "device registered");
        Ok(Registration {
            registry: self.clone(),
            id: id.to_owned(),
            connection,
            last_heard,
        })
    }

    /// Every device this server lists ([`Registry::details`]) and those other servers of the
    /// fleet hold ([`Registry::fleet_details`]), by id.
    pub fn details_in_fleet(
        &self,
        elsewhere: Vec<(deft_store::DeviceLease, String)>,
    ) -> Vec<DeviceDetails> {
        let mut all = self.details();
        all.extend(self.fleet_details(elsewhere));
        all.sort_by(|a, b| a.id.cmp(&b.id));
        all
    }

    /// The devices other servers of the fleet hold (`elsewhere`: each lease with its holder's
    /// name), as their holders described them, unless connected here too: `kind: fleet`, the
    /// holder named (its live view relayed from the holder).
    pub fn fleet_details(
        &self,
        elsewhere: Vec<(deft_store::DeviceLease, String)>,
    ) -> Vec<DeviceDetails> {
        elsewhere
            .into_iter()
            .filter(|(lease, _)| self.get(&lease.device_id).is_none())
            .map(|(lease, server)| {
                let listed = lease
                    .details
                    .as_deref()
                    .and_then(|d| serde_json::from_str::<DeviceDetails>(d).ok());
                let id = lease.device_id;
                DeviceDetails {
                    kind: DeviceKind::Fleet,
                    busy: false,
                    note: Some(crate::texts::held_elsewhere(&server)),
                    server: Some(server),
                    ..listed.unwrap_or_else(|| DeviceDetails {
                        id: id.clone(),
                        profile: String::new(),
                        busy: false,
                        kind: DeviceKind::Fleet,
                        connected_since: None,
                        last_heartbeat: None,
                        system_info: Value::Null,
                        tools: Vec::new(),
                        has_screen: false,
                        state: None,
                        label: None,
                        note: None,
                        server: None,
                    })
                }
            })
            .collect()
    }

    /// Every device with its details, sorted by id.
    pub fn details(&self) -> Vec<DeviceDetails> {
        let mut out: Vec<DeviceDetails> = self
            .inner
            .own
            .iter()
            .map(|d| DeviceDetails {
                id: d.id.clone(),
                profile: d.profile.clone(),
                busy: d.is_busy(),
                kind: DeviceKind::Server,
                connected_since: None,
                last_heartbeat: None,
                system_info: Value::Null,
                tools: Vec::new(),
                has_screen: crate::console::live::has_screen(&d.profile),
                state: None,
                label: None,
                note: None,
                server: None,
            })
            .collect();
        out.extend(self.inner.phones.read().values().map(|p| {
            DeviceDetails {
                id: p.seen.serial.clone(),
                profile: p
                    .device
                    .as_ref()
                    .map_or_else(|| crate::PHONE_PROFILE.to_owned(), |d| d.profile.clone()),
                busy: p.device.as_ref().is_some_and(Device::is_busy),
                kind: DeviceKind::Phone,
                connected_since: None,
                last_heartbeat: None,
                system_info: Value::Null,
                tools: Vec::new(),
                has_screen: p.device.is_some(),
                state: Some(p.seen.state.clone()),
                label: p.seen.label.clone(),
                note: p.seen.note.clone(),
                server: None,
            }
        }));
        let remote = self.inner.remote.read();
        out.extend(remote.values().map(|r| {
            DeviceDetails {
                id: r.device.id.clone(),
                profile: r.device.profile.clone(),
                busy: r.device.is_busy(),
                kind: DeviceKind::Remote,
                connected_since: Some(iso(r.connected_since)),
                last_heartbeat: Some(iso(
                    UNIX_EPOCH + Duration::from_millis(r.last_heard.load(Ordering::Relaxed))
                )),
                system_info: r.system_info.clone(),
                tools: r.tools.clone(),
                has_screen: crate::console::live::has_screen(&r.device.profile),
                state: None,
                // What the client says it is (a phone offered by `deft client --phones`).
                label: r
                    .system_info
                    .get("label")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                note: None,
                server: None,
            }
        }));
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Replaces the phones with the adb server's list `seen`; `make` gives a phone that became
    /// ready its device (an error: it stays listed, unusable, the error its note). A phone that stays ready keeps its
    /// device, busy or not. Answers the phones that were ready and are not any more.
    pub fn set_phones(
        &self,
        seen: Vec<PhoneSeen>,
        make: &dyn Fn(&str) -> Result<Device, String>,
    ) -> Vec<PhoneGone> {
        let seen: Vec<PhoneSeen> = seen
            .into_iter()
            .filter(|p| {
                let clash = RESERVED_IDS.contains(&p.serial.as_str())
                    || self.inner.own.iter().any(|d| d.id == p.serial);
                if clash {
                    tracing::warn!(serial = %p.serial, "a phone's serial is an own device's id; left out");
                }
                !clash
            })
            .collect();
        phones::update(&mut self.inner.phones.write(), seen, make)
    }

    /// How many remote devices are connected.
    pub fn remote_count(&self) -> usize {
        self.inner.remote.read().len()
    }

    /// The Remote dispatcher of a connected device.
    pub fn remote_dispatcher(&self, id: &str) -> Option<RemoteDispatcher> {
        self.inner
            .remote
            .read()
            .get(id)
            .map(|r| r.dispatcher.clone())
    }
}

impl Devices for Registry {
    fn list(&self) -> Vec<DeviceInfo> {
        self.details()
            .into_iter()
            // A phone is a device only while it has one (ready, and its tools could be made).
            .filter(|d| d.kind != DeviceKind::Phone || d.has_screen)
            .map(|d| DeviceInfo {
                id: d.id,
                profile: d.profile,
                busy: d.busy,
            })
            .collect()
    }

    fn get(&self, id: &str) -> Option<Device> {
        if let Some(d) = self.inner.own.iter().find(|d| d.id == id) {
            return Some(d.clone());
        }
        if let Some(d) = self
            .inner
            .phones
            .read()
            .get(id)
            .and_then(|p| p.device.clone())
        {
            return Some(d);
        }
        self.inner.remote.read().get(id).map(|r| r.device.clone())
    }
}
