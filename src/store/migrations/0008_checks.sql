-- 0008: what checking a run's sources found (`io-harness check-sources`): one
-- verdict per citation — found, not_found, no_quote, unreachable, not_allowed —
-- with its detail and the time checked; a later check replaces it. Additive.
CREATE TABLE IF NOT EXISTS citation_checks (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    url TEXT NOT NULL,
    verdict TEXT NOT NULL,
    detail TEXT,
    checked_at TEXT NOT NULL,
    PRIMARY KEY (run_id, step, url)
);
