-- Lists page through a project's live workloads in one of four orders (newest first by default,
-- or by name, last change or phase), often filtered by kind. One index per order, of the live
-- rows only, with the id that breaks ties, the kind and `deleted_at` (always NULL here, but a
-- planner reads the index as covering only when it holds every column the query names), so a
-- page and a deep offset read index entries and never the rows they skip. Lists of every project
-- use the second set.
CREATE INDEX workloads_list_project_created ON workloads (project_id, created_at, id, kind, deleted_at)
    WHERE deleted_at IS NULL;
CREATE INDEX workloads_list_project_name ON workloads (project_id, name, id, kind, deleted_at)
    WHERE deleted_at IS NULL;
CREATE INDEX workloads_list_project_updated ON workloads (project_id, updated_at, id, kind, deleted_at)
    WHERE deleted_at IS NULL;
CREATE INDEX workloads_list_project_phase ON workloads (project_id, actual_phase, created_at, id, kind, deleted_at)
    WHERE deleted_at IS NULL;
CREATE INDEX workloads_list_created ON workloads (created_at, id, kind, deleted_at) WHERE deleted_at IS NULL;
CREATE INDEX workloads_list_name ON workloads (name, id, kind, deleted_at) WHERE deleted_at IS NULL;
CREATE INDEX workloads_list_updated ON workloads (updated_at, id, kind, deleted_at) WHERE deleted_at IS NULL;
CREATE INDEX workloads_list_phase ON workloads (actual_phase, created_at, id, kind, deleted_at)
    WHERE deleted_at IS NULL;
-- The kind-first indexes these replace.
DROP INDEX workloads_live_kind_created;
DROP INDEX workloads_live_kind_name;
