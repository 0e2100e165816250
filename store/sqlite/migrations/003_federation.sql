-- 003: federation: remote actors and posts, follows both ways, likes and
-- boosts, blocks, notifications, deliveries, pins, tombstones, the home
-- timeline. Local posts learn what they reply to and quote.

ALTER TABLE posts ADD COLUMN in_reply_to TEXT NOT NULL DEFAULT '';
ALTER TABLE posts ADD COLUMN quote_of TEXT NOT NULL DEFAULT '';
-- Pruning asks "does a local post reply to / quote this?".
CREATE INDEX posts_in_reply_to ON posts (in_reply_to) WHERE in_reply_to != '';
CREATE INDEX posts_quote_of ON posts (quote_of) WHERE quote_of != '';

CREATE TABLE remote_actors (
    id             TEXT PRIMARY KEY,
    uri            TEXT NOT NULL UNIQUE,
    username       TEXT NOT NULL DEFAULT '',
    domain         TEXT NOT NULL,
    display_name   TEXT NOT NULL DEFAULT '',
    summary        TEXT NOT NULL DEFAULT '',
    url            TEXT NOT NULL DEFAULT '',
    inbox          TEXT NOT NULL,
    shared_inbox   TEXT NOT NULL DEFAULT '',
    outbox         TEXT NOT NULL DEFAULT '',
    followers      TEXT NOT NULL DEFAULT '',
    following      TEXT NOT NULL DEFAULT '',
    featured       TEXT NOT NULL DEFAULT '',
    avatar_url     TEXT NOT NULL DEFAULT '',
    header_url     TEXT NOT NULL DEFAULT '',
    type           TEXT NOT NULL DEFAULT 'Person',
    locked         INTEGER NOT NULL DEFAULT 0,
    discoverable   INTEGER NOT NULL DEFAULT 0,
    fields         TEXT NOT NULL DEFAULT '[]',
    key_id         TEXT NOT NULL DEFAULT '',
    public_key_pem TEXT NOT NULL DEFAULT '',
    ed25519_key_id TEXT NOT NULL DEFAULT '',
    ed25519_key    TEXT NOT NULL DEFAULT '',
    moved_to       TEXT NOT NULL DEFAULT '',
    fetched_at     INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX remote_actors_key ON remote_actors (key_id) WHERE key_id != '';
CREATE INDEX remote_actors_ed25519_key ON remote_actors (ed25519_key_id) WHERE ed25519_key_id != '';
CREATE INDEX remote_actors_domain ON remote_actors (domain);
CREATE INDEX remote_actors_fetched ON remote_actors (fetched_at);

CREATE TABLE follows (
    id           TEXT PRIMARY KEY,
    persona_id   TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    actor_id     TEXT NOT NULL REFERENCES remote_actors (id) ON DELETE CASCADE,
    activity_uri TEXT NOT NULL UNIQUE,
    state        TEXT NOT NULL CHECK (state IN ('pending', 'accepted')),
    created_at   INTEGER NOT NULL,
    accepted_at  INTEGER,
    UNIQUE (persona_id, actor_id)
);
CREATE INDEX follows_actor ON follows (actor_id, state);

CREATE TABLE followers (
    id             TEXT PRIMARY KEY,
    persona_id     TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    actor_id       TEXT NOT NULL REFERENCES remote_actors (id) ON DELETE CASCADE,
    activity_uri   TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('pending', 'accepted')),
    -- The actor's shared inbox, else its inbox, copied here so the
    -- fan-out pages distinct inboxes from this one index.
    delivery_inbox TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    UNIQUE (persona_id, actor_id)
);
CREATE INDEX followers_inbox ON followers (persona_id, state, delivery_inbox);
CREATE INDEX followers_actor ON followers (actor_id);
CREATE INDEX followers_activity ON followers (activity_uri);

-- The counters follow the accepted rows, including rows removed by a
-- cascade from the remote actor's deletion.
CREATE TRIGGER followers_count_insert AFTER INSERT ON followers WHEN NEW.state = 'accepted' BEGIN
    UPDATE personas SET followers_count = followers_count + 1 WHERE id = NEW.persona_id;
