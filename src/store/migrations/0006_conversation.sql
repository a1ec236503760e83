-- 0006: a real conversation. The 1-hour cache writes among a request's cache
-- writes (priced at their own rate), and each step's exchange for a transcript:
-- the answer's own blocks as the vendor sent them and what went back (JSON of an
-- `Exchange`), written in the step's one transaction. Additive.
ALTER TABLE provider_calls ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS exchanges (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    wire TEXT NOT NULL,
    exchange_json TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
);
