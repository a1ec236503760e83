-- 0019: the field's question sets (SQLite's 0019): an eval's set, the file's
-- SHA-256 (its revision), its row count, the subset it runs, its judge and
-- whether it is private; a question's answer kind; the judgings (a group of its
-- own for each answered run graded); private groups and runs, whose text is
-- not written to the full-text index.
ALTER TABLE evals ADD COLUMN IF NOT EXISTS set_name TEXT NOT NULL DEFAULT 'jsonl';
ALTER TABLE evals ADD COLUMN IF NOT EXISTS revision TEXT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS rows BIGINT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS subset_json TEXT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS judge TEXT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS private BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE eval_questions ADD COLUMN IF NOT EXISTS answer_kind TEXT NOT NULL DEFAULT 'any';
CREATE TABLE IF NOT EXISTS eval_judgings (
    eval_id BIGINT NOT NULL REFERENCES evals(eval_id),
    question_id TEXT NOT NULL,
    graded_run_id BIGINT NOT NULL PRIMARY KEY REFERENCES runs(run_id),
    group_id BIGINT NOT NULL REFERENCES run_groups(group_id)
);
CREATE INDEX IF NOT EXISTS eval_judgings_question ON eval_judgings(eval_id, question_id);
ALTER TABLE run_groups ADD COLUMN IF NOT EXISTS private BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS private BOOLEAN NOT NULL DEFAULT false;
