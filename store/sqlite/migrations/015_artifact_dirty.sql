-- 015: the artifact keys writes dirtied (issue 16, point 3). A write marks
-- the public documents it changes inside its own transaction; one rebuild
-- job per burst renders them again and clears each key it rebuilt, unless
-- a later write marked it again meanwhile (its generation moved on).
CREATE TABLE artifact_dirty (
    key   TEXT PRIMARY KEY,
    gen   INTEGER NOT NULL,
    since INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX artifact_dirty_since ON artifact_dirty (since, key);
