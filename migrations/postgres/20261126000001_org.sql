-- Departments, and projects within them (PostgreSQL). Keep it equivalent to migrations/sqlite.

CREATE TABLE departments (
    id           BIGSERIAL PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    description  TEXT NOT NULL DEFAULT '',
    queue        TEXT NOT NULL UNIQUE,
    resources    JSONB NOT NULL DEFAULT '[]',
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);

-- The default department; start-up names its queue after the installation's prefix.
INSERT INTO departments (name, description, queue, created_at, updated_at)
VALUES ('default', 'Projects created without a department.', 'tephra-default.department',
        now(), now());

ALTER TABLE projects ADD COLUMN number BIGINT;
ALTER TABLE projects ADD COLUMN department_id BIGINT REFERENCES departments (id);
ALTER TABLE projects ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN resources JSONB NOT NULL DEFAULT '[]';
ALTER TABLE projects ADD COLUMN default_node_pools JSONB;

UPDATE projects SET number = numbered.n
  FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n FROM projects) numbered
 WHERE projects.id = numbered.id;
UPDATE projects SET department_id = (SELECT id FROM departments WHERE name = 'default');
CREATE UNIQUE INDEX projects_number ON projects (number);
CREATE INDEX projects_department ON projects (department_id);

ALTER TABLE workloads ADD COLUMN gpus DOUBLE PRECISION;
ALTER TABLE workloads ADD COLUMN cpu_millis BIGINT;
ALTER TABLE workloads ADD COLUMN memory_mib BIGINT;
