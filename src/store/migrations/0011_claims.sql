-- 0011: what each source was cited for. A claim is a part of a step's answer
-- (byte offsets into steps.text, and its text) that the vendor tied citations
-- to; claim_citations names the URLs cited for it. Written in the step's
-- transaction. `overlap` is check-sources' lexical overlap for a citation whose
-- vendor gave no quote (NULL otherwise, and for checks made before). Additive.
CREATE TABLE IF NOT EXISTS claims (
    claim_id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    step INTEGER NOT NULL,
    start_byte INTEGER NOT NULL,
    end_byte INTEGER NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (run_id, step, start_byte, end_byte)
);
CREATE TABLE IF NOT EXISTS claim_citations (
    claim_id INTEGER NOT NULL REFERENCES claims(claim_id),
    position INTEGER NOT NULL,
    url TEXT NOT NULL,
    PRIMARY KEY (claim_id, url)
);
ALTER TABLE citation_checks ADD COLUMN overlap REAL;
-- Backfill: a Gemini citation's stored quote is the answer's own segment, so
-- where that text is in its step's answer, the claim is where it is (its first
-- occurrence). Other vendors' stored rows hold no span: not backfilled.
INSERT OR IGNORE INTO claims (run_id, step, start_byte, end_byte, text)
SELECT c.run_id, c.step,
       length(CAST(substr(s.text, 1, instr(s.text, c.cited_text) - 1) AS BLOB)),
       length(CAST(substr(s.text, 1, instr(s.text, c.cited_text) - 1) AS BLOB))
         + length(CAST(c.cited_text AS BLOB)),
       c.cited_text
FROM citations c
JOIN steps s ON s.run_id = c.run_id AND s.step = c.step
JOIN runs r ON r.run_id = c.run_id
WHERE r.provider = 'gemini' AND c.cited_text IS NOT NULL AND c.cited_text <> ''
  AND instr(s.text, c.cited_text) > 0
ORDER BY c.id;
INSERT OR IGNORE INTO claim_citations (claim_id, position, url)
SELECT k.claim_id, c.id, c.url
FROM citations c
JOIN runs r ON r.run_id = c.run_id
JOIN claims k ON k.run_id = c.run_id AND k.step = c.step AND k.text = c.cited_text
WHERE r.provider = 'gemini';
