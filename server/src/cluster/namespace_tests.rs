use super::*;
use tephra_core::domain::labels;

const VISION: ProjectNamespace<'static> = ProjectNamespace {
    project: "vision",
    id: "6f1c2a52-0000-4000-8000-000000000001",
    namespace: "tephra-vision",
};

fn key() -> OwnerKey {
    OwnerKey::from_hex(&"5e".repeat(32)).expect("a key")
}

fn made(project: &str, id: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        labels: Some(BTreeMap::from([(
            labels::PROJECT.to_owned(),
            project.to_owned(),
        )])),
        annotations: id.map(|id| BTreeMap::from([(PROJECT_ID.to_owned(), id.to_owned())])),
        ..ObjectMeta::default()
    }
}

#[test]
fn a_namespace_made_for_another_project_is_not_taken_over() {
    let other = "6f1c2a52-0000-4000-8000-000000000002";
    assert_eq!(
        made_for_another(&made("vision", Some(VISION.id)), VISION),
        None
    );
    assert_eq!(
        made_for_another(&made("vision", Some(other)), VISION).as_deref(),
        Some(other),
        "the deleted vision's namespace, asked for by a new vision"
    );
    assert_eq!(
        made_for_another(&made("vision", None), VISION),
        None,
        "made before namespaces named their project's id: taken, and stamped"
    );
    let default = ProjectNamespace {
        project: "default",
        ..VISION
    };
    assert_eq!(
        made_for_another(&made("default", Some(other)), default),
        None,
        "the default project is never deleted: a new database's takes its namespace"
    );
    assert_eq!(
        made_for_another(&made("vision", Some(other)), default).as_deref(),
        Some(other)
    );
}

#[test]
fn the_network_policy_admits_the_namespace_and_the_ingress_controller_only() {
    let policy = network_policy(&key(), VISION, Some("ingress-nginx"));
    assert!(key().owns_installation(&policy.metadata));
    let spec = policy.spec.expect("a spec");
    assert_eq!(
        spec.pod_selector,
        Some(LabelSelector::default()),
        "every pod"
    );
    assert_eq!(spec.policy_types, Some(vec!["Ingress".to_owned()]));
    let rules = spec.ingress.expect("ingress rules");
    assert_eq!(rules.len(), 1);
    let from = rules[0].from.as_ref().expect("peers");
    assert_eq!(from.len(), 2);
    assert_eq!(from[0].pod_selector, Some(LabelSelector::default()));
    assert!(from[0].namespace_selector.is_none(), "this namespace only");
    let controller = from[1].namespace_selector.as_ref().expect("a namespace");
    assert_eq!(
        controller
            .match_labels
            .as_ref()
            .and_then(|l| l.get(NAMESPACE_NAME)),
        Some(&"ingress-nginx".to_owned())
    );
    let alone = network_policy(&key(), VISION, None).spec.expect("a spec");
    let from = alone.ingress.expect("rules")[0]
        .from
        .clone()
        .expect("peers");
    assert_eq!(from.len(), 1, "without a controller, the namespace alone");
}

#[test]
fn the_role_binding_binds_tephras_account_to_the_project_role() {
    let access = ProjectAccess {
        namespace: "tephra-system".into(),
        service_account: "tephra".into(),
        cluster_role: "tephra-project".into(),
    };
    let binding = role_binding(&key(), VISION, &access);
    assert!(key().owns_installation(&binding.metadata));
    assert_eq!(binding.metadata.namespace.as_deref(), Some("tephra-vision"));
    assert_eq!(binding.role_ref.kind, "ClusterRole");
    assert_eq!(binding.role_ref.name, "tephra-project");
    let subjects = binding.subjects.expect("subjects");
    assert_eq!(subjects.len(), 1);
    assert_eq!(subjects[0].kind, "ServiceAccount");
    assert_eq!(
        (subjects[0].namespace.as_deref(), subjects[0].name.as_str()),
        (Some("tephra-system"), "tephra")
    );
}
