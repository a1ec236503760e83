-- 0009: run groups — one goal run on several vendors at once (`run --providers`)
-- or a stored run replayed on another (`run --replay`), compared side by side
-- (`compare`). A group keeps what was asked of every vendor and, per vendor that
-- could not carry the declaration, the refusal; each run names its group.
-- Additive: older runs have no group.
CREATE TABLE IF NOT EXISTS run_groups (
    group_id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    goal TEXT NOT NULL,
    -- The operator's workspace the runs' copies were made from.
    workspace TEXT NOT NULL,
    -- A cap on the group's total, in millionths of a dollar, when one was set.
    max_usd_micro INTEGER
);
CREATE TABLE IF NOT EXISTS group_refusals (
    group_id INTEGER NOT NULL REFERENCES run_groups(group_id),
    vendor TEXT NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (group_id, vendor)
);
ALTER TABLE runs ADD COLUMN group_id INTEGER REFERENCES run_groups(group_id);
CREATE INDEX IF NOT EXISTS runs_group ON runs(group_id);
