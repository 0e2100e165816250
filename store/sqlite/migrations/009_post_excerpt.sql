-- 009: what the public blog derives from a post's rendered HTML, kept when
-- the post is written instead of derived on every page that lists it: the
-- first characters of its plain text (descriptions, list titles) and an
-- article's first image. Rows written before have '' and are derived when
-- read.
ALTER TABLE posts ADD COLUMN excerpt TEXT NOT NULL DEFAULT '';
ALTER TABLE posts ADD COLUMN image TEXT NOT NULL DEFAULT '';
