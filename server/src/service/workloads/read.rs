//! Reading workloads and projects for a principal: one workload, pages of them, their history,
//! what they render to, and the projects the principal may see.

use super::cursor::Cursor;
use super::{PAGE_DEFAULT, PAGE_MAX, Page, Slice, Workloads, workload_response};
use crate::authorize;
use crate::db::DbError;
use crate::db::projects::Project;
use crate::db::workloads::{After, SortKey, WorkloadFilter, WorkloadListing};
use crate::service::lookup::{project_by_key, project_names_where};
use app::error::AppError;
use chrono::SecondsFormat;
use std::collections::HashSet;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::history::AuditTarget;
use tephra_core::model::overview::Overview;
use tephra_core::model::phase::UnknownPhase;
use tephra_core::model::principal::Principal;
use tephra_core::model::workload::{HistoryEntry, WorkloadQuery};

fn noun(kind: Option<WorkloadKind>) -> &'static str {
    kind.map_or("workload", WorkloadKind::noun)
}

fn not_found(noun: &str, id: &str) -> AppError {
    AppError::NotFound(format!("no {noun} with the id {id:?}"))
}

/// The sort and page of a list query; the error names the parameter and what it allows.
fn order_and_page(query: &WorkloadQuery, filter: &mut WorkloadFilter) -> Result<(), AppError> {
    filter.sort = match query.sort_by.as_deref() {
        None | Some("" | "createdAt") => SortKey::CreatedAt,
        Some("name") => SortKey::Name,
        Some("updatedAt") => SortKey::UpdatedAt,
        Some("actualPhase") => SortKey::ActualPhase,
        Some(other) => {
            return Err(AppError::field(
                "sortBy",
                format!("{other:?} is not allowed: one of name, createdAt, updatedAt, actualPhase"),
            ));
        }
    };
    filter.ascending = match query.sort_order.as_deref() {
        None | Some("" | "desc") => false,
        Some("asc") => true,
        Some(other) => {
            return Err(AppError::field(
                "sortOrder",
                format!("{other:?} is not allowed: asc or desc"),
            ));
        }
    };
    let limit = query.limit.unwrap_or(PAGE_DEFAULT);
    if !(1..=PAGE_MAX).contains(&limit) {
        return Err(AppError::field(
            "limit",
            format!("must be between 1 and {PAGE_MAX} (got {limit})"),
        ));
    }
    let offset = query.offset.unwrap_or(0);
    if offset < 0 {
        return Err(AppError::field(
            "offset",
            format!("must be 0 or more (got {offset})"),
        ));
    }
    filter.limit = Some(limit);
    filter.offset = offset;
    if let Some(text) = query.after.as_deref().filter(|a| !a.is_empty()) {
        let after = Cursor::decode(text, filter.sort, filter.ascending)
            .map_err(|message| AppError::field("after", message))?;
        filter.after = Some(after);
    }
    Ok(())
}

impl Workloads {
    /// The workload with this id, deleted or not, with the names shown beside it.
    async fn listing(&self, id: &str, noun: &str) -> Result<WorkloadListing, AppError> {
        let uuid: uuid::Uuid = id.parse().map_err(|_| not_found(noun, id))?;
        match self.db.workloads().listing(uuid).await {
            Ok(listing) => Ok(listing),
            Err(DbError::NotFound) => Err(not_found(noun, id)),
            Err(e) => Err(e.into()),
        }
    }

