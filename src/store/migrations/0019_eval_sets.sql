-- 0019: the field's question sets (issue 36). An eval keeps which set its file
-- is, the file's SHA-256 as read (its revision) and how many questions it holds,
-- the subset it runs (`--limit`, `--sample --seed`, as JSON), its judge
-- (`VENDOR` or `VENDOR:MODEL`, NULL without one) and whether it is private; a
-- question keeps whether any gold answer or all of them are wanted. A judging
-- is a group of its own (the run graded's judge runs; the last is the judging)
-- named by the answered run it grades. A private eval's groups are private, and
-- so is every run in one (and every run a private run spawns): their goals,
-- answers, queries and citations are not written to the full-text index.
-- Additive: older evals read as io-harness's own JSON Lines, public, unjudged;
-- it can take another number if one is already taken.
ALTER TABLE evals ADD COLUMN set_name TEXT NOT NULL DEFAULT 'jsonl';
ALTER TABLE evals ADD COLUMN revision TEXT;
ALTER TABLE evals ADD COLUMN rows INTEGER;
ALTER TABLE evals ADD COLUMN subset_json TEXT;
ALTER TABLE evals ADD COLUMN judge TEXT;
ALTER TABLE evals ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
ALTER TABLE eval_questions ADD COLUMN answer_kind TEXT NOT NULL DEFAULT 'any';
CREATE TABLE IF NOT EXISTS eval_judgings (
    eval_id INTEGER NOT NULL REFERENCES evals(eval_id),
    question_id TEXT NOT NULL,
    -- The answered run graded: one judging a run.
    graded_run_id INTEGER NOT NULL PRIMARY KEY REFERENCES runs(run_id),
    group_id INTEGER NOT NULL REFERENCES run_groups(group_id)
);
CREATE INDEX IF NOT EXISTS eval_judgings_question ON eval_judgings(eval_id, question_id);
ALTER TABLE run_groups ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
