-- Schema 2 (0.22.0): provider-executed web access. Two additive tables.
CREATE TABLE IF NOT EXISTS citations (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    url TEXT NOT NULL,
    title TEXT,
    cited_text TEXT,
    UNIQUE (run_id, step, url)
);
CREATE TABLE IF NOT EXISTS server_tool_calls (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    provider TEXT NOT NULL,
    tool TEXT NOT NULL,
    error TEXT,
    input TEXT
);
CREATE INDEX IF NOT EXISTS citations_url ON citations(url);
CREATE INDEX IF NOT EXISTS server_tool_calls_run ON server_tool_calls(run_id, step);
