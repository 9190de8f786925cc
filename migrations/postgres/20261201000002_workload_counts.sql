-- How many live workloads each project holds, per kind and actual phase, kept by a trigger in the
-- transaction of every write, so a list's count is a sum over a few rows instead of a scan of
-- every row it matches (a project keeps its finished workloads: 100,000 is a real size).
CREATE TABLE workload_counts (
    project_id   UUID NOT NULL,
    kind         TEXT NOT NULL,
    actual_phase TEXT NOT NULL,
    live         BIGINT NOT NULL,
    PRIMARY KEY (project_id, kind, actual_phase)
);

INSERT INTO workload_counts (project_id, kind, actual_phase, live)
SELECT project_id, kind, actual_phase, COUNT(*) FROM workloads
 WHERE deleted_at IS NULL
 GROUP BY project_id, kind, actual_phase;

-- A write that moves a live row between groups (another phase, deleted) takes it from the old
-- group and puts it in the new one, locking the two counts in one order (by phase, then kind,
-- then project) so two such writes in opposite directions cannot deadlock. Writes that keep the
-- group (most status writes) touch nothing.
CREATE FUNCTION workload_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    leaving  BOOLEAN := TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL;
    entering BOOLEAN := TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL;
BEGIN
    IF leaving AND entering AND NEW.project_id = OLD.project_id AND NEW.kind = OLD.kind
       AND NEW.actual_phase = OLD.actual_phase THEN
        RETURN NULL;
    END IF;
    IF leaving AND entering
       AND (NEW.actual_phase, NEW.kind, NEW.project_id) < (OLD.actual_phase, OLD.kind, OLD.project_id) THEN
        INSERT INTO workload_counts (project_id, kind, actual_phase, live)
        VALUES (NEW.project_id, NEW.kind, NEW.actual_phase, 1)
        ON CONFLICT (project_id, kind, actual_phase)
        DO UPDATE SET live = workload_counts.live + 1;
        entering := FALSE;
    END IF;
    IF leaving THEN
        UPDATE workload_counts SET live = live - 1
         WHERE project_id = OLD.project_id AND kind = OLD.kind
           AND actual_phase = OLD.actual_phase;
    END IF;
    IF entering THEN
        INSERT INTO workload_counts (project_id, kind, actual_phase, live)
        VALUES (NEW.project_id, NEW.kind, NEW.actual_phase, 1)
        ON CONFLICT (project_id, kind, actual_phase)
        DO UPDATE SET live = workload_counts.live + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER workload_counts_track
AFTER INSERT OR DELETE OR UPDATE OF project_id, kind, actual_phase, deleted_at ON workloads
FOR EACH ROW EXECUTE FUNCTION workload_counts_track();
