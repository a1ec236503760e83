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
-- A run's children by parent: the ledger walks them for every run the Sources
-- screen lists, and without it each walk read every run (6 s for 500 runs of a
-- 100,000-run store; measured in benches/sources.rs).
CREATE INDEX IF NOT EXISTS runs_parent ON runs(parent_run_id);
