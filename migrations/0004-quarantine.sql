-- Reason: a table whose stored hand no longer replays is set aside instead of stopping the
-- bot, with the reason kept for whoever repairs it; and the bot remembers small facts between
-- starts (such as which command tree it last synced), so restarts need not repeat the work.
BEGIN;

-- Why the table was stopped at start-up (NULL: never). A quarantined table is also 'ended',
-- so it no longer counts as open and a new table may open in its channel; its hand and
-- action log are left as they were (the hand's finished_at tells whether it was 'playing'
-- or 'over', should it be repaired and reopened).
ALTER TABLE tables ADD COLUMN quarantined TEXT;

-- Small values the bot keeps between starts, by key.
CREATE TABLE bot_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

PRAGMA user_version = 4;
COMMIT;
