//! The fleet: the servers on one database and the leases of the devices they hold.
//!
//! A lease names a device's holder and an epoch. Taking it is one upsert, so of two servers
//! racing for a device one wins; the epoch rises by one whenever the lease is taken anew (by
//! another server, or by the same one after it lapsed) and never falls, so an epoch names one
//! tenure. A run on a leased device is fenced with the epoch it started under
//! ([`Store::fence_run`]); its writes are refused once the lease has another epoch
//! (`crate::fence`).

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;

use crate::Store;
use crate::convert::{column, from_db};
use crate::error::{Result, StoreError, db};

const SERVER_COLUMNS: &str =
    "id, name, address, version, started_at_ms, heartbeat_at_ms, stopped_at_ms";
const LEASE_COLUMNS: &str = "device_id, server_id, epoch, acquired_at_ms, expires_at_ms";
const LEASE_READ: &str = "device_id, server_id, epoch, acquired_at_ms, expires_at_ms, details";
const READ_SERVERS: &str = "reading the fleet's servers";
const READ_LEASES: &str = "reading device leases";

/// A server of the fleet as registered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetServer {
    /// Its id (kept in its data folder).
    pub id: String,
    /// What people call it (host and port).
    pub name: String,
    /// The URL its console answers on.
    pub address: String,
    /// deft's version it runs.
    pub version: String,
    /// When this process of it started, ms since the epoch.
    pub started_at_ms: i64,
    /// Its last heartbeat, ms since the epoch.
    pub heartbeat_at_ms: i64,
    /// When it shut down cleanly, if it did since it last started.
    pub stopped_at_ms: Option<i64>,
}

/// Who holds a device, since when and until when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceLease {
    /// The device's id (unique in the fleet).
    pub device_id: String,
    /// The holding server's id.
    pub server_id: String,
    /// The tenure: raised by one at every new take, never lowered.
    pub epoch: u64,
    /// When this epoch began, ms since the epoch.
    pub acquired_at_ms: i64,
    /// When it lapses unless renewed, ms since the epoch.
    pub expires_at_ms: i64,
    /// The device as its holder lists it (JSON), once described.
    pub details: Option<String>,
}

/// What [`Store::take_lease`] came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaseTake {
    /// The caller holds the lease (newly, or renewed in the same epoch).
    Taken(DeviceLease),
    /// Another server holds it and it has not lapsed.
    Held(DeviceLease),
}

impl Store {
    /// Registers `server` (or registers it again after a restart: its row is replaced and its
    /// clean-stop mark cleared).
    pub async fn register_server(&self, server: &FleetServer) -> Result<()> {
        sqlx::query(
            "INSERT INTO fleet_servers (id, name, address, version, started_at_ms, \
             heartbeat_at_ms, stopped_at_ms) VALUES ($1, $2, $3, $4, $5, $6, NULL) \
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, address = excluded.address, \
             version = excluded.version, started_at_ms = excluded.started_at_ms, \
             heartbeat_at_ms = excluded.heartbeat_at_ms, stopped_at_ms = NULL",
        )
        .bind(&server.id)
        .bind(&server.name)
        .bind(&server.address)
        .bind(&server.version)
        .bind(server.started_at_ms)
        .bind(server.heartbeat_at_ms)
        .execute(&self.pool)
        .await
        .map_err(db("registering a server"))?;
        Ok(())
    }

