-- Departments, and projects within them, each with resources per node pool (Run:ai's org-unit
-- shapes, kept as JSON: they are read and written whole). Projects gain a Run:ai-style integer id
-- (`number`); the UUID stays the key that workloads and access rules refer to.
-- Workloads record what they ask for in total, so admission can sum a project's use in SQL.

CREATE TABLE departments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT NOT NULL UNIQUE,
    description  TEXT NOT NULL DEFAULT '',
    queue        TEXT NOT NULL UNIQUE,
    resources    TEXT NOT NULL DEFAULT '[]',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

-- The default department; start-up names its queue after the installation's prefix.
INSERT INTO departments (name, description, queue, created_at, updated_at)
VALUES ('default', 'Projects created without a department.', 'tephra-default.department',
        '2026-11-26T00:00:00+00:00', '2026-11-26T00:00:00+00:00');

ALTER TABLE projects ADD COLUMN number INTEGER;
ALTER TABLE projects ADD COLUMN department_id INTEGER REFERENCES departments (id);
ALTER TABLE projects ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN resources TEXT NOT NULL DEFAULT '[]';
ALTER TABLE projects ADD COLUMN default_node_pools TEXT;

UPDATE projects SET number = (
    SELECT COUNT(*) FROM projects p
     WHERE p.created_at < projects.created_at
        OR (p.created_at = projects.created_at AND p.id <= projects.id)
);
UPDATE projects SET department_id = (SELECT id FROM departments WHERE name = 'default');
CREATE UNIQUE INDEX projects_number ON projects (number);
CREATE INDEX projects_department ON projects (department_id);

-- NULL until known: rows from before this migration are measured at start-up.
ALTER TABLE workloads ADD COLUMN gpus REAL;
ALTER TABLE workloads ADD COLUMN cpu_millis INTEGER;
ALTER TABLE workloads ADD COLUMN memory_mib INTEGER;
