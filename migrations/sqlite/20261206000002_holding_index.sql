-- A start estimate reads every workload that holds GPUs now (may run, has started, asks for
-- some): this index holds only those rows, so the read does not grow with the history the store
-- keeps (on SQLite the read scanned every row's request: 200 ms at 100,000 stored).
CREATE INDEX workloads_holding ON workloads (cluster_id)
    WHERE deleted_at IS NULL AND finished_at IS NULL AND desired_phase = 'Running'
      AND pending_since IS NULL AND gpus > 0;
