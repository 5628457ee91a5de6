-- deft-store schema, version 13: the fleet (several `deft serve` on one PostgreSQL) — the
-- servers, the leases of the devices they hold, the fence on runs, and the jobs that carry a
-- run from the server it was asked on to the server that holds its device. Same conventions as
-- the versions before (one DDL for SQLite and PostgreSQL, moments in ms since the epoch). On
-- SQLite (one server) the tables stay as good as empty.

-- One row per server that ever ran on this database: id (kept in its data folder), name (for
-- people: host and port), address (the URL its console answers on), version (deft's),
-- started_at_ms (this process's start), heartbeat_at_ms (refreshed every few seconds while it
-- runs) and stopped_at_ms (set at a clean shutdown, cleared at the next start).
CREATE TABLE fleet_servers (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    address         TEXT NOT NULL,
    version         TEXT NOT NULL,
    started_at_ms   BIGINT NOT NULL,
    heartbeat_at_ms BIGINT NOT NULL,
    stopped_at_ms   BIGINT
);

-- Which server holds a device (a `deft client`'s or a phone's id, unique in the fleet): the
-- holder's id, the epoch (raised by one whenever the lease is taken anew — by another server, or
-- by the same one after it had lapsed — and never lowered: a released lease keeps its row with
-- an expiry in the past), when this epoch began, when it lapses unless renewed, and details:
-- the device as its holder lists it (JSON), so the other servers can list it too.
CREATE TABLE device_leases (
    device_id      TEXT PRIMARY KEY,
    server_id      TEXT NOT NULL,
    epoch          BIGINT NOT NULL,
    acquired_at_ms BIGINT NOT NULL,
    expires_at_ms  BIGINT NOT NULL,
    details        TEXT
);
CREATE INDEX device_leases_by_server ON device_leases (server_id, expires_at_ms);

-- Which server runs an agent run (its id; NULL for runs recorded before fleets): a server ends
-- at start-up only its own unfinished runs, and those of servers that went silent — never a run
-- another live server is running.
ALTER TABLE runs ADD COLUMN owner TEXT;

-- A run asked for on one server for a device another holds: kind (chat, task, …) and payload
-- (its JSON request) as the asking server wrote them, origin_server, state queued / claimed /
-- done / failed / interrupted, who claimed it under which lease epoch and when, and the
-- outcome (a run id or an error text).
CREATE TABLE fleet_jobs (
    id             TEXT PRIMARY KEY,
    device_id      TEXT NOT NULL,
    kind           TEXT NOT NULL,
    payload        TEXT NOT NULL,
    origin_server  TEXT NOT NULL,
    state          TEXT NOT NULL,
    claimed_by     TEXT,
    lease_epoch    BIGINT,
    claimed_at_ms  BIGINT,
    outcome        TEXT,
    created_at_ms  BIGINT NOT NULL,
    updated_at_ms  BIGINT NOT NULL
);
-- The queue's order, only over the jobs still queued (a claim reads these, not the ended ones);
-- ended jobs by when they ended, for pruning.
CREATE INDEX fleet_jobs_queued ON fleet_jobs (created_at_ms, id) WHERE state = 'queued';
CREATE INDEX fleet_jobs_ended ON fleet_jobs (updated_at_ms) WHERE state <> 'queued' AND state <> 'claimed';
