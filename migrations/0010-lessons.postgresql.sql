-- Reason: /nlk learn keeps each learner's place in the guided first hand, for PostgreSQL (see
-- 0010-lessons.sql): 64-bit Discord ids. The runner wraps it in one transaction and records
-- the schema version.

CREATE TABLE lessons (
    user_id  BIGINT  NOT NULL PRIMARY KEY,
    lesson   TEXT    NOT NULL,
    step     BIGINT  NOT NULL DEFAULT 0,
    finished BIGINT  NOT NULL DEFAULT 0
);
