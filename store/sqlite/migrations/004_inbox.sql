-- 004: the inbox's accepted activities. The body of an activity (up to
-- 1 MB) waits here for its inbox.process job, whose payload (at most
-- 64 KB) names the row; once processed the body is cleared and the id
-- stays, so a second delivery of the same activity is recognised.

CREATE TABLE inbox_items (
    id          TEXT PRIMARY KEY, -- hash of the activity id
    actor_id    TEXT NOT NULL,    -- the verified signer (remote_actors.id)
    persona_id  TEXT NOT NULL DEFAULT '', -- '' for the shared inbox
    body        BLOB,             -- NULL once processed
    received_at INTEGER NOT NULL
) WITHOUT ROWID;
-- Pruning walks the oldest rows.
CREATE INDEX inbox_items_received ON inbox_items (received_at);
