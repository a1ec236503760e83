-- 0011: the search suggestions a vendor asks to be shown (SQLite's 0011).
ALTER TABLE steps ADD COLUMN IF NOT EXISTS search_suggestions TEXT;
