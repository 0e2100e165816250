-- 016: writes mark the public documents they change (issue 16, point 3).
--
-- The marks are scopes, not file names: "post/ID" (a post's own page and
-- note, and its neighbours'), "persona/ID" (a persona's lists, feeds,
-- outbox, actor), "tag/NAME", "gone/PERSONA/ID" and "slug/PERSONA/SLUG"
-- (addresses that must stop answering), "near/PERSONA/MICROS" (the posts
-- next to a place a post left), "social/ID" (the follower collections),
-- "site" (everything: a theme or a site-wide setting) and "runtime" (the
-- kill switches' pointer). The rebuild job (package prerender) expands a
-- scope into artifact keys with what the database says then, so a mark
-- is a few bytes whatever the site's size.
--
-- Triggers, not Go code in each service, mark them: every path that
-- writes these tables (the API, the inbox, the scheduler, a migration)
-- marks in its own transaction, and none can forget to.
--
-- The rebuild renders the marks most recently made first. A backlog —
-- a thousand imported posts, a theme change on a big site — is rendered
-- a batch at a time; the owner who posts meanwhile, or a scheduled post
-- coming out, must not wait behind it. "touched" is when a key was last
-- marked (since keeps the first time, for housekeeping's age): the
-- database's own clock in microseconds, so that every writer — these
-- triggers and DirtyKeys.Mark — agrees, and one more than the newest mark
-- when that is later (the clock has milliseconds; many marks share one),
-- so the order is the order of marking, within a statement too. The
-- owner's request renders the marks touched since it began (its own
-- writes) before it answers; the job takes the rest, newest first.
ALTER TABLE artifact_dirty ADD COLUMN touched INTEGER NOT NULL DEFAULT 0;

UPDATE artifact_dirty SET touched = since;

CREATE INDEX artifact_dirty_touched ON artifact_dirty (touched, key);

-- The UPDATE inside does not fire the other touch trigger: it sets
-- touched, not gen. max(touched) is the last entry of the index.
CREATE TRIGGER artifact_dirty_touch_insert AFTER INSERT ON artifact_dirty BEGIN
    UPDATE artifact_dirty SET touched = max(CAST(unixepoch('subsec') * 1000000 AS INTEGER),
        (SELECT max(touched) + 1 FROM artifact_dirty)) WHERE key = NEW.key;
END;

CREATE TRIGGER artifact_dirty_touch_update AFTER UPDATE OF gen ON artifact_dirty BEGIN
    UPDATE artifact_dirty SET touched = max(CAST(unixepoch('subsec') * 1000000 AS INTEGER),
        (SELECT max(touched) + 1 FROM artifact_dirty)) WHERE key = NEW.key;
END;

-- Each mark — a new key or a key marked again, both of which touch it —
-- also makes sure a rebuild job is runnable: one job per quarter second
-- of writes (its id is derived from that window, so a burst makes a
-- handful of jobs, not one per write), reset to pending when the
-- window's job already finished. The embedded queue lives in this file
-- for exactly this: the job commits with the write.
CREATE TRIGGER artifact_dirty_job AFTER UPDATE OF touched ON artifact_dirty BEGIN
    INSERT INTO queue_jobs (id, topic, payload, priority, state, run_at, attempt, max_attempts, headers, last_error, enqueued_at)
    SELECT printf('%08x-%04x-7000-8000-a27fac7b1d00', w >> 16, w & 65535),
           'artifacts.rebuild', '{}', 5, 'pending', now, 0, 0, '', '', now
    FROM (SELECT CAST(unixepoch('subsec') * 1000000 AS INTEGER) AS now,
                 CAST(unixepoch('subsec') * 1000 AS INTEGER) / 250 * 250 AS w)
    WHERE true
    ON CONFLICT (id) DO UPDATE SET state = 'pending', run_at = excluded.run_at, attempt = 0, last_error = '',
        started_at = NULL, finished_at = NULL, lease_until = NULL
        WHERE queue_jobs.state IN ('done', 'dead');
END;

-- A post counts when it is, or was, on the public side: published (now
-- or scheduled) and public or unlisted. Drafts and followers-only posts
-- are never artifacts, and writing them dirties nothing.

CREATE TRIGGER posts_mark_insert AFTER INSERT ON posts
WHEN NEW.published_at IS NOT NULL AND NEW.visibility IN ('public', 'unlisted') BEGIN
    INSERT INTO artifact_dirty (key, gen, since)
        SELECT k, 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER) FROM (
            SELECT 'post/' || NEW.id AS k
            UNION ALL SELECT 'persona/' || NEW.persona_id
            UNION ALL SELECT 'tag/' || value FROM json_each(NEW.tags))
        WHERE true
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;

