-- 005: the remote accounts a local post mentions, resolved by WebFinger
-- when it was written (JSON [{uri, name, inbox}]): its addressing and
-- its deliveries beyond the followers.
ALTER TABLE posts ADD COLUMN mentions TEXT NOT NULL DEFAULT '[]';
