-- Tephra's first schema (PostgreSQL). Keep it equivalent to migrations/sqlite.

CREATE TABLE projects (
    id          UUID PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    namespace   TEXT NOT NULL UNIQUE,
    queue       TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE users (
    id            UUID PRIMARY KEY,
    issuer        TEXT NOT NULL,
    subject       TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    email         TEXT,
    created_at    TIMESTAMPTZ NOT NULL,
    last_seen_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (issuer, subject)
);

CREATE TABLE workloads (
    id             UUID PRIMARY KEY,
    project_id     UUID NOT NULL REFERENCES projects (id),
    name           TEXT NOT NULL,
    kind           TEXT NOT NULL,
    spec           JSONB NOT NULL,
    desired_phase  TEXT NOT NULL,
    actual_phase   TEXT NOT NULL,
    phase_reason   TEXT,
    created_by     UUID NOT NULL REFERENCES users (id),
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    deleted_at     TIMESTAMPTZ
);

CREATE UNIQUE INDEX workloads_live_name ON workloads (project_id, name) WHERE deleted_at IS NULL;
CREATE INDEX workloads_created_at ON workloads (created_at);

CREATE TABLE audit_events (
    id           BIGSERIAL PRIMARY KEY,
    at           TIMESTAMPTZ NOT NULL,
    actor_id     UUID REFERENCES users (id),
    action       TEXT NOT NULL,
    target_kind  TEXT NOT NULL,
    target_id    UUID NOT NULL,
    detail       JSONB NOT NULL
);

CREATE INDEX audit_events_target ON audit_events (target_kind, target_id, id);
