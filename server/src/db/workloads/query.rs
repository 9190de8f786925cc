//! Lists and counts of workloads: the filter, its one `WHERE` clause, and the queries that use it.

use super::{COLUMNS, ListingRow, WorkloadListing, Workloads, parse_phase};
use crate::db::{DbResult, on_pool};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::phase::Phase;
use uuid::Uuid;

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
}

/// What a list is ordered by; ties are broken by id so pages never overlap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SortKey {
    #[default]
    CreatedAt,
    Name,
    ActualPhase,
    UpdatedAt,
}

impl SortKey {
    fn column(self) -> &'static str {
        match self {
            SortKey::CreatedAt => "w.created_at",
            SortKey::Name => "w.name",
            SortKey::ActualPhase => "w.actual_phase",
            SortKey::UpdatedAt => "w.updated_at",
        }
    }
}

/// Binds [`FILTER`]'s parameters `$1`..`$7` in order.
macro_rules! bind_filter {
    ($query:expr, $filter:expr) => {{
        let filter: &WorkloadFilter = $filter;
        $query
            .bind(filter.include_deleted)
            .bind(filter.project_id)
            .bind(filter.kind.map(WorkloadKind::as_str))
            .bind(filter.actual_phase.map(Phase::as_str))
            .bind(filter.creator.as_deref())
            .bind(filter.name_contains.as_deref().map(like_pattern))
            .bind(filter.projects_among.as_ref().map(|names| names.join(",")))
    }};
}

impl Workloads<'_> {
    /// Workloads matching `filter` in its order, with their project and creator names.
    pub async fn list(&self, filter: &WorkloadFilter) -> DbResult<Vec<WorkloadListing>> {
        let direction = if filter.ascending { "ASC" } else { "DESC" };
        let sql = format!(
            "SELECT {COLUMNS}, {NAMES} {JOINED}
              WHERE {FILTER}
              ORDER BY {column} {direction}, w.id {direction}
              LIMIT $8 OFFSET $9",
            column = filter.sort.column(),
        );
        let limit = filter.limit.unwrap_or(i64::MAX);
        let rows: Vec<ListingRow> = on_pool!(self.0, pool => bind_filter!(sqlx::query_as(&sql), filter)
            .bind(limit)
            .bind(filter.offset)
            .fetch_all(pool)
            .await)?;
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
            "SELECT {COLUMNS}, {NAMES} {JOINED}
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

    /// How many workloads match `filter`, ignoring its order and page.
    pub async fn count(&self, filter: &WorkloadFilter) -> DbResult<i64> {
        let sql = format!(
            "SELECT COUNT(*) FROM workloads w
               JOIN projects p ON p.id = w.project_id
               JOIN users u ON u.id = w.created_by
              WHERE {FILTER}"
        );
        Ok(
            on_pool!(self.0, pool => bind_filter!(sqlx::query_scalar(&sql), filter)
            .fetch_one(pool)
            .await)?,
        )
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

/// Workloads with their project and creator, for [`NAMES`].
const JOINED: &str = "FROM workloads w
    JOIN projects p ON p.id = w.project_id
    JOIN users u ON u.id = w.created_by";

/// The project's name and the creator as the API shows them (their email, else their name).
const NAMES: &str = "p.name AS project_name, p.number AS project_number, \
                     p.department_id AS department_id, \
                     COALESCE(u.email, u.display_name) AS creator_name";

/// The `WHERE` clause of lists and counts; its parameters are bound by [`bind_filter`]. `$7` is
/// a comma-separated list of project names (which cannot contain commas); a name is in it when
/// removing `,name,` shortens it (LIKE would read `_` in a name as a wildcard).
const FILTER: &str = "($1 OR w.deleted_at IS NULL)
    AND ($2 IS NULL OR w.project_id = $2)
    AND (CAST($3 AS TEXT) IS NULL OR w.kind = $3)
    AND (CAST($4 AS TEXT) IS NULL OR w.actual_phase = $4)
    AND (CAST($5 AS TEXT) IS NULL OR u.email = $5 OR u.display_name = $5)
    AND (CAST($6 AS TEXT) IS NULL OR LOWER(w.name) LIKE $6 ESCAPE '\\')
    AND (CAST($7 AS TEXT) IS NULL
         OR LENGTH(REPLACE(',' || $7 || ',', ',' || p.name || ',', '')) < LENGTH(',' || $7 || ','))";

/// `%part%`, lower-cased, with LIKE's wildcards in `part` escaped so they match literally.
fn like_pattern(part: &str) -> String {
    let mut pattern = String::from("%");
    for c in part.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}
