-- Queue positions read every workload that waits to start, of every project, on each list page
-- that shows one: this index holds only those rows, so the read does not grow with the history
-- the store keeps.
CREATE INDEX workloads_waiting ON workloads (cluster_id, project_id)
    WHERE deleted_at IS NULL AND finished_at IS NULL AND desired_phase = 'Running'
      AND pending_since IS NOT NULL;
