-- 0013: what each source was cited for (SQLite's 0013), with the same backfill
-- of a Gemini citation's stored quote found in its step's answer.
CREATE TABLE IF NOT EXISTS step_claims (
    run_id BIGINT NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    claims_json JSONB NOT NULL,
    PRIMARY KEY (run_id, step)
);
ALTER TABLE citation_checks ADD COLUMN IF NOT EXISTS overlap DOUBLE PRECISION;
INSERT INTO step_claims (run_id, step, claims_json)
SELECT run_id, step, jsonb_agg(jsonb_build_object(
         'start', start_byte, 'end', start_byte + octet_length(cited_text),
         'text', cited_text, 'urls', jsonb_build_array(url)) ORDER BY id)
FROM (
    SELECT c.id, c.run_id, c.step, c.url, c.cited_text,
           octet_length(substr(s.text, 1, strpos(s.text, c.cited_text) - 1)) AS start_byte
    FROM citations c
    JOIN steps s ON s.run_id = c.run_id AND s.step = c.step
    JOIN runs r ON r.run_id = c.run_id
    WHERE r.provider = 'gemini' AND c.cited_text IS NOT NULL AND c.cited_text <> ''
      AND strpos(s.text, c.cited_text) > 0
) AS found
GROUP BY run_id, step
ON CONFLICT DO NOTHING;
