-- Applications act with no more than their creator holds now, so the creator's groups are kept
-- from their last sign-in (JSON list of strings). Secrets expire and can be rotated: tokens
-- issued before `secret_set_at` stop working. Applications made before expiry existed expire
-- 90 days from this migration, the default for new ones.
ALTER TABLE users ADD COLUMN groups TEXT NOT NULL DEFAULT '[]';
ALTER TABLE applications ADD COLUMN expires_at TEXT;
ALTER TABLE applications ADD COLUMN secret_set_at TEXT;
UPDATE applications
   SET expires_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+90 days'),
       secret_set_at = created_at;
