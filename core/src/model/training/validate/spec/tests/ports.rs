//! Container ports, their Services and the exposed URLs that point at them.

use super::*;

#[test]
fn container_ports_are_ports_listed_once() {
    accepts(json!({ "ports": [{ "container": 8080 }, { "container": 8081 }] }));
    refuses(
        json!({ "ports": [{ "container": 0 }] }),
        "spec.ports[0].container",
        "must be a port from 1 to 65535 (got 0)",
    );
    refuses(
        json!({ "ports": [{ "container": 8080 }, { "container": 8080 }] }),
        "spec.ports[1].container",
        "port 8080 is listed twice",
    );
}

#[test]
fn external_ports_of_node_ports_are_in_the_node_port_range() {
    let port = |service: &str, external: i64| json!({ "ports": [{ "container": 80, "serviceType": service, "external": external }] });
    accepts(port("NodePort", 30000));
    accepts(port("NodePort", 32767));
    refuses(
        port("NodePort", 8080),
        "spec.ports[0].external",
        "must be in the node port range 30000-32767 for NodePort (got 8080)",
    );
    accepts(port("LoadBalancer", 8080));
    accepts(port("ClusterIP", 65535));
    refuses(
        port("LoadBalancer", 65536),
        "spec.ports[0].external",
        "must be a port from 1 to 65535 (got 65536)",
    );
    refuses(
        json!({ "ports": [{ "container": 80, "external": 0 }] }),
        "spec.ports[0].external",
        "must be a port from 1 to 65535 (got 0)",
    );
}

#[test]
fn port_names_are_short_distinct_service_names() {
    accepts(json!({ "ports": [
        { "container": 80, "name": "http" }, { "container": 81, "name": "a23456789012345" }] }));
    refuses(
        json!({ "ports": [{ "container": 80, "name": "a234567890123456" }] }),
        "spec.ports[0].name",
        "must be 1 to 15 lowercase letters",
    );
    refuses(
        json!({ "ports": [{ "container": 80, "name": "8080" }] }),
        "spec.ports[0].name",
        "must contain at least one letter",
    );
    refuses(
        json!({ "ports": [{ "container": 80, "name": "web" }, { "container": 81, "name": "web" }] }),
        "spec.ports[1].name",
        "\"web\" is used twice",
    );
}

#[test]
fn exposed_urls_point_at_a_port() {
    accepts(json!({ "exposedUrls": [{ "container": 8888, "toolType": "jupyter" }] }));
    refuses(
        json!({ "exposedUrls": [{ "container": 8888 }, { "container": 8888 }] }),
        "spec.exposedUrls[1].container",
        "port 8888 has a URL already",
    );
    // Whether a restriction can be honoured depends on the cluster (the server's binding).
    accepts(json!({ "exposedUrls": [{ "container": 8888, "authorizedUsers": ["ada"] }] }));
    refuses(
        json!({ "exposedUrls": [{ "container": 70000 }] }),
        "spec.exposedUrls[0].container",
        "must be a port from 1 to 65535 (got 70000)",
    );
}
