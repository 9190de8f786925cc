//! A list among a few projects (a researcher's), read project by project and merged: over one
//! index of every project, both planners walk the order and skip other projects' rows, which
//! costs most when a large project is not the caller's.

use super::{Arg, Sql, WorkloadFilter, Workloads, all_of, order};
use crate::db::{DbResult, on_pool};
use uuid::Uuid;

/// The most projects a list among several reads one by one and merges, and the deepest page it
/// does so for: each project gives up to `offset + limit` rows.
const MERGE_PROJECTS: usize = 32;
const MERGE_DEPTH: i64 = 1_000;

/// The projects to read one by one for `filter`, if merging their pages is the cheaper way: a
/// list among a few projects (a researcher's), a page not deep, and only conditions each
/// project's index of the order answers. Over one index of every project, both planners walk the
/// order and skip other projects' rows, which costs most when a large project is not the
/// caller's.
pub(super) fn merged(filter: &WorkloadFilter) -> Option<&[String]> {
    let names = filter.projects_among.as_deref()?;
    let fits = filter.project_id.is_none()
        && filter.creator.is_none()
        && filter.name_contains.is_none()
        && filter.limit.is_some()
        && filter.offset <= MERGE_DEPTH
        && (1..=MERGE_PROJECTS).contains(&names.len());
    fits.then_some(names)
}

impl Workloads<'_> {
    /// The ids of the projects named `names` that exist. Each branch of a merged page then
    /// names its project by id, as a one-project list does: that is the query both planners
    /// answer with one seek of the project's index.
    pub(super) async fn project_ids(&self, names: &[String]) -> DbResult<Vec<Uuid>> {
        let marks: Vec<String> = (1..=names.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT id FROM projects WHERE name IN ({})",
            marks.join(", ")
        );
        Ok(on_pool!(self.0, pool => {
            let mut query = sqlx::query_scalar(&sql);
            for name in names {
                query = query.bind(name);
            }
            query.fetch_all(pool).await
        })?)
    }
}

impl Sql {
    /// The ids of the page among the projects `ids`: each project's first `offset + limit` rows
    /// over its own index of the order (one seek each), merged in order, and the page taken
    /// from those.
    pub(super) fn merged_page(&mut self, filter: &WorkloadFilter, ids: &[Uuid]) -> String {
        let alone = WorkloadFilter {
            projects_among: None,
            ..filter.clone()
        };
        let columns = filter.sort.columns();
        let keys: Vec<String> = (0..columns.len()).map(|i| format!("k{i}")).collect();
        let picked: Vec<String> = columns
            .iter()
            .zip(&keys)
            .map(|(column, key)| format!("{column} AS {key}"))
            .collect();
        let direction = if filter.ascending { "ASC" } else { "DESC" };
        let merged_order: Vec<String> = keys.iter().map(|k| format!("{k} {direction}")).collect();
        let limit = filter.limit.unwrap_or(i64::MAX);
        let each = self.arg(Arg::Int(limit.saturating_add(filter.offset)));
        let mut branches = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let mut conditions = self.conditions(&alone);
            if let Some(after) = &filter.after {
                conditions.push(self.after(after, filter.ascending));
            }
            conditions.push(format!("w.project_id = {}", self.arg(Arg::Id(*id))));
            branches.push(format!(
                "SELECT * FROM (SELECT w.id AS id, {picked} FROM workloads w WHERE {conditions}
                                 ORDER BY {order} LIMIT {each}) b{i}",
                picked = picked.join(", "),
                conditions = all_of(&conditions),
                order = order(filter.sort, filter.ascending),
            ));
        }
        let limit = self.arg(Arg::Int(limit));
        let offset = self.arg(Arg::Int(filter.offset));
        format!(
            "SELECT id FROM ({branches}) merged
              ORDER BY {merged_order} LIMIT {limit} OFFSET {offset}",
            branches = branches.join(" UNION ALL "),
            merged_order = merged_order.join(", "),
        )
    }
}
