-- Tephra's first schema (SQLite). Ids are UUIDs stored as 16-byte blobs, times RFC 3339 text in UTC.

CREATE TABLE projects (
    id          BLOB PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL UNIQUE,
    namespace   TEXT NOT NULL UNIQUE,
    queue       TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE users (
    id            BLOB PRIMARY KEY NOT NULL,
    issuer        TEXT NOT NULL,
    subject       TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    email         TEXT,
    created_at    TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    UNIQUE (issuer, subject)
);

CREATE TABLE workloads (
    id             BLOB PRIMARY KEY NOT NULL,
    project_id     BLOB NOT NULL REFERENCES projects (id),
    name           TEXT NOT NULL,
    kind           TEXT NOT NULL,
    spec           TEXT NOT NULL,
    desired_phase  TEXT NOT NULL,
    actual_phase   TEXT NOT NULL,
    phase_reason   TEXT,
    created_by     BLOB NOT NULL REFERENCES users (id),
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    deleted_at     TEXT
);

-- A name is unique among the live workloads of a project; deleted ones keep their rows for history.
CREATE UNIQUE INDEX workloads_live_name ON workloads (project_id, name) WHERE deleted_at IS NULL;
CREATE INDEX workloads_created_at ON workloads (created_at);

CREATE TABLE audit_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    at           TEXT NOT NULL,
    actor_id     BLOB REFERENCES users (id),
    action       TEXT NOT NULL,
    target_kind  TEXT NOT NULL,
    target_id    BLOB NOT NULL,
    detail       TEXT NOT NULL
);

CREATE INDEX audit_events_target ON audit_events (target_kind, target_id, id);
