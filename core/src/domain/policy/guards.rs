//! Node protection that a policy's field rules cannot say, checked on the typed request for every
//! pod spec it holds: tolerations and affinity that reach the control plane or every taint, NFS
//! from servers the platform did not list, Services outside the cluster, a probe aimed at another
//! host, and the root group. The cluster profile (the platform team's, not the API's) is the
//! only place that widens them.

use super::super::cluster::ClusterProfile;
use super::super::request::Request;
use crate::model::training::checked::Spec;
use crate::model::training::request::{ServiceType, TolerationOperator};
use crate::model::validation::{FieldError, index, join};

/// Node label and taint keys of control-plane nodes: a training never tolerates or seeks them.
const CONTROL_PLANE_KEYS: [&str; 2] = [
    "node-role.kubernetes.io/",
    "node.kubernetes.io/unschedulable",
];

/// Every pod spec a request renders, with where it is in the request.
pub fn pod_specs(request: &Request) -> Vec<(String, &Spec)> {
    match request {
        Request::Training(t) => vec![("spec".into(), t.spec())],
        Request::Distributed(d) => {
            let mut specs = vec![("spec".to_owned(), d.worker())];
            let at = d.request().spec.master_spec_path();
            if at != "spec" {
                specs.push((at.to_owned(), d.master()));
            }
            specs
        }
        Request::Generic(g) => g
            .replicas()
            .enumerate()
            .map(|(i, r)| (format!("spec.replicaSpecs[{i}].spec"), &r.spec))
            .collect(),
    }
}

/// Everything in `request` node protection refuses, by field.
pub fn refusals(request: &Request, profile: &ClusterProfile) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (at, spec) in pod_specs(request) {
        check_spec(&at, spec, profile, &mut errors);
    }
    errors
}

fn refuse(errors: &mut Vec<FieldError>, path: String, message: impl Into<String>) {
    errors.push(FieldError {
        path,
        message: format!("{} (node protection)", message.into()),
    });
}

fn control_plane(key: &str) -> bool {
    CONTROL_PLANE_KEYS.iter().any(|k| key.starts_with(k))
}

fn check_spec(at: &str, spec: &Spec, profile: &ClusterProfile, errors: &mut Vec<FieldError>) {
    for (i, t) in spec.tolerations.iter().enumerate() {
        let path = index(&join(at, "tolerations"), i);
        match t.key.as_deref() {
            None | Some("") if t.operator == TolerationOperator::Exists => refuse(
                errors,
                join(&path, "key"),
                "is required: a toleration without a key tolerates every taint, the control \
                 plane's included",
            ),
            Some(key) if control_plane(key) => refuse(
                errors,
                join(&path, "key"),
                format!("{key:?} marks control-plane nodes, where trainings never run"),
            ),
            _ => {}
        }
    }
    for (t, term) in spec.pod.node_affinity.iter().enumerate() {
        for (r, requirement) in term.0.iter().enumerate() {
            if control_plane(&requirement.key) {
                let path = format!(
                    "{at}.nodeAffinityRequired.nodeSelectorTerms[{t}].matchExpressions[{r}].key"
                );
                refuse(
                    errors,
                    path,
                    format!(
                        "{:?} selects control-plane nodes, where trainings never run",
                        requirement.key
                    ),
                );
            }
        }
    }
    check_storage(at, spec, profile, errors);
    for (i, port) in spec.ports.iter().enumerate() {
        if let Some(kind) = port.service_type
            && kind != ServiceType::ClusterIP
            && !profile.service_types.contains(&kind)
        {
            refuse(
                errors,
                join(&index(&join(at, "ports"), i), "serviceType"),
                format!(
                    "{kind:?} opens the port outside the cluster; this cluster offers {}",
                    offered_service_types(profile)
                ),
            );
        }
    }
    if spec.readiness.as_ref().is_some_and(|p| p.host.is_some()) {
        refuse(
            errors,
            join(at, "probes.readiness.handler.httpGet.host"),
            "must not be set: the kubelet would send the probe to another host on the node's network",
        );
    }
    if let Some(security) = &spec.security
        && security.supplemental_groups.as_slice().contains(&0)
    {
        refuse(
            errors,
            join(at, "security.supplementalGroups"),
            "must not contain 0, the root group",
        );
    }
}

