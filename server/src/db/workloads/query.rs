//! Lists and counts of workloads: the filter, the `WHERE` clause written for it, and the queries
//! that use it.

use super::order::{After, Keyset, SortKey};
use super::{COLUMNS, ListingRow, WorkloadListing, Workloads, parse_phase};
use crate::db::{DbResult, Engine, on_pool};
use chrono::{DateTime, Utc};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::phase::Phase;
use uuid::Uuid;

mod merge;
use merge::merged;

/// Binds `args` in order as `$1`, `$2`, ...
macro_rules! bind_args {
    ($query:expr, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match arg {
                Arg::Id(v) => query.bind(*v),
                Arg::Text(v) => query.bind(v.clone()),
                Arg::Int(v) => query.bind(*v),
                Arg::At(v) => query.bind(*v),
            };
        }
        query
    }};
}

/// Which workloads to list. The default is every live workload, newest first.
#[derive(Debug, Clone, Default)]
pub struct WorkloadFilter {
    pub project_id: Option<Uuid>,
    pub kind: Option<WorkloadKind>,
    pub actual_phase: Option<Phase>,
    /// The creator's email or display name.
    pub creator: Option<String>,
    /// Part of the name, ignoring case.
    pub name_contains: Option<String>,
    /// Only these projects (by name); `None` for every project.
    pub projects_among: Option<Vec<String>>,
    pub include_deleted: bool,
    pub sort: SortKey,
    /// Oldest (or A to Z) first; the default is newest first.
    pub ascending: bool,
    pub limit: Option<i64>,
    pub offset: i64,
    /// Start after this row of the same order (a keyset page), before `offset` is skipped.
    pub after: Option<After>,
}

impl Workloads<'_> {
    /// Workloads matching `filter` in its order, with their project and creator names. The page
    /// is chosen over the index of its order alone (ids only), and only its rows are read, so a
    /// deep `offset` walks index entries, not rows; `after` starts it without walking at all. A
    /// list among a few projects merges their pages ([`merged`]).
    pub async fn list(&self, filter: &WorkloadFilter) -> DbResult<Vec<WorkloadListing>> {
        let mut sql = Sql::new(self.0.engine());
        let page = match merged(filter) {
            Some(names) => {
                let ids = self.project_ids(names).await?;
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                sql.merged_page(filter, &ids)
            }
            None => sql.page(filter),
        };
        sql.text = format!(
            "SELECT {COLUMNS}, {NAMES}
               FROM ({page}) page
               JOIN workloads w ON w.id = page.id
               JOIN projects p ON p.id = w.project_id
               JOIN users u ON u.id = w.created_by
              ORDER BY {order}",
            order = order(filter.sort, filter.ascending),
        );
        let rows: Vec<ListingRow> = on_pool!(self.0, pool =>
            bind_args!(sqlx::query_as(&sql.text), &sql.args).fetch_all(pool).await)?;
        rows.into_iter()
            .map(|r| {
                Ok(WorkloadListing {
                    workload: r.row.try_into()?,
                    project_name: r.project_name,
                    project_number: r.project_number,
                    department_id: r.department_id,
                    creator_name: r.creator_name,
                })
            })
            .collect()
    }

    /// The workload with this id and the names shown beside it, deleted or not.
    pub async fn listing(&self, id: Uuid) -> DbResult<WorkloadListing> {
        let sql = format!(
            "SELECT {COLUMNS}, {NAMES} FROM workloads w
               JOIN projects p ON p.id = w.project_id
               JOIN users u ON u.id = w.created_by
              WHERE w.id = $1"
        );
        let r: ListingRow =
            on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?;
        Ok(WorkloadListing {
            workload: r.row.try_into()?,
            project_name: r.project_name,
            project_number: r.project_number,
            department_id: r.department_id,
            creator_name: r.creator_name,
        })
    }

    /// How many workloads match `filter`, ignoring its order, page and `after`. Filters by
    /// project, kind and phase only are summed from `workload_counts` (kept by triggers); a name
    /// or creator filter, or deleted rows, are counted row by row.
    pub async fn count(&self, filter: &WorkloadFilter) -> DbResult<i64> {
        let sql = Sql::count(self.0.engine(), filter);
        Ok(on_pool!(self.0, pool =>
            bind_args!(sqlx::query_scalar(&sql.text), &sql.args).fetch_one(pool).await)?)
    }

    /// Live workloads by actual phase; phases without any are left out.
    pub async fn count_by_phase(
        &self,
        projects_among: Option<&[String]>,
    ) -> DbResult<Vec<(Phase, i64)>> {
        let sql = "SELECT w.actual_phase, COUNT(*) FROM workloads w
                     JOIN projects p ON p.id = w.project_id
                    WHERE w.deleted_at IS NULL
                      AND (CAST($1 AS TEXT) IS NULL
                           OR LENGTH(REPLACE(',' || $1 || ',', ',' || p.name || ',', ''))
                              < LENGTH(',' || $1 || ','))
                    GROUP BY w.actual_phase ORDER BY w.actual_phase";
        let among = projects_among.map(|names| names.join(","));
        let rows: Vec<(String, i64)> =
            on_pool!(self.0, pool => sqlx::query_as(sql).bind(&among).fetch_all(pool).await)?;
        rows.into_iter()
            .map(|(phase, n)| Ok((parse_phase(&phase)?, n)))
            .collect()
    }
}

