-- 006: an article the owner chose to federate as a Note (a short titled
-- post that Mastodon would otherwise show as only its title and a link).
ALTER TABLE posts ADD COLUMN as_note INTEGER NOT NULL DEFAULT 0;
