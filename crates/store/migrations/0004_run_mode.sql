-- deft-store schema, version 4: an agent run's mode (`chat` or `designer`), so a finished run
-- says what kind it was. Runs recorded before it are chats.
ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'chat';
