-- 0013: what each source was cited for. One row per step that has claims: the
-- parts of its answer (byte offsets into steps.text, and their text) the vendor
-- tied citations to, each with the URLs cited for it, as a JSON array of
-- {"start", "end", "text", "urls"} (one row, one write in the step's transaction).
-- `overlap` is check-sources' lexical overlap for a citation whose vendor gave no
-- quote (NULL otherwise, and for checks made before). Additive.
CREATE TABLE IF NOT EXISTS step_claims (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    claims_json TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
);
ALTER TABLE citation_checks ADD COLUMN overlap REAL;
-- Backfill: a Gemini citation's stored quote is the answer's own segment, so
-- where that text is in its step's answer, the claim is where it is (its first
-- occurrence). Other vendors' stored rows hold no span: not backfilled.
INSERT OR IGNORE INTO step_claims (run_id, step, claims_json)
SELECT run_id, step, json_group_array(json_object(
         'start', start_byte, 'end', start_byte + length(CAST(cited_text AS BLOB)),
         'text', cited_text, 'urls', json_array(url)))
FROM (
    SELECT c.run_id, c.step, c.url, c.cited_text,
           length(CAST(substr(s.text, 1, instr(s.text, c.cited_text) - 1) AS BLOB)) AS start_byte
    FROM citations c
    JOIN steps s ON s.run_id = c.run_id AND s.step = c.step
    JOIN runs r ON r.run_id = c.run_id
    WHERE r.provider = 'gemini' AND c.cited_text IS NOT NULL AND c.cited_text <> ''
      AND instr(s.text, c.cited_text) > 0
    ORDER BY c.id
)
GROUP BY run_id, step;
