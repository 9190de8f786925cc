//! The server side of the UI's port ([`app::backend::Backend`]): answers server functions from the
//! database on behalf of the authenticated principal.

use crate::auth::Authenticator;
use crate::db::{Database, DbError, workloads::WorkloadFilter};
use app::backend::Backend;
use app::error::AppError;
use app::model::{
    overview::Overview,
    principal::Principal,
    project::ProjectSummary,
    system::{SystemInfo, UserSummary},
    training::summary::TrainingSummary,
};
use chrono::{DateTime, SecondsFormat, Utc};

pub struct Services {
    pub db: Database,
    pub auth: Authenticator,
    pub started_at: DateTime<Utc>,
}

impl From<DbError> for AppError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::NotFound => AppError::NotFound("the requested object".to_owned()),
            DbError::Conflict(message) => AppError::Conflict(message),
            other => {
                // The details stay in the log; the browser only learns that it failed.
                tracing::error!(error = %other, "database error");
                AppError::Internal
            }
        }
    }
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// How many trainings a list shows at most until pagination arrives with the trainings API.
const LIST_LIMIT: i64 = 500;

#[async_trait::async_trait]
impl Backend for Services {
    async fn authenticate(&self, request: &http::request::Parts) -> Result<Principal, AppError> {
        self.auth.authenticate(request)
    }

    // Every principal sees everything until projects have members; the principal is already
    // threaded through so that membership checks land here, not in the callers.
    async fn overview(&self, _principal: &Principal) -> Result<Overview, AppError> {
        Ok(Overview {
            projects: self.db.projects().count().await?,
            users: self.db.users().count().await?,
            trainings_by_phase: self.db.workloads().count_by_phase().await?,
        })
    }

    async fn list_trainings(
        &self,
        _principal: &Principal,
    ) -> Result<Vec<TrainingSummary>, AppError> {
        let filter = WorkloadFilter {
            limit: Some(LIST_LIMIT),
            ..WorkloadFilter::default()
        };
        let listings = self.db.workloads().list(&filter).await?;
        Ok(listings
            .into_iter()
            .map(|l| TrainingSummary {
                id: l.workload.id.to_string(),
                name: l.workload.name,
                project: l.project_name,
                created_by: l.creator_name,
                desired_phase: l.workload.desired_phase,
                actual_phase: l.workload.actual_phase,
                created_at: rfc3339(l.workload.created_at),
            })
            .collect())
    }

    async fn list_projects(&self, _principal: &Principal) -> Result<Vec<ProjectSummary>, AppError> {
        let projects = self.db.projects().list().await?;
        Ok(projects
            .into_iter()
            .map(|p| ProjectSummary {
                id: p.project.id.to_string(),
                name: p.project.name,
                namespace: p.project.namespace,
                queue: p.project.queue,
                trainings: p.workloads,
                created_at: rfc3339(p.project.created_at),
            })
            .collect())
    }

    async fn system_info(&self, _principal: &Principal) -> Result<SystemInfo, AppError> {
        let users = self.db.users().list().await?;
        Ok(SystemInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            database: self.db.engine().as_str().to_owned(),
            started_at: rfc3339(self.started_at),
            users: users
                .into_iter()
                .map(|u| UserSummary {
                    display_name: u.display_name,
                    email: u.email,
                    last_seen_at: rfc3339(u.last_seen_at),
                })
                .collect(),
        })
    }
}