    /// Refreshes server `id`'s heartbeat. [`StoreError::NotFound`] when it is not registered
    /// (someone removed it: register again).
    pub async fn heartbeat_server(&self, id: &str, now_ms: i64) -> Result<()> {
        let done = sqlx::query("UPDATE fleet_servers SET heartbeat_at_ms = $2 WHERE id = $1")
            .bind(id)
            .bind(now_ms)
            .execute(&self.pool)
            .await
            .map_err(db("refreshing a server's heartbeat"))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "no server with id {id:?} is registered"
            )));
        }
        Ok(())
    }

    /// Marks server `id` stopped cleanly at `now_ms` and lets go of every lease it holds.
    pub async fn server_stopped(&self, id: &str, now_ms: i64) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(db("stopping a server"))?;
        sqlx::query("UPDATE fleet_servers SET stopped_at_ms = $2 WHERE id = $1")
            .bind(id)
            .bind(now_ms)
            .execute(&mut *tx)
            .await
            .map_err(db("stopping a server"))?;
        sqlx::query(
            "UPDATE device_leases SET expires_at_ms = $2 WHERE server_id = $1 \
             AND expires_at_ms > $2",
        )
        .bind(id)
        .bind(now_ms)
        .execute(&mut *tx)
        .await
        .map_err(db("stopping a server"))?;
        tx.commit().await.map_err(db("stopping a server"))?;
        Ok(())
    }

    /// Every registered server, by name then id.
    pub async fn fleet_servers(&self) -> Result<Vec<FleetServer>> {
        let sql = format!("SELECT {SERVER_COLUMNS} FROM fleet_servers ORDER BY name, id");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ_SERVERS))?;
        rows.iter().map(server_from_row).collect()
    }

    /// Removes server `id`'s row (a server gone for good); its lapsed leases stay, so their
    /// epochs keep rising. Whether it was registered.
    pub async fn forget_server(&self, id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM fleet_servers WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await
            .map_err(db("forgetting a server"))?;
        Ok(done.rows_affected() > 0)
    }

    /// Takes (or renews) `device`'s lease for `server` until `now_ms + ttl_ms`: granted when
    /// nobody holds it, when `server` does, or when the holder's lease lapsed. A new tenure
    /// gets the next epoch; a renewal keeps it. One statement: of servers racing, one wins and
    /// the others get [`LeaseTake::Held`] with the winner's lease.
    pub async fn take_lease(
        &self,
        device: &str,
        server: &str,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<LeaseTake> {
        let expires = now_ms.saturating_add(ttl_ms);
        // A renewal is the same server within its tenure; anything else is a new tenure.
        let sql = format!(
            "INSERT INTO device_leases ({LEASE_COLUMNS}) VALUES ($1, $2, 1, $3, $4) \
             ON CONFLICT (device_id) DO UPDATE SET \
             epoch = CASE WHEN device_leases.server_id = excluded.server_id \
                 AND device_leases.expires_at_ms > $3 \
                 THEN device_leases.epoch ELSE device_leases.epoch + 1 END, \
             acquired_at_ms = CASE WHEN device_leases.server_id = excluded.server_id \
                 AND device_leases.expires_at_ms > $3 \
                 THEN device_leases.acquired_at_ms ELSE $3 END, \
             details = CASE WHEN device_leases.server_id = excluded.server_id \
                 AND device_leases.expires_at_ms > $3 \
                 THEN device_leases.details ELSE NULL END, \
             server_id = excluded.server_id, expires_at_ms = excluded.expires_at_ms \
             WHERE device_leases.server_id = excluded.server_id \
                 OR device_leases.expires_at_ms <= $3 \
             RETURNING {LEASE_READ}"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(device)
            .bind(server)
            .bind(now_ms)
            .bind(expires)
            .fetch_optional(&self.pool)
            .await
            .map_err(db("taking a device lease"))?;
        if let Some(row) = row {
            return Ok(LeaseTake::Taken(lease_from_row(&row)?));
        }
        match self.device_lease(device).await? {
            Some(holder) => Ok(LeaseTake::Held(holder)),
            // Released between the two statements: a further try decides.
            None => Err(StoreError::Conflict(format!(
                "the lease of device {device:?} changed hands while it was taken; try again"
            ))),
        }
    }

    /// Renews every lease `server` holds that has not lapsed at `now_ms`, until `now_ms +
    /// ttl_ms`; returns them. A lease missing from the answer lapsed or moved: take it again
    /// (a new epoch) or let the device go.
    pub async fn renew_leases(
        &self,
        server: &str,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<Vec<DeviceLease>> {
        let sql = format!(
            "UPDATE device_leases SET expires_at_ms = $3 WHERE server_id = $1 \
             AND expires_at_ms > $2 RETURNING {LEASE_READ}"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(server)
            .bind(now_ms)
            .bind(now_ms.saturating_add(ttl_ms))
            .fetch_all(&self.pool)
            .await
            .map_err(db("renewing device leases"))?;
        let mut leases: Vec<DeviceLease> =
            rows.iter().map(lease_from_row).collect::<Result<_>>()?;
        leases.sort_by(|a, b| a.device_id.cmp(&b.device_id));
        Ok(leases)
    }

    /// Lets go of `device`'s lease if `server` holds it in `epoch` (its row stays, lapsed, so
    /// the next tenure gets the next epoch). Whether it did.
    pub async fn release_lease(&self, device: &str, server: &str, epoch: u64) -> Result<bool> {
        let epoch = crate::convert::to_db("a lease epoch", epoch)?;
        let done = sqlx::query(
            "UPDATE device_leases SET expires_at_ms = 0 WHERE device_id = $1 \
             AND server_id = $2 AND epoch = $3",
        )
        .bind(device)
        .bind(server)
        .bind(epoch)
        .execute(&self.pool)
        .await
        .map_err(db("releasing a device lease"))?;
        Ok(done.rows_affected() > 0)
    }

    /// Records how `server` lists `device` (JSON), while it holds the device. Whether it does.
    pub async fn describe_lease(&self, device: &str, server: &str, details: &str) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE device_leases SET details = $3 WHERE device_id = $1 AND server_id = $2",
        )
        .bind(device)
        .bind(server)
        .bind(details)
        .execute(&self.pool)
        .await
        .map_err(db("describing a leased device"))?;
        Ok(done.rows_affected() > 0)
    }

    /// `device`'s lease row, lapsed or not.
    pub async fn device_lease(&self, device: &str) -> Result<Option<DeviceLease>> {
        let sql = format!("SELECT {LEASE_READ} FROM device_leases WHERE device_id = $1");
        crate::lookup::optional(&self.pool, sql, device, READ_LEASES, lease_from_row).await
    }

    /// The leases in force at `now_ms`, by device.
    pub async fn live_leases(&self, now_ms: i64) -> Result<Vec<DeviceLease>> {
        let sql = format!(
            "SELECT {LEASE_READ} FROM device_leases WHERE expires_at_ms > $1 \
             ORDER BY device_id"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(now_ms)
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ_LEASES))?;
        rows.iter().map(lease_from_row).collect()
    }
}

fn server_from_row(row: &AnyRow) -> Result<FleetServer> {
    Ok(FleetServer {
        id: column(row, "id", READ_SERVERS)?,
        name: column(row, "name", READ_SERVERS)?,
        address: column(row, "address", READ_SERVERS)?,
        version: column(row, "version", READ_SERVERS)?,
        started_at_ms: column(row, "started_at_ms", READ_SERVERS)?,
        heartbeat_at_ms: column(row, "heartbeat_at_ms", READ_SERVERS)?,
        stopped_at_ms: column(row, "stopped_at_ms", READ_SERVERS)?,
    })
}

fn lease_from_row(row: &AnyRow) -> Result<DeviceLease> {
    let device_id: String = column(row, "device_id", READ_LEASES)?;
    let epoch: i64 = column(row, "epoch", READ_LEASES)?;
    Ok(DeviceLease {
        epoch: from_db(&format!("the lease epoch of {device_id}"), epoch)?,
        device_id,
        server_id: column(row, "server_id", READ_LEASES)?,
        acquired_at_ms: column(row, "acquired_at_ms", READ_LEASES)?,
        expires_at_ms: column(row, "expires_at_ms", READ_LEASES)?,
        details: column(row, "details", READ_LEASES)?,
    })
}
