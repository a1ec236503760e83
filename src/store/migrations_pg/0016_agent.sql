-- 0016: the roster agent a spawned child runs as (SQLite's 0016).
ALTER TABLE runs ADD COLUMN IF NOT EXISTS agent TEXT;
