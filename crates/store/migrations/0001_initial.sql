-- deft-store schema, version 1. Runs unchanged on SQLite and PostgreSQL: TEXT ids, BIGINT
-- millisecond timestamps, JSON as TEXT, explicit position/seq columns instead of
-- AUTOINCREMENT/SERIAL.

CREATE TABLE app_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);

CREATE TABLE sessions (
    id_hash       TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token    TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions (expires_at_ms);

-- next_position: the position the next appended message gets (positions never repeat).
-- The usage columns sum every assistant message ever appended, dropped ones included.
CREATE TABLE conversations (
    id                TEXT PRIMARY KEY,
    title             TEXT NOT NULL,
    created_at_ms     BIGINT NOT NULL,
    updated_at_ms     BIGINT NOT NULL,
    next_position     BIGINT NOT NULL DEFAULT 0,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    total_tokens      BIGINT NOT NULL DEFAULT 0,
    calls             BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX conversations_by_update ON conversations (updated_at_ms);

-- usage: JSON object or NULL; steps: JSON array.
CREATE TABLE messages (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    position        BIGINT NOT NULL,
    role            TEXT NOT NULL,
    content         TEXT NOT NULL,
    created_at_ms   BIGINT NOT NULL,
    run_id          TEXT,
    status          TEXT,
    usage           TEXT,
    reasoning       TEXT,
    steps           TEXT NOT NULL,
    PRIMARY KEY (conversation_id, position)
);

-- No foreign key to conversations: a run and its events outlive a deleted conversation.
CREATE TABLE runs (
    id                TEXT PRIMARY KEY,
    conversation_id   TEXT NOT NULL,
    device            TEXT NOT NULL,
    prompt            TEXT NOT NULL,
    status            TEXT NOT NULL,
    answer            TEXT NOT NULL,
    prompt_tokens     BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    total_tokens      BIGINT NOT NULL,
    calls             BIGINT NOT NULL,
    started_at_ms     BIGINT NOT NULL,
    finished_at_ms    BIGINT
);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq    BIGINT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
