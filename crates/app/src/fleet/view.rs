//! What the front ends show of the fleet (`deft fleet`, `GET /api/fleet`, the console's Fleet
//! page): each server with its state and the devices it holds.

use serde::{Deserialize, Serialize};

use deft_protocol::time::iso8601_ms;
use deft_store::StoreError;

use crate::app::{App, now_ms};

/// The fleet as this server sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FleetView {
    /// Whether this server is in a fleet (PostgreSQL); on SQLite it is alone and `servers` is
    /// empty.
    pub enabled: bool,
    /// This server's id.
    pub this_server: String,
    /// Every server registered on the database, by name.
    pub servers: Vec<FleetMember>,
}

/// One server of the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FleetMember {
    /// Its id.
    pub id: String,
    /// What people call it (host and port).
    pub name: String,
    /// The URL its console answers on.
    pub address: String,
    /// deft's version it runs.
    pub version: String,
    /// Online, silent or stopped.
    pub state: MemberState,
    /// When its process started (ISO-8601 UTC).
    pub started_at: String,
    /// Its last heartbeat (ISO-8601 UTC).
    pub last_heartbeat: String,
    /// The devices it holds.
    pub devices: Vec<FleetDevice>,
}

/// Whether a server is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MemberState {
    /// Beating.
    Online,
    /// No heartbeat for longer than a lease lasts: dead, paused or cut off; its devices go to
    /// whichever server they reconnect to.
    Silent,
    /// Shut down cleanly.
    Stopped,
}

/// A device a server holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FleetDevice {
    /// The device's id.
    pub id: String,
    /// The lease's epoch (raised at every new holder).
    pub epoch: u64,
    /// Since when this server holds it (ISO-8601 UTC).
    pub since: String,
    /// When the lease lapses unless renewed (ISO-8601 UTC).
    pub lease_until: String,
}

impl App {
    /// The fleet's servers and the devices each holds.
    pub async fn fleet_view(&self) -> Result<FleetView, StoreError> {
        let Some(fleet) = self.fleet() else {
            return Ok(FleetView {
                enabled: false,
                this_server: self.server_id().to_owned(),
                servers: Vec::new(),
            });
        };
        let now = now_ms();
        let store = self.store();
        let leases = store.live_leases(now).await?;
        let silent_after = i64::try_from(fleet.config().lease_ttl.as_millis()).unwrap_or(i64::MAX);
        let servers = store
            .fleet_servers()
            .await?
            .into_iter()
            .map(|s| FleetMember {
                state: if s.stopped_at_ms.is_some() {
                    MemberState::Stopped
                } else if now.saturating_sub(s.heartbeat_at_ms) > silent_after {
                    MemberState::Silent
                } else {
                    MemberState::Online
                },
                devices: leases
                    .iter()
                    .filter(|l| l.server_id == s.id)
                    .map(|l| FleetDevice {
                        id: l.device_id.clone(),
                        epoch: l.epoch,
                        since: iso8601_ms(l.acquired_at_ms),
                        lease_until: iso8601_ms(l.expires_at_ms),
                    })
                    .collect(),
                started_at: iso8601_ms(s.started_at_ms),
                last_heartbeat: iso8601_ms(s.heartbeat_at_ms),
                id: s.id,
                name: s.name,
                address: s.address,
                version: s.version,
            })
            .collect();
        Ok(FleetView {
            enabled: true,
            this_server: self.server_id().to_owned(),
            servers,
        })
    }
}
