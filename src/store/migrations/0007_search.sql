-- 0007: a full-text index over what runs drew on — each run's goal, the model's
-- text per step, the server-side tools' queries and fetched URLs, and citations
-- (url, title, cited text) — written from now on in the same transaction as the
-- rows it indexes, and built here for the rows an existing store already holds.
-- FTS5 (compiled into the bundled SQLite). Additive.
CREATE VIRTUAL TABLE IF NOT EXISTS search_index USING fts5(
    kind UNINDEXED, run_id UNINDEXED, step UNINDEXED, url UNINDEXED, body,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO search_index (kind, run_id, step, url, body)
    SELECT 'goal', run_id, 0, NULL, goal FROM runs;
INSERT INTO search_index (kind, run_id, step, url, body)
    SELECT 'text', run_id, step, NULL, text FROM steps WHERE text <> '';
INSERT INTO search_index (kind, run_id, step, url, body)
    SELECT 'query', run_id, step, NULL, input FROM server_tool_calls WHERE input IS NOT NULL;
INSERT INTO search_index (kind, run_id, step, url, body)
    SELECT 'citation', run_id, step, url,
           url || ' ' || coalesce(title, '') || ' ' || coalesce(cited_text, '')
    FROM citations;
