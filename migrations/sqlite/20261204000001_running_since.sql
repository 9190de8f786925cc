-- When the current run began (NULL while it does not run): a training's time limit
-- (maxRunTimeSeconds) counts from it. Kept by the status write that moves a workload into or out
-- of Running. Workloads running before this count from their last change.
ALTER TABLE workloads ADD COLUMN running_since TEXT;
UPDATE workloads SET running_since = updated_at
 WHERE deleted_at IS NULL AND actual_phase = 'Running';
