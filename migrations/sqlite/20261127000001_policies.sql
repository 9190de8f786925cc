-- Policies (Run:ai's `defaults` and `rules`) per scope and workload kind. scope_id is '' for the
-- system, the department's id, or the project's UUID. No row for the system means Tephra's
-- built-in node protection.

CREATE TABLE policies (
    scope_type  TEXT NOT NULL,
    scope_id    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    body        TEXT NOT NULL,
    updated_by  BLOB REFERENCES users (id),
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (scope_type, scope_id, kind)
);
