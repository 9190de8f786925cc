-- A name search ("names containing this text, ignoring case") compared every name of the project
-- (83 ms at 100,000). A trigram index answers a search of three characters or more from the
-- trigrams it contains. External content: the index holds trigrams keyed by the workload's
-- rowid, not a second copy of the names. The rowid is not an INTEGER PRIMARY KEY, so a VACUUM
-- may renumber it: after one, run INSERT INTO workload_names(workload_names) VALUES ('rebuild').
CREATE VIRTUAL TABLE workload_names USING fts5(
    name, content = 'workloads', content_rowid = 'rowid', tokenize = 'trigram case_sensitive 0'
);
INSERT INTO workload_names (workload_names) VALUES ('rebuild');

CREATE TRIGGER workload_names_insert AFTER INSERT ON workloads BEGIN
    INSERT INTO workload_names (rowid, name) VALUES (new.rowid, new.name);
END;
CREATE TRIGGER workload_names_delete AFTER DELETE ON workloads BEGIN
    INSERT INTO workload_names (workload_names, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
CREATE TRIGGER workload_names_rename AFTER UPDATE OF name ON workloads BEGIN
    INSERT INTO workload_names (workload_names, rowid, name) VALUES ('delete', old.rowid, old.name);
    INSERT INTO workload_names (rowid, name) VALUES (new.rowid, new.name);
END;
