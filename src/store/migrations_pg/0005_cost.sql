-- 0005: what a request cost (SQLite's 0005).
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS cache_write_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS cache_read_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS web_fetch_requests BIGINT NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS reported_cost_micro_usd BIGINT;
