-- Projects' scheduling rules (PostgreSQL). Keep it equivalent to migrations/sqlite.
-- NULL: the project has none.

ALTER TABLE projects ADD COLUMN scheduling_rules JSONB;
