-- 0010: what a trace of a stored run needs (SQLite's 0010).
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS endpoint TEXT;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS response_id TEXT;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS finish_reason TEXT;
