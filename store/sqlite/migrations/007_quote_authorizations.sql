-- 007: the QuoteAuthorizations (FEP-044f) a persona granted when it
-- accepted a QuoteRequest: their ids are dereferenceable, which is how a
-- server checks that a quote was approved.
CREATE TABLE quote_authorizations (
    id         TEXT PRIMARY KEY, -- the id's last path segment (a UUID)
    persona_id TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    post_id    TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE, -- the quoted local post
    quoting    TEXT NOT NULL, -- the quoting post's id
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
