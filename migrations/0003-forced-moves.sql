-- Reason: moves with no choice play themselves, and the log says so; mark them apart from
-- the moves a player chose.
BEGIN;

ALTER TABLE actions ADD COLUMN forced INTEGER NOT NULL DEFAULT 0;  -- 1: the only legal move

PRAGMA user_version = 3;
COMMIT;
