-- Reason: a server can play in seasons (/nlk settings seasons: off, monthly, quarterly; NULL
-- means off, so existing servers keep their all-time boards). Seasonal boards are computed
-- from the stored results and their hands' finish times, so no rating is stored per season;
-- what is kept is who has already been shown the podium of a season that ended.
BEGIN;

ALTER TABLE guild_settings ADD COLUMN seasons TEXT;

CREATE TABLE podiums_shown (
    guild_id BIGINT NOT NULL,
    user_id  BIGINT NOT NULL,
    season   TEXT   NOT NULL,
    PRIMARY KEY (guild_id, user_id, season)
);

PRAGMA user_version = 9;
COMMIT;
