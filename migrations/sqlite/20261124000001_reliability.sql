-- Reliability: when a workload finished (so a collected Job never brings it back), how long its
-- Job may outlive the finish (Tephra deletes it, not Volcano's TTL, so the outcome is always
-- recorded first), and installation-wide settings such as the key that signs Job ownership.
ALTER TABLE workloads ADD COLUMN finished_at TEXT;
ALTER TABLE workloads ADD COLUMN job_ttl_seconds INTEGER;

CREATE TABLE settings (
    key    TEXT PRIMARY KEY NOT NULL,
    value  TEXT NOT NULL
);
