-- Access rules (who holds which role where) and applications (API clients with a secret).
-- Applications act through a row in users (issuer `tephra:application`), so they are actors in
-- the audit trail and creators of workloads like people are.

CREATE TABLE access_rules (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    subject_type  TEXT NOT NULL,
    subject_id    TEXT NOT NULL,
    role_id       INTEGER NOT NULL,
    scope_type    TEXT NOT NULL,
    scope_id      TEXT NOT NULL,
    created_by    BLOB REFERENCES users (id),
    created_at    TEXT NOT NULL,
    UNIQUE (subject_type, subject_id, role_id, scope_type, scope_id)
);

CREATE TABLE applications (
    id            BLOB PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL UNIQUE,
    user_id       BLOB NOT NULL REFERENCES users (id),
    owner_id      BLOB NOT NULL REFERENCES users (id),
    secret_hash   TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    last_used_at  TEXT,
    revoked_at    TEXT
);

CREATE INDEX audit_events_at ON audit_events (at);

-- The Linux uid and gid the provider's token gave at the user's last sign-in, for
-- `security.uidGidSource: fromIdpToken` (the reconciler renders with them).
ALTER TABLE users ADD COLUMN uid INTEGER;
ALTER TABLE users ADD COLUMN gid INTEGER;
