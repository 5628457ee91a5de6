//! This server as a member of a fleet: several `deft serve` on one PostgreSQL.
//!
//! A member registers itself (id, name, address, version) and beats every
//! [`FleetConfig::heartbeat`]; it holds the lease of every device connected to it (a `deft
//! client`, a phone), taken when the device arrives — refused while another live server holds
//! it — renewed with each beat and let go when the device leaves. The lease's epoch fences the
//! runs on that device (`deft_store::Fence`). A device whose lease this server could not renew
//! (it lapsed while the server was paused, and another server took it) is reported by
//! [`Fleet::lost`] so the front end can drop its stale connection.
//!
//! On SQLite there is one server and no fleet: [`crate::App::fleet`] is `None`.

mod follow;
mod holder;
mod jobs;
pub(crate) mod member;
mod relay;
mod view;

use std::collections::BTreeMap;
use std::time::Duration;

use deft_store::{DeviceLease, FleetServer, LeaseTake, StoreError};
use tokio_util::sync::CancellationToken;

use crate::app::{App, now_ms};

pub use holder::serve_jobs;
pub use jobs::{Refusal, StartedElsewhere};
pub use member::{Fleet, FleetConfig, HoldError};
pub use relay::WithRelayed;
pub use view::{FleetDevice, FleetMember, FleetView, MemberState};

/// How often a server deletes the fleet jobs that ended long ago.
const PRUNE_EVERY_MS: i64 = 60_000;
/// How long an ended fleet job is kept (its asker read the answer within seconds).
const KEEP_ENDED_JOBS_MS: i64 = 600_000;

impl App {
    /// Takes `device`'s lease for this server (a device that just connected). Without a fleet
    /// (SQLite) there is nothing to take: `Ok(None)`.
    pub async fn hold_device(&self, device: &str) -> Result<Option<DeviceLease>, HoldError> {
        let Some(fleet) = self.fleet() else {
            return Ok(None);
        };
        let store = self.store();
        let take = loop {
            match store
                .take_lease(device, self.server_id(), now_ms(), fleet.ttl_ms())
                .await
            {
                Err(StoreError::Conflict(_)) => continue,
                other => break other?,
            }
        };
        match take {
            LeaseTake::Taken(lease) => {
                tracing::info!(device, epoch = lease.epoch, "took the device's lease");
                fleet.held.lock().insert(device.to_owned(), lease.clone());
                Ok(Some(lease))
            }
            LeaseTake::Held(holder) => {
                let servers = store.fleet_servers().await.unwrap_or_default();
                let server = servers
                    .iter()
                    .find(|s| s.id == holder.server_id)
                    .map_or(holder.server_id.clone(), |s| s.name.clone());
                Err(HoldError::HeldElsewhere {
                    device: device.to_owned(),
                    server,
                    until: deft_protocol::time::iso8601_ms(holder.expires_at_ms),
                })
            }
        }
    }

    /// Records how this server lists `device`, a device it holds (JSON), for the other
    /// servers' device lists. Nothing without a fleet.
    pub async fn describe_held_device(&self, device: &str, details: &str) {
        if self.fleet().is_none() {
            return;
        }
        if let Err(e) = self
            .store()
            .describe_lease(device, self.server_id(), details)
            .await
        {
            tracing::warn!(device, error = %e, "cannot describe the device for the fleet");
        }
    }

    /// The devices other servers of the fleet hold now: each lease with its holder's name.
    pub async fn devices_elsewhere(&self) -> Result<Vec<(DeviceLease, String)>, StoreError> {
        if self.fleet().is_none() {
            return Ok(Vec::new());
        }
        let store = self.store();
        let leases = store.live_leases(now_ms()).await?;
        if leases.iter().all(|l| l.server_id == self.server_id()) {
            return Ok(Vec::new());
        }
        let servers = store.fleet_servers().await?;
        Ok(leases
            .into_iter()
            .filter(|l| l.server_id != self.server_id())
            .map(|l| {
                let name = servers
                    .iter()
                    .find(|s| s.id == l.server_id)
                    .map_or_else(|| l.server_id.clone(), |s| s.name.clone());
                (l, name)
            })
            .collect())
    }

    /// Lets go of `device`'s lease (it left this server). Nothing without a fleet.
    pub async fn let_go_device(&self, device: &str) {
        let Some(fleet) = self.fleet() else { return };
        let lease = fleet.held.lock().remove(device);
        if let Some(lease) = lease
            && let Err(e) = self
                .store()
                .release_lease(device, self.server_id(), lease.epoch)
                .await
        {
            tracing::warn!(device, error = %e, "cannot release the device's lease; it lapses");
        }
    }
}

