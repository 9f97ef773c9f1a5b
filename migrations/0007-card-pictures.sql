-- Reason: cards are shown as pictures. A server chooses the style of its public pictures
-- (/nlk settings pictures: on, four-colour, off; NULL means on, so existing servers get
-- pictures), and a player the style of their own (/nlk cards; no row means "the server's").
BEGIN;

ALTER TABLE guild_settings ADD COLUMN pictures TEXT;

CREATE TABLE player_settings (
    user_id BIGINT PRIMARY KEY,
    cards   TEXT
);

PRAGMA user_version = 7;
COMMIT;
