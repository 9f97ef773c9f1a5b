-- Reason: the first schema: tables in channels, their seats, each hand's deal and an
-- append-only log of every action, from which any state is rebuilt by replaying.
BEGIN;

CREATE TABLE tables (
    id                INTEGER PRIMARY KEY,
    guild_id          INTEGER,
    channel_id        INTEGER NOT NULL,
    host_id           INTEGER NOT NULL,
    max_seats         INTEGER NOT NULL CHECK (max_seats BETWEEN 2 AND 9),
    last_card         TEXT    NOT NULL DEFAULT 'keep' CHECK (last_card IN ('keep', 'free')),
    must_beat_in_suit INTEGER NOT NULL DEFAULT 0,
    -- lobby → playing → over (hand finished) → playing … → ended; or cancelled from the lobby
    status            TEXT    NOT NULL DEFAULT 'lobby'
                      CHECK (status IN ('lobby', 'playing', 'over', 'ended', 'cancelled')),
    message_id        INTEGER,
    created_at        TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at        TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- One open table per channel.
CREATE UNIQUE INDEX tables_open_per_channel ON tables (channel_id)
    WHERE status IN ('lobby', 'playing', 'over');

CREATE TABLE seats (
    table_id  INTEGER NOT NULL REFERENCES tables (id),
    user_id   INTEGER NOT NULL,
    name      TEXT    NOT NULL,
    joined    INTEGER NOT NULL,  -- join order; seat numbers follow it
    PRIMARY KEY (table_id, user_id)
);

CREATE TABLE hands (
    id         INTEGER PRIMARY KEY,
    table_id   INTEGER NOT NULL REFERENCES tables (id),
    number     INTEGER NOT NULL,
    seed       TEXT    NOT NULL,  -- random.Random(seed) shuffled the pack into the deck
    deck       TEXT    NOT NULL,  -- JSON list of cards, top first
    dealer     INTEGER NOT NULL,
    players    TEXT    NOT NULL,  -- JSON list of user ids in seat order
    names      TEXT    NOT NULL,  -- JSON list of names in seat order
    last_card  TEXT    NOT NULL,
    must_beat_in_suit INTEGER NOT NULL,
    loser      INTEGER,
    finishing_order TEXT,         -- JSON list of seats, first out … loser
    started_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    finished_at TEXT,
    UNIQUE (table_id, number)
);

CREATE TABLE actions (
    hand_id  INTEGER NOT NULL REFERENCES hands (id),
    idx      INTEGER NOT NULL,  -- 0, 1, 2 … the engine's version before the action
    seat     INTEGER NOT NULL,
    act      TEXT    NOT NULL,
    card     TEXT,
    target   INTEGER,
    user_id  INTEGER,
    at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (hand_id, idx)
) WITHOUT ROWID;

PRAGMA user_version = 1;
COMMIT;
