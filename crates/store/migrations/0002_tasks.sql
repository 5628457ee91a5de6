-- deft-store schema, version 2: tasks, their schedules, task runs and each run's step results.
-- Same conventions as version 1 (one DDL for SQLite and PostgreSQL): TEXT ids, BIGINT
-- millisecond timestamps, JSON as TEXT, flags as BIGINT 0/1.

-- definition: the task as JSON text, exactly as the caller validated it (the store never parses
-- it). device: the device its runs use unless a run names another.
CREATE TABLE tasks (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    device        TEXT NOT NULL,
    definition    TEXT NOT NULL,
    enabled       BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- kind decides which spec columns are set: cron (cron_expr, cron_tz), every (every_seconds),
-- once (once_at_ms). next_fire_at_ms is NULL when nothing is due any more (a once schedule that
-- fired). version grows with every change, claims included: a fire is claimed by a
-- compare-and-set on it, so with several servers on one database each fire runs once.
-- task_enabled mirrors tasks.enabled (the store keeps them equal) so that the scheduler's
-- queries read one table through one partial index: no join whose plan depends on statistics.
-- A deleted task takes its schedules with it.
CREATE TABLE schedules (
    id              TEXT PRIMARY KEY,
    task_id         TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    cron_expr       TEXT,
    cron_tz         TEXT,
    every_seconds   BIGINT,
    once_at_ms      BIGINT,
    misfire         TEXT NOT NULL,
    busy            TEXT NOT NULL,
    enabled         BIGINT NOT NULL,
    task_enabled    BIGINT NOT NULL,
    next_fire_at_ms BIGINT,
    last_fire_at_ms BIGINT,
    version         BIGINT NOT NULL,
    created_at_ms   BIGINT NOT NULL,
    updated_at_ms   BIGINT NOT NULL
);
CREATE INDEX schedules_by_task ON schedules (task_id);
CREATE INDEX schedules_firing ON schedules (next_fire_at_ms)
    WHERE enabled = 1 AND task_enabled = 1 AND next_fire_at_ms IS NOT NULL;

-- No foreign key to tasks: a run's record (with the task's name at the time) outlives a
-- deleted task. At most one run per task is running: the partial unique index is the arbiter,
-- also between several servers. variables: JSON object.
CREATE TABLE task_runs (
    id             TEXT PRIMARY KEY,
    task_id        TEXT NOT NULL,
    task_name      TEXT NOT NULL,
    triggered_by   TEXT NOT NULL,
    schedule_id    TEXT,
    fire_at_ms     BIGINT,
    device         TEXT NOT NULL,
    status         TEXT NOT NULL,
    started_at_ms  BIGINT NOT NULL,
    ended_at_ms    BIGINT,
    error          TEXT,
    variables      TEXT NOT NULL,
    steps_ok       BIGINT NOT NULL DEFAULT 0,
    steps_failed   BIGINT NOT NULL DEFAULT 0,
    steps_skipped  BIGINT NOT NULL DEFAULT 0,
    steps_healed   BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX task_runs_by_start ON task_runs (started_at_ms);
CREATE INDEX task_runs_by_task ON task_runs (task_id, started_at_ms);
CREATE UNIQUE INDEX task_runs_one_running ON task_runs (task_id) WHERE status = 'running';

-- One row per executed step, in execution order (seq); a step inside a loop has a row per
-- iteration. matched: JSON {id, name, score}; healed_from: the selector as written, JSON.
CREATE TABLE task_run_steps (
    run_id        TEXT NOT NULL REFERENCES task_runs (id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    path          TEXT NOT NULL,
    step_type     TEXT NOT NULL,
    status        TEXT NOT NULL,
    started_at_ms BIGINT NOT NULL,
    duration_ms   BIGINT NOT NULL,
    matched       TEXT,
    healed_from   TEXT,
    error         TEXT,
    PRIMARY KEY (run_id, seq)
);
