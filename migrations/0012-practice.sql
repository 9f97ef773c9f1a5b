-- Reason: /nlk practice keeps each player's practice hand (its seats, the AI's level, the
-- deal's seed, its moves and the hints used), so it resumes after a restart or after its
-- private message has expired. Practice hands are never rated: nothing here is read by
-- the stats or the boards.
BEGIN;

CREATE TABLE practice_hands (
    user_id BIGINT  NOT NULL PRIMARY KEY,
    number  INTEGER NOT NULL,
    players INTEGER NOT NULL,
    level   TEXT    NOT NULL,
    seed    TEXT    NOT NULL,
    moves   TEXT    NOT NULL DEFAULT '',
    hints   INTEGER NOT NULL DEFAULT 0
);

PRAGMA user_version = 12;
COMMIT;
