-- deft-store schema, version 12: webhooks (docs/console-api.md "Webhooks") — where deft POSTs
-- its events, and the durable queue and log of each delivery. Same conventions as the versions
-- before (one DDL for SQLite and PostgreSQL, moments in ms since the epoch, flags 0/1).

-- id: v4 UUID; name: unique, what people call it by; url: http(s) address it is POSTed to;
-- events: comma-separated event kinds (run.ended, task_run.ended, …); sealed_secret: the
-- signing secret sealed with the data folder's key (shown once, never returned); enabled:
-- 0/1; failing: 0/1, set when a delivery failed after its last attempt and cleared by the next
-- success.
CREATE TABLE webhooks (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    url           TEXT NOT NULL,
    events        TEXT NOT NULL,
    sealed_secret TEXT NOT NULL,
    enabled       BIGINT NOT NULL,
    failing       BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- One event for one webhook: id is the Deft-Delivery header (the same on every attempt);
-- event_id and payload the event as POSTed (the JSON body, signed anew at each attempt);
-- state pending / succeeded / failed; next_attempt_at_ms when a pending delivery is due (a
-- sender claims it by moving it past the attempt's time-out, so a crash leaves it due again);
-- the last attempt's answer (status, error, excerpt of the body, duration). Deleting a webhook
-- deletes its deliveries; the store keeps the newest ones of each webhook.
CREATE TABLE webhook_deliveries (
    id                 TEXT PRIMARY KEY,
    webhook_id         TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_kind         TEXT NOT NULL,
    event_id           TEXT NOT NULL,
    payload            TEXT NOT NULL,
    attempts           BIGINT NOT NULL,
    state              TEXT NOT NULL,
    next_attempt_at_ms BIGINT,
    response_code      BIGINT,
    last_error         TEXT,
    response_excerpt   TEXT,
    duration_ms        BIGINT,
    created_at_ms      BIGINT NOT NULL,
    updated_at_ms      BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries (webhook_id, created_at_ms, id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at_ms);
