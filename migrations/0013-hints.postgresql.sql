-- Reason: hints at real tables, for PostgreSQL (see 0013-hints.sql). The runner wraps it in
-- one transaction and records the schema version.

ALTER TABLE guild_settings ADD COLUMN hints BIGINT;
ALTER TABLE hands ADD COLUMN hints BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hands ADD COLUMN assisted BIGINT NOT NULL DEFAULT 0;
