-- deft-store schema, version 8: notifications — what the console's bell lists (a task run that
-- failed, a run waiting for an approval, a device gone offline, …), each person's read state
-- of them, and each task's choice of what its runs report. Same conventions as the versions
-- before.

-- What a task's runs report (flags 0/1): a failure, time-out or interruption (on for every
-- task, old ones included), a success, each `notify` step.
ALTER TABLE tasks ADD COLUMN notify_on_failure BIGINT NOT NULL DEFAULT 1;
ALTER TABLE tasks ADD COLUMN notify_on_success BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN notify_on_notify_step BIGINT NOT NULL DEFAULT 0;

-- kind and level by their wire names (deft-protocol's notification module); link is the
-- console route of the subject; the subject's ids that apply are set, the others NULL. Only
-- the newest ones are kept (the store prunes on insert). seq numbers them in the order they
-- were made (one past the greatest so far): the list's order, and the pruning's.
CREATE TABLE notifications (
    id              TEXT PRIMARY KEY,
    seq             BIGINT NOT NULL,
    kind            TEXT NOT NULL,
    level           TEXT NOT NULL,
    title           TEXT NOT NULL,
    body            TEXT NOT NULL,
    link            TEXT NOT NULL,
    task_id         TEXT,
    run_id          TEXT,
    conversation_id TEXT,
    device          TEXT,
    created_at_ms   BIGINT NOT NULL
);
CREATE INDEX notifications_by_seq ON notifications (seq, id);

-- Which reader (a username, or the API token's name) has read which notification. A reader
-- never sees a notification from before they existed as unread (the caller passes the moment).
CREATE TABLE notification_reads (
    reader          TEXT NOT NULL,
    notification_id TEXT NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    read_at_ms      BIGINT NOT NULL,
    PRIMARY KEY (reader, notification_id)
);
CREATE INDEX notification_reads_by_notification ON notification_reads (notification_id);
