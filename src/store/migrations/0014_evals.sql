-- 0014: evals — a question set run across vendors (`io-harness eval`), each
-- question a run group (0009), scored from the store afterwards. An eval keeps
-- what it was asked (the file, the vendors, --jobs, --max-usd) and each question
-- as read, so `eval --resume` needs neither the file nor the flags again; a
-- question names its group once it has run. Additive and self-contained: only
-- its own two tables, so it can take another number if one is already taken.
CREATE TABLE IF NOT EXISTS evals (
    eval_id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    -- The question file as given, or `demo` for the bundled set.
    file TEXT NOT NULL,
    -- The vendors, comma-separated, in the order asked.
    vendors TEXT NOT NULL,
    jobs INTEGER NOT NULL,
    -- The eval's dollar cap, in millionths, when one was set.
    max_usd_micro INTEGER,
    -- 1 when it ran on the built-in stub vendor (`eval --demo`).
    demo INTEGER NOT NULL DEFAULT 0,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS eval_questions (
    eval_id INTEGER NOT NULL REFERENCES evals(eval_id),
    position INTEGER NOT NULL,
    question_id TEXT NOT NULL,
    question TEXT NOT NULL,
    -- JSON arrays of strings.
    answers TEXT NOT NULL,
    urls TEXT NOT NULL,
    -- `pending`, `done` (its group ran), or `skipped` (the cap was crossed first).
    status TEXT NOT NULL DEFAULT 'pending',
    group_id INTEGER REFERENCES run_groups(group_id),
    PRIMARY KEY (eval_id, question_id)
);
