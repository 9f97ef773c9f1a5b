-- Reason: a player's first refusal at a real table links the lesson (/nlk learn), once per
-- player: who has been shown the link is kept, so a restart doesn't show it again.
BEGIN;

CREATE TABLE lesson_links (
    user_id BIGINT NOT NULL PRIMARY KEY
);

PRAGMA user_version = 11;
COMMIT;
