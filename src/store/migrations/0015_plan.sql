-- 0015: a run's plan — what the launch resolved for it (endpoint, wire, model,
-- output cap, limits, stub or not, tools offered; `core::plan::RunPlan` as
-- JSON, never a secret), recorded when the run starts. A resume, the preview
-- of its next request and the console start from it instead of today's io.toml.
-- NULL for runs recorded before 0015: those resume on their own vendor and
-- model (`runs.provider`, `runs.model`) as io.toml sets that vendor up.
ALTER TABLE runs ADD COLUMN plan_json TEXT;