/// Storage that reaches outside the cluster's offer: NFS exports and S3 endpoints the profile
/// does not list.
fn check_storage(at: &str, spec: &Spec, profile: &ClusterProfile, errors: &mut Vec<FieldError>) {
    for (i, nfs) in spec.storage.nfs.iter().enumerate() {
        let allowed = profile
            .nfs_exports
            .iter()
            .any(|e| e.server == nfs.server && nfs.path.as_str().starts_with(&e.path_prefix));
        if !allowed {
            let listed: Vec<String> = profile
                .nfs_exports
                .iter()
                .map(|e| format!("{}:{}", e.server, e.path_prefix))
                .collect();
            refuse(
                errors,
                index(&join(at, "storage.nfs"), i),
                format!(
                    "{}:{} is not an export the cluster profile offers ({})",
                    nfs.server,
                    nfs.path.as_str(),
                    if listed.is_empty() {
                        "none".to_owned()
                    } else {
                        listed.join(", ")
                    }
                ),
            );
        }
    }
    for (i, s3) in spec.storage.s3.iter().enumerate() {
        let Some(url) = s3.url.as_deref() else {
            continue;
        };
        if !profile.s3_endpoints.iter().any(|e| same_endpoint(e, url)) {
            refuse(
                errors,
                join(&index(&join(at, "storage.s3"), i), "url"),
                format!(
                    "{url:?} is not an S3 endpoint the cluster profile offers ({}); leave it out \
                     to use the cluster's default",
                    if profile.s3_endpoints.is_empty() {
                        "none".to_owned()
                    } else {
                        profile.s3_endpoints.join(", ")
                    }
                ),
            );
        }
    }
}

/// Whether two S3 endpoint URLs name the same place: scheme and host in any case, with or
/// without a trailing slash.
fn same_endpoint(offered: &str, asked: &str) -> bool {
    let norm = |u: &str| u.trim_end_matches('/').to_ascii_lowercase();
    norm(offered) == norm(asked)
}

