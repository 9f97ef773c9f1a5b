-- Reason: a server may allow a Hint button at its real tables (/nlk settings hints; NULL
-- means off, so existing servers keep them off). A hand keeps whether hints were allowed
-- when it was dealt, and whether anyone used one (it is then marked assisted in its moves
-- log and its export, and rated like any other).
BEGIN;

ALTER TABLE guild_settings ADD COLUMN hints INTEGER;
ALTER TABLE hands ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hands ADD COLUMN assisted INTEGER NOT NULL DEFAULT 0;

PRAGMA user_version = 13;
COMMIT;
