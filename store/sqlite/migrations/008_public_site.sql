-- 008: the public blog. Each persona's site settings (seed:
-- user_pub_configs), an index of post tags for tag pages and feeds, and a
-- full-text index for site search. The two indexes are kept by triggers, so
-- they change in the same transaction as the post, whoever writes it.

CREATE TABLE pub_configs (
    persona_id          TEXT PRIMARY KEY REFERENCES personas (id) ON DELETE CASCADE,
    site_name           TEXT NOT NULL DEFAULT '',
    subtitle            TEXT NOT NULL DEFAULT '',
    author              TEXT NOT NULL DEFAULT '',
    introduction        TEXT NOT NULL DEFAULT '',
    design_theme        TEXT NOT NULL DEFAULT '',
    show_service_header INTEGER NOT NULL DEFAULT 1,
    show_site_name      INTEGER NOT NULL DEFAULT 1,
    show_pagination     INTEGER NOT NULL DEFAULT 1,
    show_side_profile   INTEGER NOT NULL DEFAULT 1,
    show_side_recent    INTEGER NOT NULL DEFAULT 5,
    show_side_popular   INTEGER NOT NULL DEFAULT 5,
    extensions          TEXT NOT NULL DEFAULT '{}' CHECK (length(extensions) <= 4096),
    updated_at          INTEGER NOT NULL
) WITHOUT ROWID;

-- One row per (tag, post), the tag lower-cased (ASCII, as SQLite's lower()),
-- with the post's published_at copied as pub_at: a tag page walks
-- post_tags_page in publication order from its cursor and reads only the
-- posts it shows, instead of collecting every post of the tag to sort them.
-- (The copy has its own name so the publication predicate, which names
-- posts' columns unqualified, stays unambiguous in the join.)
CREATE TABLE post_tags (
    tag     TEXT NOT NULL,
    post_id TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    pub_at  INTEGER, -- posts.published_at
    PRIMARY KEY (tag, post_id)
) WITHOUT ROWID;
CREATE INDEX post_tags_post ON post_tags (post_id);
CREATE INDEX post_tags_page ON post_tags (tag, pub_at, post_id);

CREATE TRIGGER post_tags_insert AFTER INSERT ON posts BEGIN
    INSERT OR IGNORE INTO post_tags (tag, post_id, pub_at)
        SELECT lower(value), NEW.id, NEW.published_at FROM json_each(NEW.tags);
END;
CREATE TRIGGER post_tags_update AFTER UPDATE OF tags, published_at ON posts BEGIN
    DELETE FROM post_tags WHERE post_id = OLD.id;
    INSERT OR IGNORE INTO post_tags (tag, post_id, pub_at)
        SELECT lower(value), NEW.id, NEW.published_at FROM json_each(NEW.tags);
END;
CREATE TRIGGER post_tags_delete AFTER DELETE ON posts BEGIN
    DELETE FROM post_tags WHERE post_id = OLD.id;
END;
INSERT OR IGNORE INTO post_tags (tag, post_id, pub_at)
    SELECT lower(j.value), p.id, p.published_at FROM posts p, json_each(p.tags) j;

-- Site search: FTS5 over the title and the source, with the trigram
-- tokenizer, which finds Japanese words without spaces between them. The
-- FTS rowid comes from post_search_ids, whose INTEGER PRIMARY KEY survives
-- VACUUM (the implicit rowid of posts would not, and an index keyed by it
-- would silently point at the wrong posts afterwards).
CREATE TABLE post_search_ids (
    rowid   INTEGER PRIMARY KEY,
    post_id TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE posts_fts USING fts5(title, source, tokenize = 'trigram');

CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN
    INSERT INTO post_search_ids (post_id) VALUES (NEW.id);
    INSERT INTO posts_fts (rowid, title, source)
        VALUES ((SELECT rowid FROM post_search_ids WHERE post_id = NEW.id), NEW.title, NEW.source);
END;
CREATE TRIGGER posts_fts_update AFTER UPDATE OF title, source ON posts BEGIN
    DELETE FROM posts_fts WHERE rowid = (SELECT rowid FROM post_search_ids WHERE post_id = OLD.id);
    INSERT INTO posts_fts (rowid, title, source)
        VALUES ((SELECT rowid FROM post_search_ids WHERE post_id = NEW.id), NEW.title, NEW.source);
END;
CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN
    DELETE FROM posts_fts WHERE rowid = (SELECT rowid FROM post_search_ids WHERE post_id = OLD.id);
    DELETE FROM post_search_ids WHERE post_id = OLD.id;
END;
INSERT INTO post_search_ids (post_id) SELECT id FROM posts ORDER BY id;
INSERT INTO posts_fts (rowid, title, source)
    SELECT s.rowid, p.title, p.source FROM posts p JOIN post_search_ids s ON s.post_id = p.id;