fn offered_service_types(profile: &ClusterProfile) -> String {
    let mut offered = vec!["ClusterIP".to_owned()];
    offered.extend(
        profile
            .service_types
            .iter()
            .filter(|t| **t != ServiceType::ClusterIP)
            .map(|t| format!("{t:?}")),
    );
    offered.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::cluster::NfsExport;
    use crate::domain::request::WorkloadKind;
    use serde_json::{Value, json};

    fn refused(kind: WorkloadKind, request: Value, profile: &ClusterProfile) -> Vec<String> {
        let request = Request::parse(&request, kind).expect("a valid request");
        refusals(&request, profile)
            .into_iter()
            .map(|e| format!("{}: {}", e.path, e.message))
            .collect()
    }

    fn training(spec: Value) -> Value {
        json!({ "name": "t", "projectId": "p", "spec": spec })
    }

    #[test]
    fn what_reaches_past_the_pod_is_refused_by_default() {
        let spec = json!({
            "image": "x",
            "tolerations": [{ "operator": "Exists" },
                            { "key": "node-role.kubernetes.io/control-plane", "operator": "Exists" },
                            { "key": "gpu", "operator": "Exists" }],
            "nodeAffinityRequired": { "nodeSelectorTerms": [{ "matchExpressions": [
                { "key": "node-role.kubernetes.io/control-plane", "operator": "Exists" }] }] },
            "storage": { "nfs": [{ "name": "n", "server": "10.0.0.1", "path": "/", "mountPath": "/n" }] },
            "ports": [{ "container": 80, "serviceType": "LoadBalancer" },
                      { "container": 81, "serviceType": "NodePort" },
                      { "container": 82, "serviceType": "ClusterIP" }],
            "probes": { "readiness": { "handler": { "httpGet": { "port": 80, "host": "10.0.0.2" } } } },
            "security": { "supplementalGroups": "5,0" }
        });
        let found = refused(
            WorkloadKind::Training,
            training(spec),
            &ClusterProfile::default(),
        );
        let paths: Vec<&str> = found
            .iter()
            .map(|f| f.split(": ").next().unwrap_or(""))
            .collect();
        assert_eq!(
            paths,
            [
                "spec.tolerations[0].key",
                "spec.tolerations[1].key",
                "spec.nodeAffinityRequired.nodeSelectorTerms[0].matchExpressions[0].key",
                "spec.storage.nfs[0]",
                "spec.ports[0].serviceType",
                "spec.ports[1].serviceType",
                "spec.probes.readiness.handler.httpGet.host",
                "spec.security.supplementalGroups",
            ],
            "{found:#?}"
        );
        assert!(found.iter().all(|f| f.ends_with("(node protection)")));
        assert!(
            found[3].contains("not an export the cluster profile offers (none)"),
            "{}",
            found[3]
        );
    }

    #[test]
    fn the_profile_offers_nfs_exports_and_service_types() {
        let profile = ClusterProfile {
            nfs_exports: vec![NfsExport {
                server: "nfs.example.org".into(),
                path_prefix: "/exports/".into(),
            }],
            service_types: vec![ServiceType::NodePort],
            ..ClusterProfile::default()
        };
        let nfs = |server: &str, path: &str| {
            training(json!({ "image": "x", "storage": { "nfs": [
                { "name": "n", "server": server, "path": path, "mountPath": "/n" }] } }))
        };
        assert!(
            refused(
                WorkloadKind::Training,
                nfs("nfs.example.org", "/exports/data"),
                &profile
            )
            .is_empty()
        );
        assert_eq!(
            refused(
                WorkloadKind::Training,
                nfs("nfs.example.org", "/etc"),
                &profile
            )
            .len(),
            1
        );
        assert_eq!(
            refused(
                WorkloadKind::Training,
                nfs("evil.example.org", "/exports/data"),
                &profile
            )
            .len(),
            1
        );
        let port = |kind: &str| {
            training(json!({ "image": "x", "ports": [{ "container": 80, "serviceType": kind }] }))
        };
        assert!(refused(WorkloadKind::Training, port("NodePort"), &profile).is_empty());
        let lb = refused(WorkloadKind::Training, port("LoadBalancer"), &profile);
        assert!(
            lb[0].contains("this cluster offers ClusterIP, NodePort"),
            "{lb:?}"
        );
    }

    #[test]
    fn s3_endpoints_are_the_profiles_or_the_default() {
        let s3 = |url: Option<&str>| {
            let mut bucket = json!({ "name": "b", "bucket": "data", "path": "/data" });
            if let Some(url) = url {
                bucket["url"] = json!(url);
            }
            training(json!({ "image": "x", "storage": { "s3": [bucket] } }))
        };
        let none = ClusterProfile::default();
        assert!(refused(WorkloadKind::Training, s3(None), &none).is_empty());
        let metadata = refused(
            WorkloadKind::Training,
            s3(Some("http://169.254.169.254")),
            &none,
        );
        assert_eq!(metadata.len(), 1, "{metadata:?}");
        assert!(
            metadata[0].starts_with("spec.storage.s3[0].url: \"http://169.254.169.254\" is not"),
            "{metadata:?}"
        );
        let offered = ClusterProfile {
            s3_endpoints: vec!["https://s3.example.org/".into()],
            ..ClusterProfile::default()
        };
        let ok = s3(Some("https://S3.Example.org"));
        assert!(refused(WorkloadKind::Training, ok, &offered).is_empty());
        let other = s3(Some("https://s3.example.org.evil.net"));
        assert_eq!(refused(WorkloadKind::Training, other, &offered).len(), 1);
    }

    /// Every pod spec is checked: a distributed training's top-level `masterSpec` too.
    #[test]
    fn the_master_spec_is_checked_where_it_is() {
        let request = json!({
            "name": "d", "projectId": "p",
            "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 1 },
            "masterSpecSameAsWorker": false,
            "masterSpec": { "image": "x", "tolerations": [{ "operator": "Exists" }] }
        });
        let found = refused(
            WorkloadKind::Distributed,
            request,
            &ClusterProfile::default(),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("masterSpec.tolerations[0].key"),
            "{found:?}"
        );
    }
}
