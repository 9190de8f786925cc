//! The fields every kind of training has around its spec: its name, project and cluster.

use super::is_uuid;
use crate::model::training::request::ProjectId;
use crate::model::training::{NAME_MAX, PREFIX_MAX};
use crate::model::validation::{self as v, Errors};

pub(super) fn header(
    errors: &mut Errors,
    name: &str,
    prefix: Option<bool>,
    project: &ProjectId,
    cluster: &Option<String>,
) {
    let max = if prefix == Some(true) {
        PREFIX_MAX
    } else {
        NAME_MAX
    };
    if let Err(message) = v::dns1123_label(name, max) {
        let why = if prefix == Some(true) {
            " (a random suffix of 6 characters is added)"
        } else {
            " (pod names <name>-<task>-<index> must stay within 63)"
        };
        errors.add("name", format!("{message}{why}"));
    }
    match project {
        ProjectId::Text(s) if s.trim().is_empty() => errors.add("projectId", "is required"),
        _ => {}
    }
    if let Some(cluster) = cluster
        && !is_uuid(cluster)
    {
        errors.add("clusterId", format!("must be a UUID (got {cluster:?})"));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{accepted, assert_one, refused};
    use serde_json::{Value, json};

    fn named(name: &str, prefix: Option<bool>) -> Value {
        json!({ "name": name, "useGivenNameAsPrefix": prefix, "projectId": "p",
                "spec": { "image": "x" } })
    }

    #[test]
    fn a_name_leaves_room_for_the_task_and_index_in_pod_names() {
        accepted(named(&"a".repeat(48), None));
        accepted(named(&"a".repeat(48), Some(false)));
        assert_one(
            &refused(named(&"a".repeat(49), None)),
            "name",
            "must be 1 to 48 lowercase letters, digits or '-', starting and ending with a letter or \
             digit (got 49 characters) (pod names <name>-<task>-<index> must stay within 63)",
        );
        assert_one(
            &refused(named("Bad_Name", None)),
            "name",
            "(got \"Bad_Name\") (pod names",
        );
    }

    #[test]
    fn a_name_used_as_a_prefix_leaves_room_for_the_random_suffix() {
        accepted(named(&"a".repeat(42), Some(true)));
        assert_one(
            &refused(named(&"a".repeat(43), Some(true))),
            "name",
            "must be 1 to 42 lowercase letters, digits or '-', starting and ending with a letter or \
             digit (got 43 characters) (a random suffix of 6 characters is added)",
        );
    }

    #[test]
    fn a_project_is_required() {
        for project in [json!(7), json!("p"), json!(" p ")] {
            accepted(json!({ "name": "a", "projectId": project, "spec": { "image": "x" } }));
        }
        for project in ["", "  "] {
            assert_one(
                &refused(json!({ "name": "a", "projectId": project, "spec": { "image": "x" } })),
                "projectId",
                "is required",
            );
        }
    }

    #[test]
    fn a_cluster_is_named_by_its_uuid() {
        accepted(
            json!({ "name": "a", "projectId": "p", "spec": { "image": "x" },
                         "clusterId": "123e4567-e89b-12d3-a456-426614174000" }),
        );
        assert_one(
            &refused(
                json!({ "name": "a", "projectId": "p", "spec": { "image": "x" },
                             "clusterId": "prod" }),
            ),
            "clusterId",
            "must be a UUID (got \"prod\")",
        );
    }
}
