-- 017: the shields' request counts per address block and fixed window
-- (issue 16, point 9), shared by every process so that a limit holds
-- under CGI. The window leads the key: a hit is one primary-key upsert
-- and the reaper's delete of old windows is one range of it.
CREATE TABLE shield_counters (
    win    INTEGER NOT NULL, -- the window's start, Unix microseconds
    key    TEXT NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (win, key)
) WITHOUT ROWID;
