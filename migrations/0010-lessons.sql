-- Reason: /nlk learn keeps each learner's place in the guided first hand (the lesson's name,
-- the step reached, and whether they finished it), so the lesson resumes after a restart or
-- after its private message has expired.
BEGIN;

CREATE TABLE lessons (
    user_id  BIGINT  NOT NULL PRIMARY KEY,
    lesson   TEXT    NOT NULL,
    step     INTEGER NOT NULL DEFAULT 0,
    finished INTEGER NOT NULL DEFAULT 0
);

PRAGMA user_version = 10;
COMMIT;