/// Registers this server and, until `stop`, beats and renews its leases every heartbeat; at
/// `stop`, marks it stopped and lets go of its leases. A failing store is logged and tried
/// again at the next beat (the leases lapse if it stays down: the devices go elsewhere).
pub async fn keep_membership(app: App, stop: CancellationToken) {
    let Some(fleet) = app.fleet() else { return };
    let started = now_ms();
    let (name, address) = fleet.identity();
    let me = FleetServer {
        id: app.server_id().to_owned(),
        name,
        address,
        version: fleet.config.version.clone(),
        started_at_ms: started,
        heartbeat_at_ms: started,
        stopped_at_ms: None,
    };
    let mut registered = register(&app, &me).await;
    tokio::spawn(listen(app.clone(), stop.clone()));
    let mut pruned_at = 0;
    let mut beat = tokio::time::interval(fleet.config.heartbeat);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    beat.tick().await;
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = beat.tick() => {}
        }
        if !registered {
            registered = register(&app, &me).await;
        }
        match app.store().heartbeat_server(&me.id, now_ms()).await {
            Ok(()) => {}
            Err(StoreError::NotFound(_)) => registered = register(&app, &me).await,
            Err(e) => tracing::warn!(error = %e, "cannot beat the fleet heartbeat"),
        }
        if let Err(e) = renew(&app, fleet).await {
            tracing::warn!(error = %e, "cannot renew this server's device leases");
        }
        if let Err(e) = end_runs_of_gone_servers(&app, fleet).await {
            tracing::warn!(error = %e, "cannot end the runs of silent servers");
        }
        if now_ms().saturating_sub(pruned_at) > PRUNE_EVERY_MS {
            pruned_at = now_ms();
            match app
                .store()
                .prune_fleet_jobs(pruned_at - KEEP_ENDED_JOBS_MS)
                .await
            {
                Ok(0) => {}
                Ok(n) => tracing::debug!(n, "pruned ended fleet jobs"),
                Err(e) => tracing::warn!(error = %e, "cannot prune ended fleet jobs"),
            }
        }
    }
    if let Err(e) = app.store().server_stopped(&me.id, now_ms()).await {
        tracing::warn!(error = %e, "cannot tell the fleet this server stopped; its leases lapse");
    }
}

/// Until `stop`: passes the database's wake-ups on to [`Fleet::signals`], listening again a
/// second after a failure (meanwhile the waiters' own looks find what they wait for).
async fn listen(app: App, stop: CancellationToken) {
    let Some(fleet) = app.fleet() else { return };
    loop {
        match app.store().listen().await {
            Ok(Some(mut listener)) => loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    next = listener.recv() => match next {
                        Ok(signal) => {
                            let _ = fleet.signals.send(signal);
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "the fleet's listening connection failed");
                            break;
                        }
                    },
                }
            },
            Ok(None) => return,
            Err(e) => tracing::warn!(error = %e, "cannot listen for the fleet's wake-ups"),
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

async fn register(app: &App, me: &FleetServer) -> bool {
    let me = FleetServer {
        heartbeat_at_ms: now_ms(),
        ..me.clone()
    };
    match app.store().register_server(&me).await {
        Ok(()) => {
            tracing::info!(id = %me.id, name = %me.name, "joined the fleet");
            true
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot register this server in the fleet");
            false
        }
    }
}

/// Ends the chat and designer runs of servers that stopped, or went silent for longer than a
/// lease lasts (dead, paused or cut off: their devices are free to go elsewhere), each once.
async fn end_runs_of_gone_servers(app: &App, fleet: &Fleet) -> Result<(), StoreError> {
    let now = now_ms();
    let gone: std::collections::BTreeSet<String> = app
        .store()
        .fleet_servers()
        .await?
        .into_iter()
        .filter(|s| s.id != app.server_id())
        .filter(|s| {
            s.stopped_at_ms.is_some() || now.saturating_sub(s.heartbeat_at_ms) > fleet.ttl_ms()
        })
        .map(|s| s.id)
        .collect();
    if gone.is_empty() {
        return Ok(());
    }
    let ended = crate::agent_runs::finish::end_runs_of(app, &gone).await?;
    if ended > 0 {
        tracing::warn!(ended, "ended the runs of servers that went away");
    }
    Ok(())
}

/// Renews every lease held; one that lapsed is taken again (a new epoch) unless another
/// server has it now — then the device is lost here.
async fn renew(app: &App, fleet: &Fleet) -> Result<(), StoreError> {
    let store = app.store();
    let now = now_ms();
    let renewed = store
        .renew_leases(app.server_id(), now, fleet.ttl_ms())
        .await?;
    let renewed: BTreeMap<String, DeviceLease> = renewed
        .into_iter()
        .map(|l| (l.device_id.clone(), l))
        .collect();
    let wanted: Vec<String> = fleet.held.lock().keys().cloned().collect();
    for device in wanted {
        if let Some(lease) = renewed.get(&device) {
            fleet.held.lock().insert(device, lease.clone());
            continue;
        }
        match store
            .take_lease(&device, app.server_id(), now, fleet.ttl_ms())
            .await
        {
            Ok(LeaseTake::Taken(lease)) => {
                tracing::warn!(
                    device,
                    epoch = lease.epoch,
                    "the lease had lapsed; taken anew"
                );
                fleet.held.lock().insert(device, lease);
            }
            Ok(LeaseTake::Held(holder)) => {
                tracing::warn!(device, holder = %holder.server_id, "the device moved to another server");
                fleet.held.lock().remove(&device);
                let _ = fleet.lost.send(device);
            }
            Err(e) => tracing::warn!(device, error = %e, "cannot take the lease again"),
        }
    }
    Ok(())
}
