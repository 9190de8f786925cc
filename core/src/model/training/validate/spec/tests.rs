use super::super::tests::{accepted, accepts, assert_one, paths, refused, refuses, request, warns};
use serde_json::json;

mod ports;

#[test]
fn every_section_reports_in_the_order_of_the_spec() {
    let errors = refused(request(json!({
        "image": "a b", "command": "'", "args": "\"", "workingDir": "w",
        "probes": { "readiness": {} }, "nodeType": "", "nodePools": [""],
        "podAffinity": { "type": "Required", "key": "" },
        "environmentVariables": [{ "name": "A" }],
        "annotations": [{ "name": "a" }], "labels": [{ "name": "l" }],
        "tolerations": [{}], "autoDeletionTimeAfterCompletionSeconds": -1, "backoffLimit": -1,
        "ports": [{ "container": 0 }], "exposedUrls": [{ "container": 0 }],
        "priorityClass": "P", "compute": { "gpuDevicesRequest": -1 },
        "storage": { "dataVolume": [{ "id": "x", "mountPath": "/d" }] },
        "security": { "uidGidSource": "custom", "runAsUid": -1 },
        "category": "not a label"
    })));
    assert_eq!(
        paths(&errors),
        [
            "spec.image",
            "spec.command",
            "spec.args",
            "spec.workingDir",
            "spec.probes.readiness.handler.httpGet",
            "spec.nodeType",
            "spec.nodePools[0]",
            "spec.podAffinity.key",
            "spec.environmentVariables[0]",
            "spec.annotations[0].value",
            "spec.labels[0].value",
            "spec.tolerations[0].key",
            "spec.autoDeletionTimeAfterCompletionSeconds",
            "spec.backoffLimit",
            "spec.ports[0].container",
            "spec.exposedUrls[0].container",
            "spec.priorityClass",
            "spec.compute.gpuDevicesRequest",
            "spec.storage.dataVolume[0].id",
            "spec.security.runAsUid",
            "spec.category",
        ]
    );
}

#[test]
fn an_image_is_required_and_has_no_spaces() {
    accepts(json!({ "image": " pytorch/pytorch:2.4.0 " }));
    let required = "is required: the container image to run, e.g. pytorch/pytorch";
    let no_image = json!({ "name": "a", "projectId": "p", "spec": {} });
    assert_one(&refused(no_image), "spec.image", required);
    refuses(json!({ "image": "  " }), "spec.image", required);
    refuses(
        json!({ "image": "pytorch /pytorch" }),
        "spec.image",
        "must not contain spaces (got \"pytorch /pytorch\")",
    );
}

#[test]
fn pull_secrets_are_secret_names_listed_once() {
    accepts(json!({ "imagePullSecrets": ["registry", "mirror.example"] }));
    accepts(json!({ "imagePullSecrets": [] }));
    refuses(
        json!({ "imagePullSecrets": ["registry", "Registry"] }),
        "spec.imagePullSecrets[1]",
        "lowercase letters, digits, '-' or '.'",
    );
    refuses(
        json!({ "imagePullSecrets": ["registry", "registry"] }),
        "spec.imagePullSecrets[1]",
        "lists \"registry\" twice",
    );
}

#[test]
fn command_and_args_split_into_words() {
    accepts(json!({ "command": "python -c 'print(1)'", "args": "--lr \"0.1\"" }));
    refuses(
        json!({ "command": "echo 'open" }),
        "spec.command",
        "has an unterminated single quote; it is split into words like a shell does",
    );
    refuses(
        json!({ "args": "trailing\\" }),
        "spec.args",
        "ends with a lone backslash; it is split",
    );
}

#[test]
fn the_working_dir_is_absolute() {
    accepts(json!({ "workingDir": "/workspace" }));
    refuses(
        json!({ "workingDir": "workspace" }),
        "spec.workingDir",
        "must be an absolute path",
    );
}

#[test]
fn probe_numbers_fit_int32_and_start_at_their_minimum() {
    let probe = |field: &str, n: i64| {
        json!({ "probes": { "readiness": { field: n,
            "handler": { "httpGet": { "port": 8080 } } } } })
    };
    for (field, min) in [
        ("initialDelaySeconds", 0),
        ("periodSeconds", 1),
        ("timeoutSeconds", 1),
        ("successThreshold", 1),
        ("failureThreshold", 1),
    ] {
        accepts(probe(field, min));
        accepts(probe(field, 2147483647));
        refuses(
            probe(field, min - 1),
            &format!("spec.probes.readiness.{field}"),
            &format!("must be between {min} and 2147483647 (got {})", min - 1),
        );
    }
}

