-- Policies per scope and workload kind (PostgreSQL). Keep it equivalent to migrations/sqlite.

CREATE TABLE policies (
    scope_type  TEXT NOT NULL,
    scope_id    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    body        JSONB NOT NULL,
    updated_by  UUID REFERENCES users (id),
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope_type, scope_id, kind)
);
