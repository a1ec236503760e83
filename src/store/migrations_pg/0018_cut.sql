-- 0018: what an answer said that its step did not record, past the per-step
-- caps (SQLite's 0018): counted on the step's accounting row.
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS server_tool_calls_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS searches_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS fetches_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS citations_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS claim_links_cut INTEGER NOT NULL DEFAULT 0;
