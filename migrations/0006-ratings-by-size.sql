-- Reason: a loss at a nine-seat table is not a loss at a three-seat one, so ratings are
-- kept per table size and the leaderboard shows one size at a time; each result also keeps
-- the rating it led to, so a player's trend can be shown. The per-size ratings of hands
-- already played are recomputed from the stored results by the bot at start-up (the rating
-- model is Python), which fills the new columns: no hand is lost.
BEGIN;

-- One player's rating at one table size on one server.
CREATE TABLE size_ratings (
    guild_id BIGINT           NOT NULL,
    user_id  BIGINT           NOT NULL,
    players  INTEGER          NOT NULL,
    mu       DOUBLE PRECISION NOT NULL,
    sigma    DOUBLE PRECISION NOT NULL,
    hands    INTEGER          NOT NULL DEFAULT 0,
    losses   INTEGER          NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, players, user_id)
);

-- The player's rating at this table size after this hand; NULL until it is computed.
ALTER TABLE results ADD COLUMN mu DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN sigma DOUBLE PRECISION;

PRAGMA user_version = 6;
COMMIT;
