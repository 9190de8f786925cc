-- Admission, the fit answer and the metrics sum what the workloads that may run ask for. This
-- index holds only those rows, with the summed columns, so the sums read what is in use and do
-- not grow with the finished and deleted workloads a project keeps as history.
CREATE INDEX workloads_in_use ON workloads (project_id, gpus, cpu_millis, memory_mib)
    WHERE deleted_at IS NULL AND finished_at IS NULL AND desired_phase = 'Running';
