//! Which exposed URL a host names, and whether a principal may open it: the forward-auth check
//! and the handshake (`crate::http::exposed`) both decide here, through `crate::authorize`.

use super::Workloads;
use crate::authorize;
use crate::db::projects::Project;
use app::error::AppError;
use tephra_core::domain::authz::Permission;
use tephra_core::domain::exposed::{HostLabel, host_label};
use tephra_core::domain::request::Request;
use tephra_core::model::principal::Principal;
use tephra_core::model::training::checked::ExposedUrl;

/// Workloads looked at for one host: the host keeps the Job name (or its first 46 characters),
/// so more than a few sharing it means names chosen to collide.
const CANDIDATES: i64 = 20;

/// A live workload's exposed URL and the project it runs in.
#[derive(Debug, Clone)]
pub struct ExposedTarget {
    pub project: Project,
    pub url: ExposedUrl,
}

impl Workloads {
    /// The live workload's exposed URL that `label` is the host of, if there is one.
    pub async fn exposed_target(
        &self,
        label: &HostLabel,
    ) -> Result<Option<ExposedTarget>, AppError> {
        let candidates = self
            .db
            .workloads()
            .live_by_name_prefix(&label.job_prefix, CANDIDATES)
            .await?;
        for row in candidates {
            let project = self.db.projects().get(row.project_id).await?;
            if host_label(&project.namespace, &row.name, label.port) != label.label {
                continue;
            }
            // A stored request that no longer parses renders nothing, so exposes nothing.
            let Ok(request) = Request::parse(&row.spec, row.kind) else {
                continue;
            };
            let url = request
                .url_spec()
                .exposed_urls
                .iter()
                .find(|url| url.container == label.port);
            if let Some(url) = url {
                return Ok(Some(ExposedTarget {
                    project,
                    url: url.clone(),
                }));
            }
        }
        Ok(None)
    }
}

/// Fails with 403 unless `principal` may open `target`: read access to the project's workloads,
/// and, where the URL lists `authorizedUsers` or `authorizedGroups`, a place on either list (by
/// user id, subject or e-mail; by group).
pub fn may_open(principal: &Principal, target: &ExposedTarget) -> Result<(), AppError> {
    if principal.application.is_some() {
        return Err(AppError::Forbidden(
            "exposed URLs are opened by people in a browser, not by applications".into(),
        ));
    }
    authorize::require(principal, Permission::ReadWorkloads, &target.project)?;
    let url = &target.url;
    if url.authorized_users.is_empty() && url.authorized_groups.is_empty() {
        return Ok(());
    }
    let named = url.authorized_users.iter().any(|user| {
        *user == principal.user_id
            || *user == principal.subject
            || principal
                .email
                .as_deref()
                .is_some_and(|email| email.eq_ignore_ascii_case(user))
    });
    let in_group = url
        .authorized_groups
        .iter()
        .any(|group| principal.groups.contains(group));
    if named || in_group {
        Ok(())
    } else {
        Err(AppError::Forbidden(
            "this URL is open only to the users and groups its workload lists \
             (authorizedUsers, authorizedGroups)"
                .into(),
        ))
    }
}