END;
CREATE TRIGGER followers_count_delete AFTER DELETE ON followers WHEN OLD.state = 'accepted' BEGIN
    UPDATE personas SET followers_count = max(0, followers_count - 1) WHERE id = OLD.persona_id;
END;
CREATE TRIGGER followers_count_update AFTER UPDATE OF state ON followers WHEN OLD.state != NEW.state BEGIN
    UPDATE personas SET followers_count = max(0, followers_count + CASE NEW.state WHEN 'accepted' THEN 1 ELSE -1 END)
        WHERE id = NEW.persona_id;
END;
CREATE TRIGGER follows_count_insert AFTER INSERT ON follows WHEN NEW.state = 'accepted' BEGIN
    UPDATE personas SET following_count = following_count + 1 WHERE id = NEW.persona_id;
END;
CREATE TRIGGER follows_count_delete AFTER DELETE ON follows WHEN OLD.state = 'accepted' BEGIN
    UPDATE personas SET following_count = max(0, following_count - 1) WHERE id = OLD.persona_id;
END;
CREATE TRIGGER follows_count_update AFTER UPDATE OF state ON follows WHEN OLD.state != NEW.state BEGIN
    UPDATE personas SET following_count = max(0, following_count + CASE NEW.state WHEN 'accepted' THEN 1 ELSE -1 END)
        WHERE id = NEW.persona_id;
END;
-- A follower's delivery inbox follows the actor's inboxes.
CREATE TRIGGER followers_delivery_inbox AFTER UPDATE OF inbox, shared_inbox ON remote_actors
    WHEN OLD.inbox != NEW.inbox OR OLD.shared_inbox != NEW.shared_inbox BEGIN
    UPDATE followers SET delivery_inbox = CASE WHEN NEW.shared_inbox != '' THEN NEW.shared_inbox ELSE NEW.inbox END
        WHERE actor_id = NEW.id;
END;

CREATE TABLE remote_posts (
    id           TEXT PRIMARY KEY,
    uri          TEXT NOT NULL UNIQUE,
    actor_id     TEXT NOT NULL REFERENCES remote_actors (id) ON DELETE CASCADE,
    type         TEXT NOT NULL DEFAULT 'Note',
    url          TEXT NOT NULL DEFAULT '',
    name         TEXT NOT NULL DEFAULT '',
    content      TEXT NOT NULL DEFAULT '',
    summary      TEXT NOT NULL DEFAULT '',
    sensitive    INTEGER NOT NULL DEFAULT 0,
    visibility   TEXT NOT NULL CHECK (visibility IN ('public', 'unlisted', 'followers', 'direct')),
    in_reply_to  TEXT NOT NULL DEFAULT '',
    quote_of     TEXT NOT NULL DEFAULT '',
    language     TEXT NOT NULL DEFAULT '',
    attachments  TEXT NOT NULL DEFAULT '[]',
    tags         TEXT NOT NULL DEFAULT '[]',
    mentions     TEXT NOT NULL DEFAULT '[]',
    published_at INTEGER NOT NULL,
    updated_at   INTEGER,
    received_at  INTEGER NOT NULL
);
CREATE INDEX remote_posts_actor ON remote_posts (actor_id);
CREATE INDEX remote_posts_received ON remote_posts (received_at);
CREATE INDEX remote_posts_in_reply_to ON remote_posts (in_reply_to) WHERE in_reply_to != '';

-- Inbound rows set actor_id and post_id; outbound rows persona_id and
-- object_uri (remote_post_id while the post is cached).
CREATE TABLE interactions (
    id             TEXT PRIMARY KEY,
    kind           TEXT NOT NULL CHECK (kind IN ('like', 'announce')),
    actor_id       TEXT REFERENCES remote_actors (id) ON DELETE CASCADE,
    post_id        TEXT REFERENCES posts (id) ON DELETE CASCADE,
    persona_id     TEXT REFERENCES personas (id) ON DELETE CASCADE,
    object_uri     TEXT NOT NULL DEFAULT '',
    remote_post_id TEXT REFERENCES remote_posts (id) ON DELETE SET NULL,
    activity_uri   TEXT NOT NULL UNIQUE,
    content        TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    CHECK ((actor_id IS NOT NULL AND post_id IS NOT NULL AND persona_id IS NULL)
        OR (persona_id IS NOT NULL AND object_uri != '' AND actor_id IS NULL))
);
CREATE UNIQUE INDEX interactions_inbound ON interactions (post_id, kind, actor_id) WHERE actor_id IS NOT NULL;
CREATE UNIQUE INDEX interactions_outbound ON interactions (persona_id, kind, object_uri) WHERE persona_id IS NOT NULL;
CREATE INDEX interactions_actor ON interactions (actor_id) WHERE actor_id IS NOT NULL;
CREATE INDEX interactions_remote_post ON interactions (remote_post_id) WHERE remote_post_id IS NOT NULL;
CREATE INDEX interactions_object ON interactions (object_uri) WHERE persona_id IS NOT NULL;