#[test]
fn a_probe_makes_an_http_get_to_a_port() {
    let get = |get: serde_json::Value| json!({ "probes": { "readiness": { "handler": { "httpGet": get } } } });
    let at = "spec.probes.readiness.handler.httpGet";
    accepts(get(
        json!({ "port": 8080, "path": "/ready", "host": "svc.local" }),
    ));
    accepts(get(json!({ "port": 1, "host": "10.0.0.1" })));
    accepts(get(json!({ "port": 65535, "host": "::1" })));
    refuses(
        json!({ "probes": { "readiness": { "handler": {} } } }),
        at,
        "is required: the readiness probe needs an HTTP GET",
    );
    refuses(get(json!({})), &format!("{at}.port"), "is required");
    refuses(
        get(json!({ "port": 65536 })),
        &format!("{at}.port"),
        "must be a port from 1 to 65535 (got 65536)",
    );
    warns(
        get(json!({ "port": 80, "path": "ready" })),
        &format!("{at}.path"),
        "does not start with '/'; the probe requests \"/ready\"",
    );
    refuses(
        get(json!({ "port": 80, "host": "Not A Host" })),
        &format!("{at}.host"),
        "must be a host name or IP address (got \"Not A Host\")",
    );
}

#[test]
fn environment_variables_have_a_printable_name_once() {
    accepts(json!({ "environmentVariables": [
        { "name": "A.b-1", "value": "" }, { "name": "B", "value": "x" }] }));
    refuses(
        json!({ "environmentVariables": [{ "name": "A=B", "value": "1" }] }),
        "spec.environmentVariables[0].name",
        "must be printable ASCII characters other than '=' and spaces (got \"A=B\")",
    );
    refuses(
        json!({ "environmentVariables": [
            { "name": "A", "value": "1" }, { "name": "A", "value": "2" }] }),
        "spec.environmentVariables[1].name",
        "\"A\" is set twice",
    );
}

#[test]
fn environment_variables_have_a_value_or_a_secret_unless_excluded() {
    let env = |var: serde_json::Value| json!({ "environmentVariables": [var] });
    let at = "spec.environmentVariables[0]";
    accepts(env(json!({ "name": "A", "exclude": true })));
    accepts(env(json!({ "name": "A", "exclude": false, "value": "1" })));
    accepts(env(
        json!({ "name": "A", "secret": { "name": "creds", "key": "token.txt" } }),
    ));
    refuses(
        env(json!({ "name": "A", "exclude": true, "value": "1" })),
        at,
        "an excluded variable takes no value or secret",
    );
    refuses(
        env(json!({ "name": "A", "exclude": true, "secret": { "name": "s", "key": "k" } })),
        at,
        "an excluded variable takes no value or secret",
    );
    refuses(
        env(json!({ "name": "A", "value": "1", "secret": { "name": "s", "key": "k" } })),
        at,
        "must have either value or secret, not both",
    );
    refuses(
        env(json!({ "name": "A" })),
        at,
        "must have a value or a secret",
    );
    refuses(
        env(json!({ "name": "A", "secret": { "name": "Creds", "key": "k" } })),
        &format!("{at}.secret.name"),
        "must be 1 to 253 lowercase letters",
    );
    refuses(
        env(json!({ "name": "A", "secret": { "name": "creds", "key": "a/b" } })),
        &format!("{at}.secret.key"),
        "must be 1 to 253 letters, digits, '-', '_' or '.' (got \"a/b\")",
    );
}

