//! `GET /api/openapi.json`: the OpenAPI 3 document of the REST API, generated from the handlers'
//! and types' annotations (utoipa), so it cannot drift from the code.

use super::{
    Accepted, ErrorBody, ErrorDetail, applications, audit, authorization, clusters, events,
    generic, gpu_metrics, kept_logs, logs, org_units, policies, projects, trainings, workloads,
};
use crate::http::AppState;
use axum::Json;
use axum::Router;
use axum::routing::get;
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tephra",
        description = "Trainings on Kubernetes with Volcano, in the shape of the Run:ai Trainings API."
    ),
    paths(
        trainings::submit_training,
        trainings::fit_training,
        trainings::fit_distributed,
        trainings::list_trainings,
        trainings::get_training,
        trainings::delete_training,
        trainings::edit_training,
        trainings::suspend_training,
        trainings::resume_training,
        trainings::submit_distributed,
        trainings::list_distributed,
        trainings::get_distributed,
        trainings::delete_distributed,
        trainings::edit_distributed,
        trainings::suspend_distributed,
        trainings::resume_distributed,
        generic::submit_generic,
        generic::list_generic,
        generic::get_generic,
        generic::suspend_generic,
        generic::resume_generic,
        generic::delete_generic,
        workloads::list_workloads,
        workloads::get_workload,
        events::stream_events,
        logs::pod_logs,
        kept_logs::kept_logs,
        gpu_metrics::workload_metrics,
        org_units::list_departments,
        org_units::create_department,
        org_units::get_department,
        org_units::update_department,
        org_units::delete_department,
        org_units::list_projects,
        org_units::create_project,
        org_units::get_project,
        org_units::update_project,
        org_units::delete_project,
        org_units::list_node_pools,
        clusters::list_clusters,
        clusters::get_cluster,
        policies::get_policy,
        policies::put_policy,
        policies::delete_policy,
        projects::history,
        projects::cluster_state,
        authorization::list_roles,
        authorization::list_rules,
        authorization::add_rule,
        authorization::get_rule,
        authorization::remove_rule,
        applications::list_apps,
        applications::create_app,
        applications::get_app,
        applications::revoke_app,
        applications::rotate_secret,
        applications::token,
        audit::list_audit,
    ),
    components(schemas(ErrorBody, ErrorDetail, Accepted))
)]
pub struct ApiDoc;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/openapi.json", get(document))
}

async fn document() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_describes_every_route() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let paths = doc["paths"].as_object().unwrap();
        for path in [
            "/api/v1/workloads/trainings",
            "/api/v1/workloads/trainings/{id}",
            "/api/v1/workloads/trainings/{id}/suspend",
            "/api/v1/workloads/trainings/{id}/resume",
            "/api/v1/workloads/distributed",
            "/api/v1/workloads/distributed/{id}",
            "/api/v1/workloads/events",
            "/api/v1/org-unit/projects",
            "/api/v1/clusters",
        ] {
            assert!(paths.contains_key(path), "{path} is missing");
        }
        assert!(doc["components"]["schemas"]["Workload"].is_object());
        assert!(doc["components"]["schemas"]["LiveStatus"].is_object());
        let spec = &doc["components"]["schemas"]["TrainingSpec"]["properties"];
        for field in ["image", "compute", "storage", "security", "tolerations"] {
            assert!(
                spec[field].is_object(),
                "the training spec documents {field}"
            );
        }
        assert!(doc["components"]["schemas"]["DistributedRequest"].is_object());
        let missing = &paths["/api/v1/workloads/trainings/{id}"]["get"]["responses"]["404"];
        assert_eq!(
            missing["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorBody",
            "error answers are ErrorBody: {missing}"
        );
        assert!(
            missing["description"]
                .as_str()
                .unwrap()
                .contains("Nothing by that id")
        );
    }

    #[test]
    fn every_path_parameter_is_declared() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        for (path, item) in doc["paths"].as_object().unwrap() {
            let wanted: Vec<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            for (method, operation) in item.as_object().unwrap() {
                let declared: Vec<&str> = operation["parameters"]
                    .as_array()
                    .map(|ps| {
                        ps.iter()
                            .filter(|p| p["in"] == "path")
                            .filter_map(|p| p["name"].as_str())
                            .collect()
                    })
                    .unwrap_or_default();
                for name in &wanted {
                    assert!(
                        declared.contains(name),
                        "{method} {path}: no parameter {name}"
                    );
                }
            }
        }
    }
}
