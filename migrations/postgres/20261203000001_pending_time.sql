-- How long each workload has waited to run (Run:ai's totalPendingTimeSeconds): the seconds of
-- the waits that ended, and when the current one began (NULL while it is not waiting). Kept by
-- the status write that moves it in or out of a waiting phase, so a list reads it without the
-- history. Workloads stored before this start from no wait.
ALTER TABLE workloads ADD COLUMN pending_seconds DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE workloads ADD COLUMN pending_since TIMESTAMPTZ;
UPDATE workloads SET pending_since = updated_at
 WHERE deleted_at IS NULL AND actual_phase IN ('Creating', 'Pending', 'Resuming');
