-- Access rules (who holds which role where) and applications (API clients with a secret).
-- Applications act through a row in users (issuer `tephra:application`), so they are actors in
-- the audit trail and creators of workloads like people are. Keep it equivalent to
-- migrations/sqlite.

CREATE TABLE access_rules (
    id            BIGSERIAL PRIMARY KEY,
    subject_type  TEXT NOT NULL,
    subject_id    TEXT NOT NULL,
    role_id       BIGINT NOT NULL,
    scope_type    TEXT NOT NULL,
    scope_id      TEXT NOT NULL,
    created_by    UUID REFERENCES users (id),
    created_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (subject_type, subject_id, role_id, scope_type, scope_id)
);

CREATE TABLE applications (
    id            UUID PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    user_id       UUID NOT NULL REFERENCES users (id),
    owner_id      UUID NOT NULL REFERENCES users (id),
    secret_hash   TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    last_used_at  TIMESTAMPTZ,
    revoked_at    TIMESTAMPTZ
);

CREATE INDEX audit_events_at ON audit_events (at);

-- The Linux uid and gid the provider's token gave at the user's last sign-in, for
-- `security.uidGidSource: fromIdpToken` (the reconciler renders with them).
ALTER TABLE users ADD COLUMN uid BIGINT;
ALTER TABLE users ADD COLUMN gid BIGINT;
