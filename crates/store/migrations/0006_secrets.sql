-- deft-store schema, version 6: the secrets tasks use (docs/tasks.md "Secrets"). Same
-- conventions as the versions before (one DDL for SQLite and PostgreSQL).

-- name: the secret's name (letters, digits and `_`, checked by the server); sealed: the value
-- sealed by the server with the data folder's key (the store never sees a value in clear);
-- set_by: the username that set it last; updated_at_ms: when.
CREATE TABLE secrets (
    name          TEXT PRIMARY KEY,
    sealed        TEXT NOT NULL,
    set_by        TEXT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
