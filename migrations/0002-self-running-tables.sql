-- Reason: tables that run themselves: AI seats, turn timers with stand-ins, ratings from
-- each rated hand's finishing order, and per-server defaults.
BEGIN;

ALTER TABLE tables ADD COLUMN turn_seconds INTEGER NOT NULL DEFAULT 90;  -- 0: no timer
ALTER TABLE tables ADD COLUMN active_at REAL;  -- unix time of the last change (idle ending)

ALTER TABLE seats ADD COLUMN ai TEXT;  -- NULL for a person, else the AI level

ALTER TABLE hands ADD COLUMN ai TEXT NOT NULL DEFAULT '[]';      -- per seat: null or AI level
ALTER TABLE hands ADD COLUMN away TEXT NOT NULL DEFAULT '[]';    -- seats the AI plays for now
ALTER TABLE hands ADD COLUMN missed TEXT NOT NULL DEFAULT '[]';  -- missed turns in a row
ALTER TABLE hands ADD COLUMN stand_in INTEGER NOT NULL DEFAULT 0;  -- 1: unrated
ALTER TABLE hands ADD COLUMN turn_started REAL;  -- unix time the current turn's clock began
ALTER TABLE hands ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;

ALTER TABLE actions ADD COLUMN by TEXT NOT NULL DEFAULT 'player'
    CHECK (by IN ('player', 'ai', 'stand-in'));

-- One row per person per rated hand.
CREATE TABLE results (
    hand_id  INTEGER NOT NULL REFERENCES hands (id),
    guild_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    players  INTEGER NOT NULL,
    place    INTEGER NOT NULL,  -- 1: first out … players: the loser
    PRIMARY KEY (hand_id, user_id)
);
CREATE INDEX results_by_player ON results (guild_id, user_id);

CREATE TABLE ratings (
    guild_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    name     TEXT    NOT NULL,
    mu       REAL    NOT NULL,
    sigma    REAL    NOT NULL,
    hands    INTEGER NOT NULL DEFAULT 0,
    losses   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
);

CREATE TABLE guild_settings (
    guild_id          INTEGER PRIMARY KEY,
    seats             INTEGER NOT NULL DEFAULT 6,
    last_card         TEXT    NOT NULL DEFAULT 'keep',
    must_beat_in_suit INTEGER NOT NULL DEFAULT 0,
    turn_seconds      INTEGER NOT NULL DEFAULT 90,
    allow_ai          INTEGER NOT NULL DEFAULT 1
);

PRAGMA user_version = 2;
COMMIT;
