-- Reason: /nlk practice keeps each player's practice hand, for PostgreSQL (see
-- 0012-practice.sql). The runner wraps it in one transaction and records the schema
-- version.

CREATE TABLE practice_hands (
    user_id BIGINT NOT NULL PRIMARY KEY,
    number  BIGINT NOT NULL,
    players BIGINT NOT NULL,
    level   TEXT   NOT NULL,
    seed    TEXT   NOT NULL,
    moves   TEXT   NOT NULL DEFAULT '',
    hints   BIGINT NOT NULL DEFAULT 0
);
