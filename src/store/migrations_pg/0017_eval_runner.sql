-- 0017: the process that runs an eval (SQLite's 0017): pid, host, token.
ALTER TABLE evals ADD COLUMN IF NOT EXISTS runner_pid BIGINT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS runner_host TEXT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS runner_token TEXT;
