-- deft-store schema, version 9: a task's versions, its folder and tags, and the version each run
-- ran. Same conventions as the versions before (one DDL for SQLite and PostgreSQL).

-- folder: a path like "finance/nightly" ('' at the top). tags: a JSON array of texts, no two the
-- same ignoring case. version: the number of the task's newest row in task_versions.
ALTER TABLE tasks ADD COLUMN folder TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tasks ADD COLUMN version BIGINT NOT NULL DEFAULT 1;
CREATE INDEX tasks_by_folder ON tasks (folder, name);

-- Every save of a task, as saved: written in the transaction that creates or changes the task.
-- author: the console user, or "cli" / "api"; cause: create, edit, restore or import. A deleted
-- task takes its versions with it.
CREATE TABLE task_versions (
    task_id     TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    version     BIGINT NOT NULL,
    name        TEXT NOT NULL,
    device      TEXT NOT NULL,
    definition  TEXT NOT NULL,
    enabled     BIGINT NOT NULL,
    folder      TEXT NOT NULL,
    tags        TEXT NOT NULL,
    author      TEXT NOT NULL,
    saved_at_ms BIGINT NOT NULL,
    note        TEXT NOT NULL,
    cause       TEXT NOT NULL,
    PRIMARY KEY (task_id, version)
);

-- The tasks there are: version 1 is their record as it stands.
INSERT INTO task_versions (task_id, version, name, device, definition, enabled, folder, tags,
                           author, saved_at_ms, note, cause)
SELECT id, 1, name, device, definition, enabled, '', '[]', 'migration', updated_at_ms, '', 'create'
FROM tasks;

-- The version of the task a run ran (NULL: a draft's try, or a run recorded before version 9).
ALTER TABLE task_runs ADD COLUMN task_version BIGINT;
