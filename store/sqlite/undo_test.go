package sqlite

// undo016 takes migration 016 back out, for the tests that roll the
// schema back to an older version and apply the migrations again: its
// triggers name columns and tables the older versions have not.
var undo016 = []string{"DROP TRIGGER IF EXISTS artifact_dirty_job", "DROP TRIGGER IF EXISTS artifact_dirty_touch_insert", "DROP TRIGGER IF EXISTS artifact_dirty_touch_update", "DROP INDEX IF EXISTS artifact_dirty_touched", "ALTER TABLE artifact_dirty DROP COLUMN touched", "DROP TRIGGER IF EXISTS posts_mark_insert", "DROP TRIGGER IF EXISTS posts_mark_update", "DROP TRIGGER IF EXISTS posts_mark_delete", "DROP TRIGGER IF EXISTS personas_mark_profile", "DROP TRIGGER IF EXISTS personas_mark_counts", "DROP TRIGGER IF EXISTS pub_configs_mark_insert", "DROP TRIGGER IF EXISTS pub_configs_mark_update", "DROP TRIGGER IF EXISTS pins_mark_insert", "DROP TRIGGER IF EXISTS pins_mark_delete", "DROP TRIGGER IF EXISTS settings_mark_insert", "DROP TRIGGER IF EXISTS settings_mark_update",
	"DELETE FROM schema_version WHERE version >= 16"}
