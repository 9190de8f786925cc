-- The trainings API: the name a user asked for (the row's name is the Job's, with any suffix), the
-- cluster a workload runs on, and the live status the watchers derive (JSON).
ALTER TABLE workloads ADD COLUMN requested_name TEXT NOT NULL DEFAULT '';
ALTER TABLE workloads ADD COLUMN cluster_id TEXT NOT NULL DEFAULT 'default';
ALTER TABLE workloads ADD COLUMN status JSONB NOT NULL DEFAULT '{}';

-- Lists filter live workloads by kind and sort them; these keep a page of 10,000 rows cheap.
CREATE INDEX workloads_live_kind_created ON workloads (kind, created_at) WHERE deleted_at IS NULL;
CREATE INDEX workloads_live_kind_name ON workloads (kind, name) WHERE deleted_at IS NULL;
