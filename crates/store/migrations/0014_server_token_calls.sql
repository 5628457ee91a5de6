-- deft-store schema, version 14: the calls log holds the server's own API token's calls too,
-- under the reserved token id "api-token" (no row of api_tokens: that token is not a named
-- one), so the log no longer references api_tokens. Same conventions as the versions before
-- (one DDL for SQLite and PostgreSQL). Named tokens are revoked, never deleted, so nothing
-- relied on the cascade.
CREATE TABLE api_token_calls_v14 (
    token_id TEXT NOT NULL,
    at_ms    BIGINT NOT NULL,
    method   TEXT NOT NULL,
    path     TEXT NOT NULL,
    status   BIGINT NOT NULL
);
INSERT INTO api_token_calls_v14 (token_id, at_ms, method, path, status)
    SELECT token_id, at_ms, method, path, status FROM api_token_calls;
DROP TABLE api_token_calls;
ALTER TABLE api_token_calls_v14 RENAME TO api_token_calls;
CREATE INDEX api_token_calls_by_token ON api_token_calls (token_id, at_ms);
