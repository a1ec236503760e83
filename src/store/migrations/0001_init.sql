-- io-harness store, schema 1. Additive only: later migrations add, never alter.
CREATE TABLE IF NOT EXISTS sessions (
    session_id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    label TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    goal TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    outcome TEXT,
    outcome_detail TEXT,
    web_json TEXT,
    parent_run_id INTEGER REFERENCES runs(run_id),
    session_id INTEGER REFERENCES sessions(session_id)
);
CREATE TABLE IF NOT EXISTS steps (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    text TEXT NOT NULL,
    observations_json TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
);
CREATE TABLE IF NOT EXISTS provider_calls (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    server_tool_requests INTEGER NOT NULL,
    has_usage INTEGER NOT NULL,
    stop_reason TEXT NOT NULL,
    latency_ms INTEGER NOT NULL,
    request_id TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
    run_id INTEGER PRIMARY KEY REFERENCES runs(run_id),
    format INTEGER NOT NULL,
    step INTEGER NOT NULL,
    body_json TEXT NOT NULL,
    saved_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS provider_calls_run ON provider_calls(run_id, step);
CREATE INDEX IF NOT EXISTS runs_started ON runs(started_at DESC);
