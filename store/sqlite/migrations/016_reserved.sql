-- 016: a placeholder on branch h-shields so the versions stay contiguous
-- (TestMigrationNames): version 016 is the lead's. Delete this file when
-- the lead's own 016 is merged.
SELECT 1;
