-- 0020: a team's store (SQLite's 0020): who ran a run and who runs it now,
-- the runner's heartbeat (the server's clock: CURRENT_TIMESTAMP, so machines
-- whose clocks differ agree on a lease), and a stable identity for each run,
-- group and eval, for `store copy`.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS run_uid TEXT;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS run_user TEXT;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS run_host TEXT;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS runner_user TEXT;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS runner_heartbeat TIMESTAMPTZ;
ALTER TABLE run_groups ADD COLUMN IF NOT EXISTS group_uid TEXT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS eval_uid TEXT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS runner_user TEXT;
ALTER TABLE evals ADD COLUMN IF NOT EXISTS runner_heartbeat TIMESTAMPTZ;
UPDATE runs SET run_uid = replace(gen_random_uuid()::text, '-', '') WHERE run_uid IS NULL;
UPDATE runs SET run_host = runner_host WHERE run_host IS NULL;
UPDATE run_groups SET group_uid = replace(gen_random_uuid()::text, '-', '') WHERE group_uid IS NULL;
UPDATE evals SET eval_uid = replace(gen_random_uuid()::text, '-', '') WHERE eval_uid IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS runs_uid ON runs(run_uid);
CREATE UNIQUE INDEX IF NOT EXISTS run_groups_uid ON run_groups(group_uid);
CREATE UNIQUE INDEX IF NOT EXISTS evals_uid ON evals(eval_uid);
CREATE INDEX IF NOT EXISTS runs_user ON runs(run_user);
