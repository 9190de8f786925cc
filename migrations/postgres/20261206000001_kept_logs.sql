-- The last lines of a failed training's container logs, with what they hint at, kept so its page
-- still explains the failure once the Job and its pods are collected. One row a container; the
-- keeper replaces a workload's rows when it reads them again, and drops rows older than the
-- retention (--kept-logs-days) and those of deleted workloads.
CREATE TABLE kept_logs (
    workload_id  UUID NOT NULL REFERENCES workloads (id) ON DELETE CASCADE,
    pod          TEXT NOT NULL,
    container    TEXT NOT NULL,
    previous     BOOLEAN NOT NULL,
    lines        JSONB NOT NULL,
    hints        JSONB NOT NULL,
    taken_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workload_id, pod, container)
);
CREATE INDEX kept_logs_taken_at ON kept_logs (taken_at);
