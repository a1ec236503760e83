-- 0004: crash safety and liveness. Which attempt at its step a provider call was
-- (2+ when a resumed run re-sent a request the killed process never recorded),
-- how many requests a checkpoint's next step has sent, and which process runs a
-- run (so a run whose process is gone reads `interrupted`, not running).
ALTER TABLE provider_calls ADD COLUMN step_attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE checkpoints ADD COLUMN sent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN runner_pid INTEGER;
ALTER TABLE runs ADD COLUMN runner_host TEXT;
ALTER TABLE runs ADD COLUMN runner_token TEXT;