#[test]
fn labels_and_annotations_have_qualified_names_once_outside_tephra_dev() {
    for list in ["labels", "annotations"] {
        let at = format!("spec.{list}");
        accepts(json!({ list: [
            { "name": "example.com/team", "value": "ml" }, { "name": "Stage_1", "value": "a" },
            { "name": "tephra.dev.example.com/x", "value": "a" },
            { "name": "notk8s.io/x", "value": "a" }, { "name": "volcano.sh.example/x", "value": "a" }] }));
        refuses(
            json!({ list: [{ "name": "a b", "value": "x" }] }),
            &format!("{at}[0].name"),
            "must be a name of at most 63 letters",
        );
        for (reserved, domain) in [
            ("tephra.dev/owner", "tephra.dev"),
            ("x.tephra.dev/owner", "tephra.dev"),
            ("volcano.sh/preemptable", "volcano.sh"),
            ("scheduling.volcano.sh/queue-name", "volcano.sh"),
            ("batch.volcano.sh/job-name", "volcano.sh"),
            ("scheduling.k8s.io/group-name", "k8s.io"),
            ("node-role.kubernetes.io/control-plane", "kubernetes.io"),
            ("kubernetes.io/hostname", "kubernetes.io"),
            ("k8s.v1.cni.cncf.io/networks", "cni.cncf.io"),
            ("sidecar.istio.io/inject", "istio.io"),
            ("linkerd.io/inject", "linkerd.io"),
            ("config.linkerd.io/skip-outbound-ports", "linkerd.io"),
            ("scheduling.x-k8s.io/pod-group", "x-k8s.io"),
            ("kueue.x-k8s.io/queue-name", "x-k8s.io"),
            ("cni.projectcalico.org/ipAddrs", "projectcalico.org"),
            ("io.cilium/x", "io.cilium"),
            ("policy.cilium.io/proxy-visibility", "cilium.io"),
            ("kuma.io/sidecar-injection", "kuma.io"),
            ("consul.hashicorp.com/connect-inject", "hashicorp.com"),
            ("vault.hashicorp.com/agent-inject", "hashicorp.com"),
            ("dapr.io/enabled", "dapr.io"),
            ("karpenter.sh/do-not-disrupt", "karpenter.sh"),
            ("nvidia.com/gpu.present", "nvidia.com"),
            ("openshift.io/scc", "openshift.io"),
        ] {
            refuses(
                json!({ list: [{ "name": reserved, "value": "x" }] }),
                &format!("{at}[0].name"),
                &format!("is under {domain}/, which is reserved"),
            );
        }
        refuses(
            json!({ list: [{ "name": "a", "value": "1" }, { "name": "a", "value": "2" }] }),
            &format!("{at}[1].name"),
            "\"a\" is set twice",
        );
        accepts(json!({ list: [{ "name": "a", "exclude": true }] }));
        refuses(
            json!({ list: [{ "name": "a" }] }),
            &format!("{at}[0].value"),
            "is required unless exclude is true",
        );
    }
}

#[test]
fn label_values_are_short_and_annotation_values_at_most_256_kib() {
    accepts(json!({ "labels": [{ "name": "a", "value": "" }] }));
    accepts(json!({ "labels": [{ "name": "a", "value": "x".repeat(63) }] }));
    refuses(
        json!({ "labels": [{ "name": "a", "value": "x".repeat(64) }] }),
        "spec.labels[0].value",
        "must be at most 63 letters, digits, '-', '_' or '.'",
    );
    accepts(json!({ "annotations": [{ "name": "a", "value": "has spaces: fine" }] }));
    accepts(json!({ "annotations": [{ "name": "a", "value": "x".repeat(256 * 1024) }] }));
    refuses(
        json!({ "annotations": [{ "name": "a", "value": "x".repeat(256 * 1024 + 1) }] }),
        "spec.annotations[0].value",
        "must be at most 256 KiB",
    );
}

#[test]
fn the_deletion_delay_fits_int32() {
    let field = "autoDeletionTimeAfterCompletionSeconds";
    accepts(json!({ field: 0 }));
    accepts(json!({ field: 2147483647 }));
    refuses(
        json!({ field: -1 }),
        "spec.autoDeletionTimeAfterCompletionSeconds",
        "must be between 0 and 2147483647 (got -1)",
    );
}

#[test]
fn the_backoff_limit_is_from_0_to_100() {
    accepts(json!({ "backoffLimit": 0 }));
    accepts(json!({ "backoffLimit": 100 }));
    refuses(
        json!({ "backoffLimit": -1 }),
        "spec.backoffLimit",
        "must be at least 0 (got -1)",
    );
    refuses(
        json!({ "backoffLimit": 101 }),
        "spec.backoffLimit",
        "must be at most 100 (got 101)",
    );
}

#[test]
fn the_priority_class_is_a_kubernetes_name() {
    accepts(json!({ "priorityClass": "high-priority" }));
    refuses(
        json!({ "priorityClass": "High" }),
        "spec.priorityClass",
        "must be 1 to 253 lowercase letters, digits, '-' or '.'",
    );
}

#[test]
fn parallelism_and_completions_fit_int32() {
    accepts(json!({ "parallelism": 2147483647 }));
    refuses(
        json!({ "parallelism": 0 }),
        "spec.parallelism",
        "must be between 1 and 2147483647 (got 0)",
    );
    accepts(json!({ "completions": 1 }));
    refuses(
        json!({ "completions": 0 }),
        "spec.completions",
        "must be between 1 and 2147483647 (got 0)",
    );
}

#[test]
fn completions_may_exceed_parallelism_as_in_run_ai() {
    accepts(json!({ "parallelism": 4, "completions": 4 }));
    accepts(json!({ "parallelism": 4, "completions": 2 }));
    accepts(json!({ "parallelism": 2, "completions": 3 }));
    accepts(json!({ "completions": 5 }));
}

#[test]
fn a_spec_without_any_optional_field_is_accepted() {
    accepted(request(json!({})));
}
