-- 0020: a team's store. Who ran a run (the operator's user name and host,
-- recorded once at its start, shown by `runs` and the console), and who runs it
-- now (`runner_user`, beside 0004's pid, host and token) with when that process
-- last said it still does (`runner_heartbeat`, every 20 s while it runs): a
-- process on another machine cannot be asked whether it is alive, so its claim
-- on a run lapses when its heartbeat is older than the lease's expiry; an
-- eval's runner (0017) the same (`evals.runner_user`, `runner_heartbeat`). And a
-- stable identity for each run, group and eval, made at its start (here for the
-- rows a store already holds), by which `store copy` knows what it has copied.
ALTER TABLE runs ADD COLUMN run_uid TEXT;
ALTER TABLE runs ADD COLUMN run_user TEXT;
ALTER TABLE runs ADD COLUMN run_host TEXT;
ALTER TABLE runs ADD COLUMN runner_user TEXT;
ALTER TABLE runs ADD COLUMN runner_heartbeat TEXT;
ALTER TABLE run_groups ADD COLUMN group_uid TEXT;
ALTER TABLE evals ADD COLUMN eval_uid TEXT;
ALTER TABLE evals ADD COLUMN runner_user TEXT;
ALTER TABLE evals ADD COLUMN runner_heartbeat TEXT;
UPDATE runs SET run_uid = lower(hex(randomblob(16))) WHERE run_uid IS NULL;
UPDATE runs SET run_host = runner_host WHERE run_host IS NULL;
UPDATE run_groups SET group_uid = lower(hex(randomblob(16))) WHERE group_uid IS NULL;
UPDATE evals SET eval_uid = lower(hex(randomblob(16))) WHERE eval_uid IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS runs_uid ON runs(run_uid);
CREATE UNIQUE INDEX IF NOT EXISTS run_groups_uid ON run_groups(group_uid);
CREATE UNIQUE INDEX IF NOT EXISTS evals_uid ON evals(eval_uid);
CREATE INDEX IF NOT EXISTS runs_user ON runs(run_user);
