-- deft-store schema, version 3: what a task run's step had to say and the screenshots kept
-- with it. message: a notify text, a loop's rounds, how long a wait took; image_ids: JSON
-- array of the run's image ids (files in the run's trace folder), '[]' when none.
ALTER TABLE task_run_steps ADD COLUMN message TEXT;
ALTER TABLE task_run_steps ADD COLUMN image_ids TEXT NOT NULL DEFAULT '[]';
