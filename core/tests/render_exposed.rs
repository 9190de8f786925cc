//! The exposed URLs a training asks for: a Service and, where the cluster has an ingress class
//! and host, an Ingress host each; behind Tephra's forward authentication when it is configured.

mod common;

use common::{placement, profile};
use serde_json::json;
use tephra_core::domain::cluster::ForwardAuth;
use tephra_core::domain::exposed::url_host;
use tephra_core::domain::render::exposed_url;
use tephra_core::domain::request::{Request, WorkloadKind};

#[test]
fn exposed_urls_get_a_service_and_an_ingress_host_each_where_the_cluster_has_a_class_and_host() {
    let value = json!({ "name": "notebook", "projectId": "ml",
        "spec": { "image": "jupyter/base-notebook", "exposedUrls": [
            { "container": 8888, "toolType": "jupyter" }, { "container": 6006 } ] } });
    let request = Request::parse(&value, WorkloadKind::Training).unwrap();
    let owner = request.owner(&placement(Some("default")));
    let in_cluster = request.render(&owner, &profile()).unwrap();
    assert!(in_cluster.ingresses.is_empty(), "no class, no Ingress");
    let service = serde_json::to_value(&in_cluster.services[0]).unwrap();
    assert_eq!(service["metadata"]["name"], "notebook-train-urls");
    assert_eq!(service["spec"]["type"], "ClusterIP");
    assert_eq!(
        service["spec"]["ports"],
        json!([{ "name": "url-8888", "port": 8888, "protocol": "TCP", "targetPort": 8888 },
               { "name": "url-6006", "port": 6006, "protocol": "TCP", "targetPort": 6006 }])
    );
    assert_eq!(service["spec"]["selector"]["volcano.sh/task-spec"], "train");

    let mut class_only = profile();
    class_only.ingress_class = Some("nginx".into());
    let hostless = request.render(&owner, &class_only).unwrap();
    assert!(
        hostless.ingresses.is_empty(),
        "no host, no Ingress: a hostless rule would put every training on one origin"
    );
    assert_eq!(hostless.services.len(), 1);

    let mut with_ingress = class_only.clone();
    with_ingress.ingress_host = Some("ml.example.com".into());
    let rendered = request.render(&owner, &with_ingress).unwrap();
    let ingress = serde_json::to_value(&rendered.ingresses[0]).unwrap();
    assert_eq!(ingress["metadata"]["name"], "notebook-urls");
    assert_eq!(ingress["spec"]["ingressClassName"], "nginx");
    let namespace = owner.namespace.as_str();
    for (i, port) in [8888, 6006].into_iter().enumerate() {
        let rule = &ingress["spec"]["rules"][i];
        let host = url_host("ml.example.com", namespace, "notebook", port);
        assert!(host.starts_with(&format!("notebook-{port}-")), "{host}");
        assert_eq!(rule["host"], host.as_str());
        assert_eq!(
            rule["http"]["paths"],
            json!([{ "path": "/", "pathType": "Prefix",
                     "backend": { "service": { "name": "notebook-train-urls",
                                               "port": { "number": port } } } }])
        );
        assert_eq!(
            exposed_url(&owner, port, &with_ingress),
            Some(format!("https://{host}/"))
        );
    }
    assert_eq!(exposed_url(&owner, 8888, &class_only), None);
    let annotations = ingress["metadata"]["annotations"].as_object().unwrap();
    assert!(
        !annotations.keys().any(|k| k.starts_with("nginx.")),
        "no forward auth in the profile, none on the Ingress"
    );

    // A restriction to some users is refused where an ingress would open the URL to everyone.
    let mut restricted = value.clone();
    restricted["spec"]["exposedUrls"][1]["authorizedGroups"] = json!(["ml-team"]);
    let request = Request::parse(&restricted, WorkloadKind::Training).unwrap();
    assert!(request.render(&owner, &profile()).is_ok());
    assert!(request.render(&owner, &class_only).is_ok());
    let refused = request.render(&owner, &with_ingress).unwrap_err();
    assert_eq!(refused[0].path, "spec.exposedUrls[1].authorizedGroups");
    assert!(
        refused[0]
            .message
            .starts_with("cannot be enforced on this cluster")
    );
}

#[test]
fn with_forward_auth_every_exposed_url_asks_tephra_and_restrictions_are_kept() {
    let value = json!({ "name": "notebook", "projectId": "ml",
        "spec": { "image": "jupyter/base-notebook", "exposedUrls": [
            { "container": 8888, "authorizedUsers": ["ada@example.org"] } ] } });
    let request = Request::parse(&value, WorkloadKind::Training).unwrap();
    let owner = request.owner(&placement(Some("default")));
    let mut guarded = profile();
    guarded.ingress_class = Some("nginx".into());
    guarded.ingress_host = Some("ml.example.com".into());
    guarded.forward_auth = Some(ForwardAuth {
        url: "https://tephra.example.org".into(),
        internal_url: Some("http://tephra.tephra-system.svc:3000/".into()),
    });
    let rendered = request.render(&owner, &guarded).unwrap();
    let ingress = serde_json::to_value(&rendered.ingresses[0]).unwrap();
    let annotations = &ingress["metadata"]["annotations"];
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/auth-url"],
        "http://tephra.tephra-system.svc:3000/auth/exposed/check"
    );
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/auth-signin"],
        "https://tephra.example.org/auth/exposed"
    );
    assert_eq!(
        annotations["nginx.ingress.kubernetes.io/auth-always-set-cookie"],
        "true"
    );
    assert_eq!(annotations["tephra.dev/requested-name"], "notebook");
}
