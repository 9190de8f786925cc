-- Projects' scheduling rules (Run:ai's `schedulingRules`), kept as JSON like their resources:
-- read and written whole. NULL: the project has none.

ALTER TABLE projects ADD COLUMN scheduling_rules TEXT;
