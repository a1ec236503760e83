-- 0016: what an answer said that its step did not record, past the per-step caps
-- every wire shares (core::capability: 64 server-tool calls, 256 citations or
-- 8 MiB of their text, 256 claim links): counted on the step's accounting row
-- instead of written row by row. The searches and fetches among the calls left
-- out ran as the vendor says, and their fees are counted (the ledger adds them).
-- 0 for every row recorded before.
ALTER TABLE provider_calls ADD COLUMN server_tool_calls_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN searches_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN fetches_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN citations_cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_calls ADD COLUMN claim_links_cut INTEGER NOT NULL DEFAULT 0;
