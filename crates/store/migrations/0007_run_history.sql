-- deft-store schema, version 7: the run history of a team with hundreds of scheduled tasks —
-- filters by task, schedule, status, trigger, device and start, sorted by start, duration or
-- status, read in keyset pages (never OFFSET). Same conventions as the versions before.

-- How long an ended run took (ended_at_ms - started_at_ms), kept as a column so the duration
-- sort has an index; -1 while a run is running (it sorts before every ended run ascending).
ALTER TABLE task_runs ADD COLUMN duration_ms BIGINT NOT NULL DEFAULT -1;
UPDATE task_runs SET duration_ms = ended_at_ms - started_at_ms WHERE ended_at_ms IS NOT NULL;

-- Every sort ends on (started_at_ms, id), the key a page's cursor continues from; each filter
-- leads an index of its own so a filtered page by start is a range read, and each sort key
-- leads one so an unfiltered sorted page is too.
DROP INDEX IF EXISTS task_runs_by_start;
DROP INDEX IF EXISTS task_runs_by_task;
CREATE INDEX task_runs_by_start ON task_runs (started_at_ms, id);
CREATE INDEX task_runs_by_task ON task_runs (task_id, started_at_ms, id);
CREATE INDEX task_runs_by_schedule ON task_runs (schedule_id, started_at_ms, id);
CREATE INDEX task_runs_by_status ON task_runs (status, started_at_ms, id);
CREATE INDEX task_runs_by_trigger ON task_runs (triggered_by, started_at_ms, id);
CREATE INDEX task_runs_by_device ON task_runs (device, started_at_ms, id);
CREATE INDEX task_runs_by_duration ON task_runs (duration_ms, started_at_ms, id);
