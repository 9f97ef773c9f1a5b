-- Reason: a player's first refusal at a real table links the lesson, for PostgreSQL (see
-- 0011-lesson-links.sql). The runner wraps it in one transaction and records the schema
-- version.

CREATE TABLE lesson_links (
    user_id BIGINT NOT NULL PRIMARY KEY
);