CREATE TRIGGER posts_mark_update AFTER UPDATE ON posts
WHEN (NEW.published_at IS NOT NULL AND NEW.visibility IN ('public', 'unlisted'))
  OR (OLD.published_at IS NOT NULL AND OLD.visibility IN ('public', 'unlisted')) BEGIN
    INSERT INTO artifact_dirty (key, gen, since)
        SELECT k, 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER) FROM (
            SELECT 'post/' || NEW.id AS k
            UNION ALL SELECT 'persona/' || NEW.persona_id
            UNION SELECT 'tag/' || value FROM json_each(NEW.tags)
            UNION SELECT 'tag/' || value FROM json_each(OLD.tags)
            UNION SELECT 'slug/' || OLD.persona_id || '/' || OLD.slug WHERE OLD.slug != '' AND OLD.slug IS NOT NEW.slug
            UNION SELECT 'gone/' || OLD.persona_id || '/' || OLD.id
                WHERE NOT (NEW.published_at IS NOT NULL AND NEW.visibility IN ('public', 'unlisted'))
            UNION SELECT 'near/' || OLD.persona_id || '/' || OLD.published_at
                WHERE OLD.published_at IS NOT NULL AND OLD.published_at IS NOT NEW.published_at)
        WHERE true
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;

CREATE TRIGGER posts_mark_delete AFTER DELETE ON posts
WHEN OLD.published_at IS NOT NULL AND OLD.visibility IN ('public', 'unlisted') BEGIN
    INSERT INTO artifact_dirty (key, gen, since)
        SELECT k, 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER) FROM (
            SELECT 'gone/' || OLD.persona_id || '/' || OLD.id AS k
            UNION ALL SELECT 'persona/' || OLD.persona_id
            UNION ALL SELECT 'near/' || OLD.persona_id || '/' || OLD.published_at
            UNION SELECT 'slug/' || OLD.persona_id || '/' || OLD.slug WHERE OLD.slug != ''
            UNION SELECT 'tag/' || value FROM json_each(OLD.tags))
        WHERE true
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;

-- A persona's profile (its name, introduction, avatar) shows on every one
-- of its pages: all of them. Its counters show on its lists and actor
-- only, and change with every post and follower.
CREATE TRIGGER personas_mark_profile AFTER UPDATE OF username, display_name, summary, fields, avatar_path,
    header_path, locked, show_follows, discoverable, is_primary, public_key_pem ON personas BEGIN
    INSERT INTO artifact_dirty (key, gen, since) VALUES ('site', 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER))
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;

CREATE TRIGGER personas_mark_counts AFTER UPDATE OF posts_count, followers_count, following_count ON personas
WHEN OLD.posts_count IS NOT NEW.posts_count OR OLD.followers_count IS NOT NEW.followers_count
  OR OLD.following_count IS NOT NEW.following_count BEGIN
    INSERT INTO artifact_dirty (key, gen, since)
        SELECT k, 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER) FROM (
            SELECT 'persona/' || NEW.id AS k
            UNION SELECT 'social/' || NEW.id
                WHERE OLD.followers_count IS NOT NEW.followers_count OR OLD.following_count IS NOT NEW.following_count)
        WHERE true
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;

-- A persona's public-site settings (theme, site name, what the sidebar
-- shows) shape all its pages, and the primary persona's the home page.
CREATE TRIGGER pub_configs_mark_insert AFTER INSERT ON pub_configs BEGIN
    INSERT INTO artifact_dirty (key, gen, since) VALUES ('site', 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER))
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pub_configs_mark_update AFTER UPDATE ON pub_configs BEGIN
    INSERT INTO artifact_dirty (key, gen, since) VALUES ('site', 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER))
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;

-- Pinned posts are the featured collection and the top of the lists.
CREATE TRIGGER pins_mark_insert AFTER INSERT ON pins BEGIN
    INSERT INTO artifact_dirty (key, gen, since) VALUES ('persona/' || NEW.persona_id, 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER))
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pins_mark_delete AFTER DELETE ON pins BEGIN
    INSERT INTO artifact_dirty (key, gen, since) VALUES ('persona/' || OLD.persona_id, 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER))
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;

-- Site-wide settings the public documents show (robots.txt, the
-- language, whether ActivityPub JSON needs a signature, quoting policy)
-- rebuild everything; the kill switches and lockdown only the runtime
-- pointer. Secrets and the owner's own state dirty nothing.
CREATE TRIGGER settings_mark_insert AFTER INSERT ON settings
WHEN NEW.key IN ('domain', 'site_language', 'robots_noindex', 'robots_noai', 'allow_quotes', 'authorized_fetch',
                 'kill_switches', 'lockdown') BEGIN
    INSERT INTO artifact_dirty (key, gen, since)
        VALUES (CASE WHEN NEW.key IN ('kill_switches', 'lockdown') THEN 'runtime' ELSE 'site' END, 1,
                CAST(unixepoch('subsec') * 1000000 AS INTEGER))
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER settings_mark_update AFTER UPDATE ON settings
WHEN OLD.value IS NOT NEW.value AND NEW.key IN ('domain', 'site_language', 'robots_noindex', 'robots_noai',
                 'allow_quotes', 'authorized_fetch', 'kill_switches', 'lockdown') BEGIN
    INSERT INTO artifact_dirty (key, gen, since)
        VALUES (CASE WHEN NEW.key IN ('kill_switches', 'lockdown') THEN 'runtime' ELSE 'site' END, 1,
                CAST(unixepoch('subsec') * 1000000 AS INTEGER))
        ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
