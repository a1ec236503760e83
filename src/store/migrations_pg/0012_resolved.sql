-- 0012: where a redirecting cited link led (SQLite's 0012).
ALTER TABLE citation_checks ADD COLUMN IF NOT EXISTS resolved_url TEXT;
