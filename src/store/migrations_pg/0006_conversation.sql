-- 0006: a real conversation (SQLite's 0006). An exchange is kept as `json`,
-- not `jsonb`: it holds vendor blocks sent back as they came, key order and all.
ALTER TABLE provider_calls ADD COLUMN IF NOT EXISTS cache_write_1h_tokens BIGINT NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS exchanges (
    run_id BIGINT NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    wire TEXT NOT NULL,
    exchange_json JSON NOT NULL,
    PRIMARY KEY (run_id, step)
);
