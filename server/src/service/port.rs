//! The server side of the UI's port ([`app::backend::Backend`]): server functions reach the same
//! service methods the REST API calls, on behalf of the authenticated principal. Each method only
//! delegates to a noun.

use super::Services;
use super::access::roles;
use super::workloads::workload_response;
use app::backend::Backend;
use app::error::AppError;
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::access::{
    AccessRuleView, ApplicationView, AuditPage, AuditQuery, CreatedApplication, NewAccessRule,
    NewAppSecret, NewApplication,
};
use tephra_core::model::action::Action;
use tephra_core::model::edit::Edit;
use tephra_core::model::fit::Fit;
use tephra_core::model::gpu_use::GpuUse;
use tephra_core::model::org::{self, Organisation};
use tephra_core::model::org_form::QuotaFields;
use tephra_core::model::policy::{FormPolicy, PolicyField, PolicyKind};
use tephra_core::model::project::{ProjectSummary, ProjectUsage};
use tephra_core::model::workload::{Workload, WorkloadDetail, WorkloadPage, WorkloadQuery};
use tephra_core::model::{overview::Overview, principal::Principal, system::SystemInfo};

type Answer<T> = Result<T, AppError>;

#[async_trait::async_trait]
impl Backend for Services {
    async fn authenticate(&self, request: &http::request::Parts) -> Answer<Principal> {
        self.auth.authenticate(request).await
    }

    async fn overview(&self, principal: &Principal) -> Answer<Overview> {
        self.workloads.overview(principal).await
    }

    async fn list_workloads(&self, p: &Principal, query: &WorkloadQuery) -> Answer<WorkloadPage> {
        self.workloads.rows(p, query).await
    }

    async fn gpu_use(&self, principal: &Principal, id: &str) -> Answer<GpuUse> {
        self.workloads.gpu_use(principal, id).await
    }

    async fn workload_detail(&self, principal: &Principal, id: &str) -> Answer<WorkloadDetail> {
        self.workloads.detail(principal, id).await
    }

    async fn submit_workload(
        &self,
        principal: &Principal,
        kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Answer<Workload> {
        let accepted = self.workloads.submit(kind, principal, request).await?;
        Ok(accepted.response())
    }

    async fn preview_workload(
        &self,
        principal: &Principal,
        kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Answer<String> {
        self.workloads.preview(kind, principal, &request).await
    }

    async fn fit_workload(
        &self,
        principal: &Principal,
        kind: WorkloadKind,
        request: serde_json::Value,
    ) -> Answer<Fit> {
        self.workloads.fit(kind, principal, &request).await
    }

    async fn act_on_workload(&self, p: &Principal, id: &str, action: Action) -> Answer<Workload> {
        let listing = self.workloads.act(None, action, p, id).await?;
        Ok(workload_response(&listing))
    }

    async fn edit_workload(&self, p: &Principal, id: &str, edit: &Edit) -> Answer<Workload> {
        self.workloads.edit_from_form(p, id, edit).await
    }

    async fn list_projects(&self, principal: &Principal) -> Answer<Vec<ProjectSummary>> {
        self.organisation.project_summaries(principal).await
    }

    async fn project_usage(&self, principal: &Principal, project: &str) -> Answer<ProjectUsage> {
        self.organisation.project_usage(principal, project).await
    }

    async fn form_policy(&self, principal: &Principal, project: &str) -> Answer<FormPolicy> {
        self.organisation.form_policy(principal, project).await
    }

    /// The organisation page, with the access rules the principal may see and the roles.
    async fn organisation(&self, principal: &Principal) -> Answer<Organisation> {
        let mut organisation = self.organisation.page(principal).await?;
        organisation.members = self.access.members(principal).await?;
        organisation.roles = roles();
        Ok(organisation)
    }

    async fn add_member(&self, p: &Principal, rule: &NewAccessRule) -> Answer<AccessRuleView> {
        self.access.add_rule(p, rule).await
    }

    async fn remove_member(&self, principal: &Principal, id: i64) -> Answer<()> {
        self.access.remove_rule(principal, id).await.map(drop)
    }

    async fn save_department(
        &self,
        principal: &Principal,
        name: &str,
        quota: QuotaFields,
    ) -> Answer<org::Department> {
        self.organisation
            .save_department(principal, name, quota)
            .await
    }

    async fn save_project(
        &self,
        principal: &Principal,
        name: &str,
        department: &str,
        quota: QuotaFields,
        idle_minutes: &str,
    ) -> Answer<org::Project> {
        self.organisation
            .save_project(principal, name, department, quota, idle_minutes)
            .await
    }

    async fn delete_project(&self, principal: &Principal, name: &str) -> Answer<()> {
        self.organisation.delete_project(principal, name).await
    }

    async fn policy_text(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
    ) -> Answer<String> {
        self.organisation
            .policy_text(principal, scope, id, kind)
            .await
    }

    async fn try_policy(
        &self,
        principal: &Principal,
        scope: &str,
        id: &str,
        kind: PolicyKind,
        body: &str,
        save: bool,
    ) -> Answer<Vec<PolicyField>> {
        self.organisation
            .try_policy(principal, scope, id, kind, body, save)
            .await
    }

    async fn system_info(&self, principal: &Principal) -> Answer<SystemInfo> {
        self.access.system_info(principal, self.started_at).await
    }

    async fn list_applications(&self, principal: &Principal) -> Answer<Vec<ApplicationView>> {
        self.access.list_apps(principal).await
    }

    async fn create_application(
        &self,
        principal: &Principal,
        new: &NewApplication,
    ) -> Answer<CreatedApplication> {
        self.access.create_app(principal, new).await
    }

    async fn revoke_application(&self, principal: &Principal, id: &str) -> Answer<ApplicationView> {
        self.access.revoke_app(principal, id).await
    }

    async fn rotate_application_secret(
        &self,
        principal: &Principal,
        id: &str,
        new: &NewAppSecret,
    ) -> Answer<CreatedApplication> {
        self.access.rotate_app_secret(principal, id, new).await
    }

    async fn audit(&self, principal: &Principal, query: &AuditQuery) -> Answer<AuditPage> {
        self.access.audit(principal, query).await
    }
}
