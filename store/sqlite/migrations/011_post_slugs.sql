-- 011: readable addresses and pages. An article's slug is its address
-- under its persona (/@name/<slug>), unique per persona; '' for notes and
-- for articles that have none yet (they keep /@name/<id>). A page (About,
-- Contact) is an article outside every list, feed and federation, shown in
-- the site menu instead.
ALTER TABLE posts ADD COLUMN slug TEXT NOT NULL DEFAULT '';
ALTER TABLE posts ADD COLUMN page INTEGER NOT NULL DEFAULT 0;

CREATE UNIQUE INDEX posts_slug ON posts (persona_id, slug) WHERE slug != '';

-- The site menu: a persona's pages in publication order.
CREATE INDEX posts_pages ON posts (persona_id, published_at, id) WHERE page = 1;

-- The slugs an article had before it was renamed: each answers a 301 to
-- its current address. A slug an article takes as its own is no longer
-- anyone's old slug (the service deletes the row in the same transaction).
CREATE TABLE post_old_slugs (
    persona_id TEXT NOT NULL,
    slug       TEXT NOT NULL,
    post_id    TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (persona_id, slug)
) WITHOUT ROWID;
CREATE INDEX post_old_slugs_post ON post_old_slugs (post_id, created_at);
