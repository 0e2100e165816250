-- 001: the ledger's first tables: settings, personas, posts and owner auth.
-- Times are INTEGER unix microseconds (UTC); IDs are UUIDv7 text.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE personas (
    id              TEXT PRIMARY KEY,
    username        TEXT NOT NULL COLLATE NOCASE UNIQUE,
    display_name    TEXT NOT NULL DEFAULT '',
    summary         TEXT NOT NULL DEFAULT '',
    fields          TEXT NOT NULL DEFAULT '[]', -- JSON array of {name, value}, at most 4
    avatar_path     TEXT NOT NULL DEFAULT '',
    header_path     TEXT NOT NULL DEFAULT '',
    locked          INTEGER NOT NULL DEFAULT 0,
    show_follows    INTEGER NOT NULL DEFAULT 1,
    discoverable    INTEGER NOT NULL DEFAULT 1,
    is_primary      INTEGER NOT NULL DEFAULT 0,
    public_key_pem  TEXT NOT NULL,
    private_key_pem TEXT NOT NULL,
    posts_count     INTEGER NOT NULL DEFAULT 0,
    followers_count INTEGER NOT NULL DEFAULT 0,
    following_count INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

-- At most one primary persona.
CREATE UNIQUE INDEX personas_primary ON personas (is_primary) WHERE is_primary = 1;

CREATE TABLE posts (
    id           TEXT PRIMARY KEY,
    persona_id   TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL CHECK (kind IN ('note', 'article')),
    title        TEXT NOT NULL DEFAULT '',
    source       TEXT NOT NULL,
    content      TEXT NOT NULL,
    summary      TEXT NOT NULL DEFAULT '',
    sensitive    INTEGER NOT NULL DEFAULT 0,
    visibility   TEXT NOT NULL CHECK (visibility IN ('public', 'unlisted', 'followers', 'direct')),
    language     TEXT NOT NULL DEFAULT '',
    tags         TEXT NOT NULL DEFAULT '[]', -- JSON array of hashtags
    published_at INTEGER, -- NULL: draft; future: scheduled; past: published
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);

-- The owner's view: everything, newest first (UUIDv7 ids sort by creation).
CREATE INDEX posts_persona ON posts (persona_id, id);

-- The public view: the publication predicate as a partial index, so public
-- listings walk only publishable rows in (published_at, id) order.
CREATE INDEX posts_public_persona ON posts (persona_id, published_at, id)
    WHERE published_at IS NOT NULL AND visibility IN ('public', 'unlisted');
CREATE INDEX posts_public ON posts (published_at, id)
    WHERE published_at IS NOT NULL AND visibility IN ('public', 'unlisted');

CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY, -- hex SHA-256 of the cookie value
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    user_agent   TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;

CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    prefix       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
);

CREATE TABLE login_attempts (
    key          TEXT PRIMARY KEY, -- client address
    failures     INTEGER NOT NULL,
    last_failure INTEGER NOT NULL,
    locked_until INTEGER NOT NULL
) WITHOUT ROWID;
