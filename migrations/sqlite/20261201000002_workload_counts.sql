-- How many live workloads each project holds, per kind and actual phase, kept by triggers in the
-- transaction of every write, so a list's count is a sum over a few rows instead of a scan of
-- every row it matches (a project keeps its finished workloads: 100,000 is a real size).
CREATE TABLE workload_counts (
    project_id   BLOB NOT NULL,
    kind         TEXT NOT NULL,
    actual_phase TEXT NOT NULL,
    live         INTEGER NOT NULL,
    PRIMARY KEY (project_id, kind, actual_phase)
);

INSERT INTO workload_counts (project_id, kind, actual_phase, live)
SELECT project_id, kind, actual_phase, COUNT(*) FROM workloads
 WHERE deleted_at IS NULL
 GROUP BY project_id, kind, actual_phase;

CREATE TRIGGER workload_counts_insert AFTER INSERT ON workloads
WHEN NEW.deleted_at IS NULL
BEGIN
    INSERT INTO workload_counts (project_id, kind, actual_phase, live)
    VALUES (NEW.project_id, NEW.kind, NEW.actual_phase, 1)
    ON CONFLICT (project_id, kind, actual_phase) DO UPDATE SET live = live + 1;
END;

-- An update that moves a live row out of its group (another phase, deleted) takes it from the
-- old group; one that leaves it live puts it in the new one. Writes that keep the group (most
-- status writes) touch nothing.
CREATE TRIGGER workload_counts_leave AFTER UPDATE OF project_id, kind, actual_phase, deleted_at
ON workloads
WHEN OLD.deleted_at IS NULL
 AND (NEW.deleted_at IS NOT NULL OR NEW.project_id IS NOT OLD.project_id
      OR NEW.kind IS NOT OLD.kind OR NEW.actual_phase IS NOT OLD.actual_phase)
BEGIN
    UPDATE workload_counts SET live = live - 1
     WHERE project_id = OLD.project_id AND kind = OLD.kind AND actual_phase = OLD.actual_phase;
END;

CREATE TRIGGER workload_counts_enter AFTER UPDATE OF project_id, kind, actual_phase, deleted_at
ON workloads
WHEN NEW.deleted_at IS NULL
 AND (OLD.deleted_at IS NOT NULL OR NEW.project_id IS NOT OLD.project_id
      OR NEW.kind IS NOT OLD.kind OR NEW.actual_phase IS NOT OLD.actual_phase)
BEGIN
    INSERT INTO workload_counts (project_id, kind, actual_phase, live)
    VALUES (NEW.project_id, NEW.kind, NEW.actual_phase, 1)
    ON CONFLICT (project_id, kind, actual_phase) DO UPDATE SET live = live + 1;
END;

CREATE TRIGGER workload_counts_delete AFTER DELETE ON workloads
WHEN OLD.deleted_at IS NULL
BEGIN
    UPDATE workload_counts SET live = live - 1
     WHERE project_id = OLD.project_id AND kind = OLD.kind AND actual_phase = OLD.actual_phase;
END;
