-- 0008: what checking a run's sources found (SQLite's 0008).
CREATE TABLE IF NOT EXISTS citation_checks (
    run_id BIGINT NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    url TEXT NOT NULL,
    verdict TEXT NOT NULL,
    detail TEXT,
    checked_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (run_id, step, url)
);
CREATE INDEX IF NOT EXISTS runs_parent ON runs(parent_run_id);
