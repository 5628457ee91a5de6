-- deft-store schema, version 11: named API tokens (docs/console-api.md "API tokens"). Same
-- conventions as the versions before (one DDL for SQLite and PostgreSQL).

-- id: v4 UUID; name: unique, what people call it by; token_hash: SHA-256 (hex) of the token
-- (the token itself is shown once and never stored); prefix: the token's first characters,
-- to recognise it in a list; scopes: comma-separated scope names; created_by: the username
-- or "cli"; expires_at_ms / revoked_at_ms: NULL when it does not expire / is not revoked;
-- last_used_at_ms: the last call it made (kept to the minute).
CREATE TABLE api_tokens (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    token_hash      TEXT NOT NULL UNIQUE,
    prefix          TEXT NOT NULL,
    scopes          TEXT NOT NULL,
    created_by      TEXT NOT NULL,
    created_at_ms   BIGINT NOT NULL,
    expires_at_ms   BIGINT,
    last_used_at_ms BIGINT,
    revoked_at_ms   BIGINT
);

-- The calls each token made, newest kept (the server prunes to a bounded number per token).
CREATE TABLE api_token_calls (
    token_id TEXT NOT NULL REFERENCES api_tokens(id) ON DELETE CASCADE,
    at_ms    BIGINT NOT NULL,
    method   TEXT NOT NULL,
    path     TEXT NOT NULL,
    status   BIGINT NOT NULL
);
CREATE INDEX api_token_calls_by_token ON api_token_calls (token_id, at_ms);