CREATE TABLE blocks (
    persona_id   TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    actor_id     TEXT NOT NULL REFERENCES remote_actors (id) ON DELETE CASCADE,
    activity_uri TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (persona_id, actor_id)
) WITHOUT ROWID;
CREATE INDEX blocks_actor ON blocks (actor_id);

CREATE TABLE blocked_by (
    persona_id   TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    actor_id     TEXT NOT NULL REFERENCES remote_actors (id) ON DELETE CASCADE,
    activity_uri TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (persona_id, actor_id)
) WITHOUT ROWID;
CREATE INDEX blocked_by_actor ON blocked_by (actor_id);

CREATE TABLE domain_blocks (
    domain     TEXT PRIMARY KEY,
    reason     TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE notifications (
    id             TEXT PRIMARY KEY,
    persona_id     TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    kind           TEXT NOT NULL CHECK (kind IN ('follow', 'follow_request', 'mention', 'reply', 'favourite', 'reblog', 'move', 'quote')),
    actor_id       TEXT REFERENCES remote_actors (id) ON DELETE CASCADE,
    post_id        TEXT REFERENCES posts (id) ON DELETE CASCADE,
    remote_post_id TEXT REFERENCES remote_posts (id) ON DELETE CASCADE,
    read           INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL
);
CREATE INDEX notifications_persona ON notifications (persona_id, id);
CREATE INDEX notifications_unread ON notifications (persona_id) WHERE read = 0;
CREATE INDEX notifications_actor ON notifications (actor_id, created_at);
CREATE INDEX notifications_remote_post ON notifications (remote_post_id, kind, created_at) WHERE remote_post_id IS NOT NULL;

CREATE TABLE deliveries (
    key        TEXT NOT NULL,
    inbox      TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'skipped')),
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (key, inbox)
) WITHOUT ROWID;

CREATE TABLE pins (
    persona_id TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    post_id    TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    pinned_at  INTEGER NOT NULL,
    PRIMARY KEY (persona_id, post_id)
) WITHOUT ROWID;

CREATE TABLE tombstones (
    uri        TEXT PRIMARY KEY,
    persona_id TEXT NOT NULL,
    post_id    TEXT NOT NULL,
    type       TEXT NOT NULL,
    deleted_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX tombstones_post ON tombstones (post_id);

CREATE TABLE timeline (
    id             TEXT PRIMARY KEY,
    persona_id     TEXT NOT NULL REFERENCES personas (id) ON DELETE CASCADE,
    remote_post_id TEXT NOT NULL REFERENCES remote_posts (id) ON DELETE CASCADE,
    boosted_by     TEXT REFERENCES remote_actors (id) ON DELETE CASCADE,
    announce_uri   TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL
);
CREATE INDEX timeline_persona ON timeline (persona_id, created_at, id);
CREATE UNIQUE INDEX timeline_direct ON timeline (persona_id, remote_post_id) WHERE announce_uri = '';
CREATE UNIQUE INDEX timeline_announce ON timeline (persona_id, announce_uri) WHERE announce_uri != '';
CREATE INDEX timeline_remote_post ON timeline (remote_post_id);
CREATE INDEX timeline_boosted_by ON timeline (boosted_by) WHERE boosted_by IS NOT NULL;
-- The home timeline's own-post half: published posts by publication.
CREATE INDEX posts_persona_published ON posts (persona_id, published_at, id) WHERE published_at IS NOT NULL;
