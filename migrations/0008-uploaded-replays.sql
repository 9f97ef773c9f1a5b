-- Reason: /nlk replay opens an uploaded nlk-replay/1 file, and its step buttons must find
-- that file again after a restart. A button carries at most 100 characters, not the file, so
-- the file is kept here under the hash of its content (the buttons carry the hash); the same
-- file uploaded twice is kept once.
BEGIN;

CREATE TABLE uploaded_replays (
    digest      TEXT PRIMARY KEY,
    body        TEXT NOT NULL,
    uploaded_at TEXT NOT NULL
);

PRAGMA user_version = 8;
COMMIT;