/// The project's name and the creator as the API shows them (their email, else their name).
const NAMES: &str = "p.name AS project_name, p.number AS project_number, \
                     p.department_id AS department_id, \
                     COALESCE(u.email, u.display_name) AS creator_name";

/// The tables a filter's conditions read besides `workloads w`: none unless it names a creator.
fn joins(filter: &WorkloadFilter) -> &'static str {
    if filter.creator.is_some() {
        "JOIN users u ON u.id = w.created_by"
    } else {
        ""
    }
}

/// The order of a sort, ties broken by id (and a phase's by age) so pages never overlap; every
/// order has a partial index of the live rows per project (`*_list_indexes.sql`).
fn order(sort: SortKey, ascending: bool) -> String {
    let direction = if ascending { "ASC" } else { "DESC" };
    sort.columns()
        .iter()
        .map(|column| format!("{column} {direction}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The conditions joined by `AND`; none is true.
fn all_of(conditions: &[String]) -> String {
    if conditions.is_empty() {
        "1 = 1".to_owned()
    } else {
        conditions.join(" AND ")
    }
}

/// A value bound to a list query.
#[derive(Debug, Clone)]
enum Arg {
    Id(Uuid),
    Text(String),
    Int(i64),
    At(DateTime<Utc>),
}

/// A query's text and its arguments, numbered as they are added. Only the conditions a filter
/// sets are written, so each query is one the planner can match to an index (a `$n IS NULL OR`
/// clause hides the column from it).
struct Sql {
    engine: Engine,
    text: String,
    args: Vec<Arg>,
}

impl Sql {
    fn new(engine: Engine) -> Self {
        Sql {
            engine,
            text: String::new(),
            args: Vec::new(),
        }
    }

    /// The query counting what `filter` matches (see [`Workloads::count`]).
    fn count(engine: Engine, filter: &WorkloadFilter) -> Sql {
        let mut sql = Sql::new(engine);
        let counted =
            filter.creator.is_none() && filter.name_contains.is_none() && !filter.include_deleted;
        sql.text = if counted {
            // The counts have the grouped columns under the same names (and alias).
            format!(
                "SELECT CAST(COALESCE(SUM(w.live), 0) AS BIGINT) FROM workload_counts w
                  WHERE {}",
                all_of(&sql.grouped(filter))
            )
        } else if let Some(phrase) = sql.trigram_phrase(filter) {
            // The matches drive the count: a rare part's few hundred rows are looked up by
            // rowid. Asked as `rowid IN (matches)`, SQLite walked every row of the project's
            // index probing the matches (a model of 100,000 names in one project: 23 ms,
            // against 0.1 from the matches; a part in every name: 80 against 59).
            format!(
                "SELECT COUNT(*) FROM workload_names n CROSS JOIN workloads w ON w.rowid = n.rowid
                   {joins} WHERE n.workload_names MATCH {phrase} AND {conditions}",
                joins = joins(filter),
                conditions = all_of(&sql.row_conditions(filter)),
            )
        } else {
            format!(
                "SELECT COUNT(*) FROM workloads w {joins} WHERE {conditions}",
                joins = joins(filter),
                conditions = all_of(&sql.conditions(filter)),
            )
        };
        sql
    }

    fn arg(&mut self, arg: Arg) -> String {
        self.args.push(arg);
        format!("${}", self.args.len())
    }

    /// The ids of the page, chosen over the index of its order alone (ids only), so a deep
    /// `offset` walks index entries, not rows. The limit and offset are bound, not written into
    /// the text: PostgreSQL then keeps one plan per query shape. With the numbers in the text it
    /// planned each page alone and chose worse, scanning the every-project index for a small
    /// project's first page (40 ms instead of 2.5).
    fn page(&mut self, filter: &WorkloadFilter) -> String {
        let mut conditions = self.conditions(filter);
        if let Some(after) = &filter.after {
            conditions.push(self.after(after, filter.ascending));
        }
        let limit = self.arg(Arg::Int(filter.limit.unwrap_or(i64::MAX)));
        let offset = self.arg(Arg::Int(filter.offset));
        format!(
            "SELECT w.id FROM workloads w {joins} WHERE {conditions}
              ORDER BY {order} LIMIT {limit} OFFSET {offset}",
            joins = joins(filter),
            conditions = all_of(&conditions),
            order = order(filter.sort, filter.ascending),
        )
    }

    fn conditions(&mut self, filter: &WorkloadFilter) -> Vec<String> {
        let mut all = self.row_conditions(filter);
        if let Some(part) = &filter.name_contains {
            all.push(self.name_contains(part));
        }
        all
    }

    /// Every condition of `filter` but its name search.
    fn row_conditions(&mut self, filter: &WorkloadFilter) -> Vec<String> {
        let mut all = Vec::new();
        if !filter.include_deleted {
            all.push("w.deleted_at IS NULL".to_owned());
        }
        all.extend(self.grouped(filter));
        if let Some(creator) = &filter.creator {
            let creator = self.arg(Arg::Text(creator.clone()));
            all.push(format!(
                "(u.email = {creator} OR u.display_name = {creator})"
            ));
        }
        all
    }

    /// Names containing `part`, ignoring case. A trigram index answers a part of three
    /// characters or more (`*_name_search.sql`): SQLite's is a table of its own, asked with a
    /// phrase of the part (trigrams in a row are a substring); PostgreSQL's answers the `LIKE`.
    /// A shorter part compares every name.
    fn name_contains(&mut self, part: &str) -> String {
        if let Some(phrase) = self.trigram_phrase_of(part) {
            // A page in the list's order stops at its last row; walking the order's index and
            // probing the matches does, where starting from the matches would sort them all
            // (the same model, a part in every name: 52 ms against 105).
            return format!(
                "w.rowid IN (SELECT rowid FROM workload_names WHERE workload_names MATCH {phrase})"
            );
        }
        let pattern = self.arg(Arg::Text(like_pattern(&part.to_lowercase())));
        format!("LOWER(w.name) LIKE {pattern} ESCAPE '\\'")
    }

    /// The bound phrase SQLite's trigram table is asked with, when `filter` searches names by
    /// a part it can look up.
    fn trigram_phrase(&mut self, filter: &WorkloadFilter) -> Option<String> {
        filter
            .name_contains
            .as_deref()
            .and_then(|part| self.trigram_phrase_of(part))
    }

    /// The phrase of `part` (trigrams in a row are a substring), bound, on SQLite for a part of
    /// three characters or more; `None` where the name must be compared.
    fn trigram_phrase_of(&mut self, part: &str) -> Option<String> {
        let part = part.to_lowercase();
        (self.engine == Engine::Sqlite && part.chars().count() >= 3)
            .then(|| self.arg(Arg::Text(format!("\"{}\"", part.replace('"', "\"\"")))))
    }

    /// The conditions on the columns `workload_counts` groups by: project, kind and phase.
    fn grouped(&mut self, filter: &WorkloadFilter) -> Vec<String> {
        let mut all = Vec::new();
        if let Some(id) = filter.project_id {
            all.push(format!("w.project_id = {}", self.arg(Arg::Id(id))));
        }
        if let Some(kind) = filter.kind {
            all.push(format!(
                "w.kind = {}",
                self.arg(Arg::Text(kind.as_str().into()))
            ));
        }
        if let Some(phase) = filter.actual_phase {
            all.push(format!(
                "w.actual_phase = {}",
                self.arg(Arg::Text(phase.as_str().into()))
            ));
        }
        if let Some(names) = &filter.projects_among {
            let names: Vec<String> = names
                .iter()
                .map(|name| self.arg(Arg::Text(name.clone())))
                .collect();
            all.push(if names.is_empty() {
                "1 = 0".to_owned()
            } else {
                format!(
                    "w.project_id IN (SELECT id FROM projects WHERE name IN ({}))",
                    names.join(", ")
                )
            });
        }
        all
    }

    /// Rows strictly past `after` in the list's order, as a row-value comparison the order's
    /// index answers with one seek.
    fn after(&mut self, after: &After, ascending: bool) -> String {
        let mut values = match &after.keyset {
            Keyset::CreatedAt(at) | Keyset::UpdatedAt(at) => vec![self.arg(Arg::At(*at))],
            Keyset::Name(name) => vec![self.arg(Arg::Text(name.clone()))],
            Keyset::ActualPhase(phase, at) => vec![
                self.arg(Arg::Text(phase.as_str().into())),
                self.arg(Arg::At(*at)),
            ],
        };
        values.push(self.arg(Arg::Id(after.id)));
        let op = if ascending { ">" } else { "<" };
        format!(
            "({}) {op} ({})",
            after.keyset.sort().columns().join(", "),
            values.join(", ")
        )
    }
}

/// `%part%`, with LIKE's wildcards in `part` escaped so they match literally.
fn like_pattern(part: &str) -> String {
    let mut pattern = String::from("%");
    for c in part.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

// After `bind_args!`, which the tests use.
#[cfg(test)]
mod tests;
