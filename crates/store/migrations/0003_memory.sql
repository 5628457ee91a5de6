-- deft-store schema, version 3: the experience and action libraries (seed 001 §4, §5), the
-- audits of experiences, what memory did for each run, and jobs (the scheduler's own
-- schedules, such as the daily audit). Same conventions as before: one DDL for SQLite and
-- PostgreSQL, TEXT ids, BIGINT millisecond timestamps, JSON as TEXT.

-- An experience: a task-level recipe in words, distilled from a successful run or written by
-- a person. audit_state: none (never suggested for deletion), pending (the audit suggests
-- deleting it; only a person deletes), kept (a person chose to keep it; the audit never
-- suggests it again). audit_score / audit_reason / audited_at_ms: the latest review.
CREATE TABLE experiences (
    id              TEXT PRIMARY KEY,
    task            TEXT NOT NULL,
    title           TEXT NOT NULL,
    recipe          TEXT NOT NULL,
    source_run      TEXT,
    hits            BIGINT NOT NULL DEFAULT 0,
    last_used_at_ms BIGINT,
    audit_state     TEXT NOT NULL,
    audit_score     BIGINT,
    audit_reason    TEXT,
    audited_at_ms   BIGINT,
    created_at_ms   BIGINT NOT NULL,
    updated_at_ms   BIGINT NOT NULL
);
CREATE INDEX experiences_by_update ON experiences (updated_at_ms);

-- One pass of the audit. At most one runs at a time, across servers (the partial unique index
-- is the arbiter); a pass left running by a dead server is given up after a while.
CREATE TABLE memory_audits (
    id             TEXT PRIMARY KEY,
    trigger_kind   TEXT NOT NULL,
    status         TEXT NOT NULL,
    started_at_ms  BIGINT NOT NULL,
    finished_at_ms BIGINT,
    reviewed       BIGINT NOT NULL DEFAULT 0,
    suggested      BIGINT NOT NULL DEFAULT 0,
    error          TEXT
);
CREATE INDEX memory_audits_by_start ON memory_audits (started_at_ms);
CREATE UNIQUE INDEX memory_audits_one_running ON memory_audits (status) WHERE status = 'running';

-- The audit's verdict on one experience (keep or delete, a score 0-100, a reason) and what a
-- person did with a delete suggestion (decision: kept or deleted). No foreign key: the
-- history outlives a deleted experience.
CREATE TABLE experience_audits (
    audit_id      TEXT NOT NULL,
    experience_id TEXT NOT NULL,
    verdict       TEXT NOT NULL,
    score         BIGINT NOT NULL,
    reason        TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    decision      TEXT,
    decided_at_ms BIGINT,
    PRIMARY KEY (audit_id, experience_id)
);
CREATE INDEX experience_audits_by_experience ON experience_audits (experience_id, created_at_ms);

-- A named action: steps in the task step language (JSON array, validated in library mode by
-- the caller: element selectors, no coordinates), its aliases (JSON array of strings) and
-- variables (JSON object name -> default). name_key is the name folded for comparison
-- (trimmed, lower case): names are unique regardless of case.
CREATE TABLE actions (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    name_key        TEXT NOT NULL UNIQUE,
    aliases         TEXT NOT NULL,
    description     TEXT NOT NULL,
    app             TEXT,
    variables       TEXT NOT NULL,
    steps           TEXT NOT NULL,
    source_run      TEXT,
    hits            BIGINT NOT NULL DEFAULT 0,
    last_used_at_ms BIGINT,
    created_at_ms   BIGINT NOT NULL,
    updated_at_ms   BIGINT NOT NULL
);

-- What memory did for a run, in order: the notes (JSON, the memory event's body) of what was
-- recalled into its prompt and of what distilling saved, merged or dropped afterwards.
CREATE TABLE run_memory (
    run_id   TEXT NOT NULL,
    position BIGINT NOT NULL,
    note     TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);

-- Grows with every change to what recall matches (an experience's task or title, an action's
-- name or aliases; entries created or deleted): each server rebuilds its recall index when it
-- sees a new value.
CREATE TABLE memory_generation (
    id         BIGINT PRIMARY KEY,
    generation BIGINT NOT NULL
);
INSERT INTO memory_generation (id, generation) VALUES (1, 0);

-- Jobs: schedules of the server's own work (the experience audit), by name, with the same
-- spec columns and claim (a compare-and-set on version) as task schedules, so with several
-- servers on one database each fire runs once.
CREATE TABLE jobs (
    name            TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    cron_expr       TEXT,
    cron_tz         TEXT,
    every_seconds   BIGINT,
    once_at_ms      BIGINT,
    enabled         BIGINT NOT NULL,
    next_fire_at_ms BIGINT,
    last_fire_at_ms BIGINT,
    version         BIGINT NOT NULL,
    updated_at_ms   BIGINT NOT NULL
);
CREATE INDEX jobs_firing ON jobs (next_fire_at_ms) WHERE enabled = 1 AND next_fire_at_ms IS NOT NULL;
