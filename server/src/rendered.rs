//! A stored workload read back: its request parsed by the schema it was stored under and rendered
//! for its project and creator. The controller that creates the Job and the page that shows it
//! both render through here, so they cannot disagree.

use crate::db::projects::Project;
use crate::db::users::User;
use crate::db::workloads::StoredWorkload;
use tephra_core::domain::cluster::ClusterProfile;
use tephra_core::domain::labels::Owner;
use tephra_core::domain::quota::demand;
use tephra_core::domain::render::Rendered;
use tephra_core::domain::request::Request;
use tephra_core::model::validation::FieldError;

/// GPUs of all the workload's pods together, as its request asks for them; none if the stored
/// request no longer parses (a schema change), which the page reports elsewhere.
pub fn requested_gpus(row: &StoredWorkload) -> f64 {
    Request::parse(&row.spec, row.kind).map_or(0.0, |request| demand(&request).total.gpus)
}

pub fn render(
    row: &StoredWorkload,
    project: &Project,
    creator: &User,
    profile: &ClusterProfile,
) -> Result<Rendered, Vec<FieldError>> {
    let request = Request::parse(&row.spec, row.kind)?;
    render_parsed(row, &request, project, creator, profile)
}

/// [`render`] for a caller that has parsed the row's request already (the controller's create
/// checks it against the policies first).
pub fn render_parsed(
    row: &StoredWorkload,
    request: &Request,
    project: &Project,
    creator: &User,
    profile: &ClusterProfile,
) -> Result<Rendered, Vec<FieldError>> {
    let owner = Owner {
        id: row.id.to_string(),
        job_name: row.name.clone(),
        requested_name: row.requested_name.clone(),
        project: project.name.clone(),
        namespace: project.namespace.clone(),
        queue: project.queue.clone(),
        created_by: creator
            .email
            .clone()
            .unwrap_or_else(|| creator.display_name.clone()),
        kind: request.kind(),
        token_uid_gid: creator.uid.zip(creator.gid),
    };
    request.render(&owner, profile)
}
