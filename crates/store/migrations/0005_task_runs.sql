-- deft-store schema, version 5: task runs as durable as agent runs.
-- Same conventions as the versions before (one DDL for SQLite and PostgreSQL).

-- What a step had to say and the screenshots kept with it. message: a notify text, a loop's
-- rounds, how long a wait took; image_ids: JSON array of the run's image ids (files in the
-- run's trace folder), '[]' when none.
ALTER TABLE task_run_steps ADD COLUMN message TEXT;
ALTER TABLE task_run_steps ADD COLUMN image_ids TEXT NOT NULL DEFAULT '[]';

-- A task run's event stream, as run_events is an agent run's: every event is stored here
-- before any watcher sees it, so a seq a watcher saw names the same event after a crash.
CREATE TABLE task_run_events (
    run_id TEXT NOT NULL REFERENCES task_runs (id) ON DELETE CASCADE,
    seq    BIGINT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- Which server runs a running task run (owner: the server's id, kept in its data folder) and
-- when it last said so (heartbeat_at_ms, refreshed while the run goes on). With several
-- servers on one database, a server marks interrupted only the runs whose server stopped
-- saying so (or its own previous process's); NULL for runs recorded before this version.
ALTER TABLE task_runs ADD COLUMN owner TEXT;
ALTER TABLE task_runs ADD COLUMN heartbeat_at_ms BIGINT;
