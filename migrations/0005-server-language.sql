-- Reason: a server chooses the language of the bot's public messages (/nlk settings
-- language); NULL means "the server's own Discord locale", so existing servers keep theirs.
BEGIN;

ALTER TABLE guild_settings ADD COLUMN language TEXT;

PRAGMA user_version = 5;
COMMIT;