    /// The live workload with this id (of `kind`, when given), after checking the principal may
    /// see it.
    pub async fn find(
        &self,
        kind: Option<WorkloadKind>,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadListing, AppError> {
        self.find_for(kind, principal, id, Permission::ReadWorkloads)
            .await
    }

    /// [`Self::find`], checking `permission` in the workload's project.
    pub(super) async fn find_for(
        &self,
        kind: Option<WorkloadKind>,
        principal: &Principal,
        id: &str,
        permission: Permission,
    ) -> Result<WorkloadListing, AppError> {
        let listing = self.listing(id, noun(kind)).await?;
        let wrong_kind = kind.is_some_and(|k| listing.workload.kind != k);
        if listing.workload.deleted_at.is_some() || wrong_kind {
            return Err(not_found(noun(kind), id));
        }
        let project = self.db.projects().get(listing.workload.project_id).await?;
        if !authorize::sees(principal, &project) {
            return Err(not_found(noun(kind), id));
        }
        authorize::require(principal, permission, &project)?;
        Ok(listing)
    }

    /// The workload with this id, deleted or not, when the principal may read its project; a
    /// workload it may not read is not found, as if it did not exist (an event stream starts
    /// from it).
    pub async fn watched(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadListing, AppError> {
        let listing = self.listing(id, "workload").await?;
        let project = self.db.projects().get(listing.workload.project_id).await?;
        if !authorize::may(principal, Permission::ReadWorkloads, &project) {
            return Err(not_found("workload", id));
        }
        Ok(listing)
    }

    /// One page of the workloads (of `kind`, when given) the principal may see, and how many
    /// match in all.
    pub async fn list(
        &self,
        kind: Option<WorkloadKind>,
        principal: &Principal,
        query: &WorkloadQuery,
    ) -> Result<Page, AppError> {
        let filter = self.filter_for(kind, principal, query).await?;
        let total = self.db.workloads().count(&filter).await?;
        let slice = self.slice_of(filter).await?;
        Ok(Page {
            workloads: slice.workloads,
            total,
            next: slice.next,
            next_cursor: slice.next_cursor,
            offset: slice.offset,
            limit: slice.limit,
        })
    }

    /// [`Self::list`] without the count, for a list that does not answer with one (Run:ai's):
    /// the count is a second query, as slow as the page where a filter has no counts kept.
    pub async fn list_uncounted(
        &self,
        kind: Option<WorkloadKind>,
        principal: &Principal,
        query: &WorkloadQuery,
    ) -> Result<Slice, AppError> {
        let filter = self.filter_for(kind, principal, query).await?;
        self.slice_of(filter).await
    }

    /// The query's filter on the rows, limited to what the principal may read.
    async fn filter_for(
        &self,
        kind: Option<WorkloadKind>,
        principal: &Principal,
        query: &WorkloadQuery,
    ) -> Result<WorkloadFilter, AppError> {
        let mut filter = WorkloadFilter {
            kind,
            creator: query.created_by.clone().filter(|c| !c.is_empty()),
            name_contains: query.name.clone().filter(|n| !n.is_empty()),
            ..WorkloadFilter::default()
        };
        if let Some(key) = query.project_id.as_deref().filter(|k| !k.is_empty()) {
            filter.project_id = Some(self.readable_project(principal, key).await?.id);
        } else {
            // Without a project filter a list covers every project the principal may read.
            filter.projects_among = self
                .projects_among(principal, Permission::ReadWorkloads)
                .await?;
        }
        if let Some(phase) = query.phase.as_deref().filter(|p| !p.is_empty()) {
            filter.actual_phase = Some(phase.parse().map_err(|e: UnknownPhase| {
                AppError::field("phase", e.to_string().replace("unknown phase ", ""))
            })?);
        }
        order_and_page(query, &mut filter)?;
        Ok(filter)
    }

    /// The page `filter` selects, and where the next one starts.
    async fn slice_of(&self, mut filter: WorkloadFilter) -> Result<Slice, AppError> {
        let limit = filter.limit.unwrap_or(PAGE_DEFAULT);
        // One more than the page, to know whether another follows.
        filter.limit = Some(limit + 1);
        let mut page = self.db.workloads().list(&filter).await?;
        let more = page.len() as i64 > limit;
        page.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        let end = filter.offset + page.len() as i64;
        let next_cursor = page.last().filter(|_| more).map(|last| {
            Cursor {
                after: After::of(filter.sort, &last.workload),
                ascending: filter.ascending,
            }
            .encode()
        });
        let mut workloads: Vec<_> = page.iter().map(workload_response).collect();
        self.fill_positions(&mut workloads).await?;
        Ok(Slice {
            workloads,
            next: (more && filter.after.is_none()).then_some(end),
            next_cursor,
            offset: filter.offset,
            limit,
        })
    }

    /// The project a `projectId` parameter names, when the principal may read its workloads.
    pub async fn readable_project(
        &self,
        principal: &Principal,
        key: &str,
    ) -> Result<Project, AppError> {
        let project = project_by_key(&self.db, principal, key, "projectId").await?;
        authorize::require(principal, Permission::ReadWorkloads, &project)?;
        Ok(project)
    }

    /// The ids of the projects whose workloads the principal may read: what an event stream
    /// shows.
    pub async fn readable_project_ids(
        &self,
        principal: &Principal,
    ) -> Result<HashSet<String>, AppError> {
        Ok(
            project_names_where(&self.db, principal, Permission::ReadWorkloads)
                .await?
                .into_iter()
                .map(|(id, _)| id.to_string())
                .collect(),
        )
    }

    /// The names of the projects where `principal` holds `permission`, or `None` for all of them.
    async fn projects_among(
        &self,
        principal: &Principal,
        permission: Permission,
    ) -> Result<Option<Vec<String>>, AppError> {
        if authorize::reach(principal, permission).everything {
            return Ok(None);
        }
        let projects = project_names_where(&self.db, principal, permission).await?;
        Ok(Some(projects.into_iter().map(|(_, name)| name).collect()))
    }

    /// Counts of what the principal may see only.
    pub async fn overview(&self, principal: &Principal) -> Result<Overview, AppError> {
        let among = self
            .projects_among(principal, Permission::ReadWorkloads)
            .await?;
        let projects = match &among {
            Some(names) => names.len() as i64,
            None => self.db.projects().count().await?,
        };
        Ok(Overview {
            projects,
            users: self.db.users().count().await?,
            trainings_by_phase: self.db.workloads().count_by_phase(among.as_deref()).await?,
        })
    }

    /// Who submitted, suspended, resumed or deleted the workload, and every phase it went
    /// through, oldest first. Deleted workloads keep their history.
    pub async fn history(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<Vec<HistoryEntry>, AppError> {
        let workload = self.listing(id, "workload").await?.workload;
        let project = self.db.projects().get(workload.project_id).await?;
        if !authorize::may(principal, Permission::ReadWorkloads, &project) {
            return Err(not_found("workload", id));
        }
        self.history_of(workload.id).await
    }

    /// Workload `id`'s history, for a caller that has checked who may read it.
    pub(super) async fn history_of(&self, id: uuid::Uuid) -> Result<Vec<HistoryEntry>, AppError> {
        let users = self.db.users().list().await?;
        let events = self
            .db
            .audit()
            .for_target(AuditTarget::Workload, id)
            .await?;
        Ok(events
            .into_iter()
            .filter_map(|e| Some((e.action.on_workload()?, e)))
            .map(|(action, e)| HistoryEntry {
                at: e.at.to_rfc3339_opts(SecondsFormat::Millis, true),
                action,
                actor: e.actor_id.and_then(|actor| {
                    users
                        .iter()
                        .find(|u| u.id == actor)
                        .map(|u| u.email.clone().unwrap_or_else(|| u.display_name.clone()))
                }),
                detail: e.detail,
            })
            .collect())
    }

    /// Its project's and department's GPUs in use against their quota and limit.
    pub async fn standing(
        &self,
        listing: &WorkloadListing,
    ) -> Result<Option<tephra_core::model::usage::Standing>, AppError> {
        use tephra_core::domain::quota::Allowance;
        use tephra_core::model::usage::{Standing, UnitGpus};
        let project = match self.db.projects().get(listing.workload.project_id).await {
            Ok(p) => p,
            Err(crate::db::DbError::NotFound) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let department = self.db.departments().get(project.department_id).await?;
        let (usage, _) = self.db.workloads().usage(department.id, project.id).await?;
        let (project_waits, department_waits) = self
            .db
            .workloads()
            .waiting_gpus(department.id, project.id)
            .await?;
        let unit = |name: &str,
                    asked: f64,
                    waiting: f64,
                    resources: &[tephra_core::model::org::PoolResources]| {
            let allowance = Allowance::of(resources);
            UnitGpus {
                name: name.to_owned(),
                in_use: (asked - waiting).max(0.0),
                waiting,
                quota: allowance.deserved.gpus,
                limit: allowance.limit.gpus,
            }
        };
        Ok(Some(Standing {
            project: unit(
                &project.name,
                usage.project.gpus,
                project_waits,
                &project.resources.0,
            ),
            department: unit(
                &department.name,
                usage.department.gpus,
                department_waits,
                &department.resources.0,
            ),
        }))
    }

    /// The rendered objects of a stored workload, as the controller creates them, or why they
    /// cannot be rendered any more.
    pub async fn rendered_yaml(&self, listing: &WorkloadListing) -> Result<String, String> {
        let w = &listing.workload;
        let project = self
            .db
            .projects()
            .get(w.project_id)
            .await
            .map_err(|e| e.to_string())?;
        let creator = self
            .db
            .users()
            .get(w.created_by)
            .await
            .map_err(|e| e.to_string())?;
        let rendered =
            crate::rendered::render(w, &project, &creator, &self.profile).map_err(|errors| {
                let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
                format!("the stored request no longer renders: {}", list.join("; "))
            })?;
        rendered.to_yaml().map_err(|e| e.to_string())
    }
}
