-- Applications act with no more than their creator holds now, so the creator's groups are kept
-- from their last sign-in (JSON list of strings). Secrets expire and can be rotated: tokens
-- issued before `secret_set_at` stop working. Applications made before expiry existed expire
-- 90 days from this migration, the default for new ones.
ALTER TABLE users ADD COLUMN groups JSONB NOT NULL DEFAULT '[]';
ALTER TABLE applications ADD COLUMN expires_at TIMESTAMPTZ;
ALTER TABLE applications ADD COLUMN secret_set_at TIMESTAMPTZ;
UPDATE applications
   SET expires_at = now() + interval '90 days',
       secret_set_at = created_at;
