-- 0015: a run's plan (SQLite's 0015).
ALTER TABLE runs ADD COLUMN IF NOT EXISTS plan_json JSONB;
