-- 0017: the process that runs an eval (as `runs.runner_*` for a run, 0004): its
-- pid, host name and (on Linux) a token naming the boot and the process's start.
-- `eval` records itself when it creates or resumes an eval, in one transaction
-- that first checks no live process holds it (`Store::claim_eval`), and clears
-- it when it ends; a reader shows an eval whose recorded process is alive as
-- running. NULL for an eval no process holds. Additive: it can take another
-- number if one is already taken.
ALTER TABLE evals ADD COLUMN runner_pid INTEGER;
ALTER TABLE evals ADD COLUMN runner_host TEXT;
ALTER TABLE evals ADD COLUMN runner_token TEXT;
