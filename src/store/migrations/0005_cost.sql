-- 0005: what a request cost. Cache tokens (priced at their own rates), the fetches
-- among the vendor's server-tool requests, and the vendor's own reported cost in
-- millionths of a US dollar (NULL where the vendor stated none). Additive.
ALTER TABLE provider_calls ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN web_fetch_requests INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN reported_cost_micro_usd INTEGER;
