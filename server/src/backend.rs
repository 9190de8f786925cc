//! The server side of the UI's port ([`app::backend::Backend`]): answers server functions from the
//! database on behalf of the authenticated principal.

use crate::auth::Authenticator;
use crate::control::{Control, workload_response};
use app::backend::Backend;
use app::error::AppError;
use chrono::{DateTime, SecondsFormat, Utc};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::access::{
    ApplicationView, AuditPage, AuditQuery, CreatedApplication, NewAppSecret, NewApplication,
};
use tephra_core::model::action::Action;
use tephra_core::model::gpu_use::GpuUse;
use tephra_core::model::org::{self, Organisation};
use tephra_core::model::org_form::QuotaFields;
use tephra_core::model::policy::{PolicyField, PolicyKind};
use tephra_core::model::workload::{
    Workload, WorkloadDetail, WorkloadPage, WorkloadQuery, WorkloadRow,
};
use tephra_core::model::{
    overview::Overview,
    principal::Principal,
    project::ProjectSummary,
    system::{SystemInfo, UserSummary},
};

pub struct Services {
    pub control: Control,
    pub auth: Authenticator,
    pub started_at: DateTime<Utc>,
}

impl Services {
    fn governance(&self) -> crate::governance::Governance {
        crate::governance::Governance::new(&self.control.db)
    }
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[async_trait::async_trait]
impl Backend for Services {
    async fn authenticate(&self, request: &http::request::Parts) -> Result<Principal, AppError> {
        self.auth.authenticate(request).await
    }

    async fn overview(&self, principal: &Principal) -> Result<Overview, AppError> {
        self.control.overview(principal).await
    }

    async fn list_workloads(
        &self,
        principal: &Principal,
        query: &WorkloadQuery,
    ) -> Result<WorkloadPage, AppError> {
        let mut page = self.control.list(None, principal, query).await?;
        self.control.fill_gpu_use(&mut page.workloads).await;
        Ok(WorkloadPage {
            workloads: page.workloads.iter().map(WorkloadRow::from).collect(),
            total: page.total,
            next: page.next,
            offset: page.offset,
            limit: page.limit,
        })
    }

    async fn gpu_use(&self, principal: &Principal, id: &str) -> Result<GpuUse, AppError> {
        self.control.gpu_use(principal, id).await
    }

    async fn workload_detail(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<WorkloadDetail, AppError> {
        let listing = self.control.find(None, principal, id).await?;
        let history = self.control.history(principal, id).await?;
        let rendered_yaml = self.control.rendered_yaml(&listing).await;
        let standing = self.control.standing(&listing).await?;
        Ok(WorkloadDetail {
            workload: workload_response(&listing),
            history,
            rendered_yaml,
            standing,
        })
    }

    async fn submit_workload(
        &self,
        principal: &Principal,
        workload_kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Result<Workload, AppError> {
        let accepted = self
            .control
            .submit(workload_kind, principal, request)
            .await?;
        Ok(accepted.response())
    }

    async fn preview_workload(
        &self,
        principal: &Principal,
        workload_kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Result<String, AppError> {
        Ok(self
            .control
            .preview(workload_kind, principal, &request)
            .await?)
    }

    async fn fit_workload(
        &self,
        principal: &Principal,
        workload_kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Result<tephra_core::model::fit::Fit, AppError> {
        self.control.fit(workload_kind, principal, &request).await
    }

    async fn act_on_workload(
        &self,
        principal: &Principal,
        id: &str,
        action: Action,
    ) -> Result<Workload, AppError> {
        let listing = self.control.act(None, action, principal, id).await?;
        Ok(workload_response(&listing))
    }

    async fn edit_workload(
        &self,
        principal: &Principal,
        id: &str,
        edit: &tephra_core::model::edit::Edit,
    ) -> Result<Workload, AppError> {
        let body = serde_json::to_value(edit).map_err(|_| AppError::Internal)?;
        let listing = self.control.edit(None, principal, id, &body).await?;
        Ok(workload_response(&listing))
    }

    async fn list_projects(&self, principal: &Principal) -> Result<Vec<ProjectSummary>, AppError> {
        self.control.project_summaries(principal).await
    }

    async fn project_usage(
        &self,
        principal: &Principal,
        project: &str,
    ) -> Result<tephra_core::model::project::ProjectUsage, AppError> {
        self.control.project_usage(principal, project).await
    }

    async fn form_policy(
        &self,
        principal: &Principal,
        project: &str,
    ) -> Result<tephra_core::model::policy::FormPolicy, AppError> {
        self.control.form_policy(principal, project).await
    }

    async fn organisation(&self, principal: &Principal) -> Result<Organisation, AppError> {
        let mut organisation = self.control.organisation(principal).await?;
        let every_rule = Default::default();
        let governance = self.governance();
        organisation.members = governance
            .list_rules(principal, &every_rule)
            .await?
            .access_rules;
        organisation.roles = crate::governance::rules::roles();
        Ok(organisation)
    }

    async fn add_member(
        &self,
        principal: &Principal,
        rule: &tephra_core::model::access::NewAccessRule,
    ) -> Result<tephra_core::model::access::AccessRuleView, AppError> {
        self.governance().add_rule(principal, rule).await
    }

    async fn remove_member(&self, principal: &Principal, id: i64) -> Result<(), AppError> {
        self.governance()
            .remove_rule(principal, id)
            .await
            .map(|_| ())
    }

    async fn save_department(
        &self,
        principal: &Principal,
        name: &str,
        quota: QuotaFields,
    ) -> Result<org::Department, AppError> {
        self.control.save_department(principal, name, quota).await
    }

    async fn save_project(
        &self,
        principal: &Principal,
        name: &str,
        department: &str,
        quota: QuotaFields,
        idle_minutes: &str,
    ) -> Result<org::Project, AppError> {
        self.control
            .save_project(principal, name, department, quota, idle_minutes)
            .await
    }

    async fn delete_project(&self, principal: &Principal, name: &str) -> Result<(), AppError> {
        self.control.delete_project(principal, name).await
    }

    async fn policy_text(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
    ) -> Result<String, AppError> {
        self.control.policy_text(principal, scope, id, kind).await
    }

    async fn try_policy(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
        body: &str,
        save: bool,
    ) -> Result<Vec<PolicyField>, AppError> {
        self.control
            .try_policy(principal, scope, id, kind, body, save)
            .await
    }

    async fn system_info(&self, principal: &Principal) -> Result<SystemInfo, AppError> {
        let users = self.governance().users(principal).await?;
        Ok(SystemInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            database: self.control.db.engine().as_str().to_owned(),
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

    async fn list_applications(
        &self,
        principal: &Principal,
    ) -> Result<Vec<ApplicationView>, AppError> {
        self.governance().list_apps(principal).await
    }

    async fn create_application(
        &self,
        principal: &Principal,
        new: &NewApplication,
    ) -> Result<CreatedApplication, AppError> {
        self.governance().create_app(principal, new).await
    }

    async fn revoke_application(
        &self,
        principal: &Principal,
        id: &str,
    ) -> Result<ApplicationView, AppError> {
        self.governance().revoke_app(principal, id).await
    }

    async fn rotate_application_secret(
        &self,
        principal: &Principal,
        id: &str,
        new: &NewAppSecret,
    ) -> Result<CreatedApplication, AppError> {
        self.governance()
            .rotate_app_secret(principal, id, new)
            .await
    }

    async fn audit(
        &self,
        principal: &Principal,
        query: &AuditQuery,
    ) -> Result<AuditPage, AppError> {
        self.governance().audit(principal, query).await
    }
}
