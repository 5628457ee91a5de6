//! A fleet member's own state: how it takes part ([`FleetConfig`]) and what it holds
//! ([`Fleet`]: its leases, the database's wake-ups, the runs it follows). Kept apart from the
//! membership's work (`super`), which the application handle does not need to know.

use std::collections::BTreeMap;
use std::time::Duration;

use deft_store::{Channel, DeviceLease, Fence, StoreError};
use parking_lot::Mutex;
use tokio::sync::broadcast;

/// How a server takes part in the fleet.
#[derive(Debug, Clone)]
pub struct FleetConfig {
    /// What people call this server (host and port).
    pub name: String,
    /// The URL its console answers on, for the others' listings.
    pub address: String,
    /// deft's version.
    pub version: String,
    /// How often it beats and renews its leases (2 s).
    pub heartbeat: Duration,
    /// How long a lease lasts without renewal (10 s): a server silent this long loses its
    /// devices to whichever server they reconnect to.
    pub lease_ttl: Duration,
}

impl FleetConfig {
    /// The defaults for a server called `name` at `address`.
    pub fn new(name: &str, address: &str) -> FleetConfig {
        FleetConfig {
            name: name.to_owned(),
            address: address.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            heartbeat: Duration::from_secs(2),
            lease_ttl: Duration::from_secs(10),
        }
    }
}

/// Why a device cannot be held here.
#[derive(Debug, thiserror::Error)]
pub enum HoldError {
    /// Another live server holds it.
    #[error(
        "device {device:?} is connected to server {server} (its lease lasts until {until}); a \
         device connects to one server of the fleet at a time"
    )]
    HeldElsewhere {
        /// The device.
        device: String,
        /// The holder's name (its id when it is not registered).
        server: String,
        /// When the holder's lease lapses unless renewed (ISO-8601 UTC).
        until: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The fleet membership of this server. Cheap to share behind the [`App`].
pub struct Fleet {
    pub(super) config: FleetConfig,
    /// Its name and address, once the listener knows its port.
    located: Mutex<Option<(String, String)>>,
    /// The devices this server holds (or wants to hold again), with their lease.
    pub(super) held: Mutex<BTreeMap<String, DeviceLease>>,
    /// Devices whose lease moved to another server.
    pub(super) lost: broadcast::Sender<String>,
    /// The database's wake-ups (`LISTEN`), for whoever waits on one.
    pub(super) signals: broadcast::Sender<(Channel, String)>,
    /// The runs of other servers followed here, by id (see `follow`).
    pub(super) followed:
        Mutex<std::collections::HashMap<String, std::sync::Weak<crate::run_log::RunLog>>>,
}

impl Fleet {
    /// A member that holds nothing yet.
    pub fn new(config: FleetConfig) -> Fleet {
        Fleet {
            config,
            located: Mutex::new(None),
            held: Mutex::new(BTreeMap::new()),
            lost: broadcast::channel(64).0,
            signals: broadcast::channel(1024).0,
            followed: Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// How this server takes part.
    pub fn config(&self) -> &FleetConfig {
        &self.config
    }

    /// Names this server `name` at `address` (the listener's real port, once bound), for the
    /// registration [`keep_membership`] makes.
    pub fn locate(&self, name: &str, address: &str) {
        *self.located.lock() = Some((name.to_owned(), address.to_owned()));
    }

    /// The name and address this server registers with.
    pub(super) fn identity(&self) -> (String, String) {
        self.located
            .lock()
            .clone()
            .unwrap_or_else(|| (self.config.name.clone(), self.config.address.clone()))
    }

    pub(super) fn ttl_ms(&self) -> i64 {
        i64::try_from(self.config.lease_ttl.as_millis()).unwrap_or(i64::MAX)
    }

    /// The fence of runs server `server` (this one) owns on `device`: with the device's lease
    /// epoch while this server holds it, by ownership alone for a device of its own.
    pub fn fence(&self, server: &str, device: &str) -> Fence {
        Fence {
            server: server.to_owned(),
            device: device.to_owned(),
            epoch: self.held.lock().get(device).map(|lease| lease.epoch),
        }
    }

    /// Whether this server holds `device`'s lease.
    pub fn holds(&self, device: &str) -> bool {
        self.held.lock().contains_key(device)
    }

    /// The database's wake-ups from now on: each channel and payload as it arrives.
    pub fn signals(&self) -> broadcast::Receiver<(Channel, String)> {
        self.signals.subscribe()
    }

    /// Devices whose lease another server took from this one (each named once, as it happens).
    pub fn lost(&self) -> broadcast::Receiver<String> {
        self.lost.subscribe()
    }
}
