-- 0007: a full-text index over what runs drew on — each run's goal, the model's
-- text per step, the server-side tools' queries and fetched URLs, and citations
-- (url, title, cited text) — written from now on in the same transaction as the
-- rows it indexes, and built here for the rows an existing store already holds.
-- FTS5 (compiled into the bundled SQLite). Additive.
CREATE VIRTUAL TABLE IF NOT EXISTS search_index USING fts5(
    kind UNINDEXED, run_id UNINDEXED, step UNINDEXED, url UNINDEXED, body,
    tokenize = 'unicode61 remove_diacritics 2'
);
-- Backfilled in run and step order, so the index's row order is the order the
-- rows were recorded in (newest last), as it is for rows written from now on.
INSERT INTO search_index (kind, run_id, step, url, body)
    SELECT kind, run_id, step, url, body FROM (
        SELECT 'goal' AS kind, run_id, 0 AS step, NULL AS url, goal AS body, 0 AS k FROM runs
        UNION ALL
        SELECT 'text', run_id, step, NULL, text, 1 FROM steps WHERE text <> ''
        UNION ALL
        SELECT 'query', run_id, step, NULL, input, 2 FROM server_tool_calls WHERE input IS NOT NULL
        UNION ALL
        SELECT 'citation', run_id, step, url,
               url || ' ' || coalesce(title, '') || ' ' || coalesce(cited_text, ''), 3
        FROM citations
    ) ORDER BY run_id, step, k;
