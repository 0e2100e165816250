-- 012: the site's name and introduction are one setting each. The
-- site-wide settings site_title and site_description (shown only to other
-- servers, in NodeInfo) stood beside the primary persona's site_name and
-- introduction (shown on its pages, and now also to other servers). A
-- value that only the old place has moves to the new one, cut to the new
-- limit (50 and 1,000 characters); then the old keys go.

-- The primary persona gets a settings row (the column defaults are
-- DefaultPubConfig) when it has none and there is something to move.
INSERT INTO pub_configs (persona_id, updated_at)
SELECT id, CAST(strftime('%s', 'now') AS INTEGER) * 1000000 FROM personas
WHERE is_primary = 1
  AND EXISTS (SELECT 1 FROM settings WHERE key IN ('site_title', 'site_description') AND trim(value) <> '')
ON CONFLICT (persona_id) DO NOTHING;

UPDATE pub_configs
SET site_name = trim(substr(trim((SELECT value FROM settings WHERE key = 'site_title')), 1, 50))
WHERE persona_id = (SELECT id FROM personas WHERE is_primary = 1)
  AND site_name = ''
  AND trim(coalesce((SELECT value FROM settings WHERE key = 'site_title'), '')) <> '';

UPDATE pub_configs
SET introduction = trim(substr(trim((SELECT value FROM settings WHERE key = 'site_description')), 1, 1000))
WHERE persona_id = (SELECT id FROM personas WHERE is_primary = 1)
  AND introduction = ''
  AND trim(coalesce((SELECT value FROM settings WHERE key = 'site_description'), '')) <> '';

DELETE FROM settings WHERE key IN ('site_title', 'site_description');
