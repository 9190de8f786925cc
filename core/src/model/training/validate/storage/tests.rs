use super::super::tests::{accepts, paths, refused, refuses, request};
use serde_json::{Value, json};

const UUID: &str = "123e4567-e89b-12d3-a456-426614174000";

fn storage(kind: &str, item: Value) -> Value {
    json!({ "storage": { kind: [item] } })
}

fn claim(info: Value) -> Value {
    storage("pvc", json!({ "path": "/data", "claimInfo": info }))
}

#[test]
fn an_empty_dir_is_on_disk_or_in_memory_with_an_optional_size() {
    accepts(storage("emptyDirVolume", json!({ "path": "/scratch" })));
    accepts(storage(
        "emptyDirVolume",
        json!({ "name": "cache", "path": "/cache", "medium": "Memory", "sizeLimit": "1Gi" }),
    ));
    // Excluded entries (a policy default left out) are not checked.
    accepts(storage("emptyDirVolume", json!({ "exclude": true })));
    refuses(
        storage(
            "emptyDirVolume",
            json!({ "path": "/s", "medium": "HugePages" }),
        ),
        "spec.storage.emptyDirVolume[0].medium",
        "must be Memory, or left out for the node's disk (got \"HugePages\")",
    );
    refuses(
        storage("emptyDirVolume", json!({ "medium": "Memory" })),
        "spec.storage.emptyDirVolume[0].path",
        "is required",
    );
    refuses(
        storage(
            "emptyDirVolume",
            json!({ "path": "/s", "sizeLimit": "lots" }),
        ),
        "spec.storage.emptyDirVolume[0].sizeLimit",
        "",
    );
}

#[test]
fn a_data_volume_is_named_by_its_uuid() {
    accepts(storage(
        "dataVolume",
        json!({ "id": UUID, "mountPath": "/data" }),
    ));
    refuses(
        storage(
            "dataVolume",
            json!({ "id": "datasets", "mountPath": "/data" }),
        ),
        "spec.storage.dataVolume[0].id",
        "must be the UUID of a data volume (got \"datasets\")",
    );
}

#[test]
fn a_claim_name_is_a_kubernetes_name() {
    let existing = |name: &str| {
        storage(
            "pvc",
            json!({ "path": "/data", "existingPvc": true, "claimName": name }),
        )
    };
    accepts(existing("shared-data"));
    refuses(
        existing("Shared"),
        "spec.storage.pvc[0].claimName",
        "must be 1 to 253 lowercase letters",
    );
}

#[test]
fn an_existing_claim_is_named_and_not_described() {
    accepts(storage(
        "pvc",
        json!({ "path": "/d", "existingPvc": true, "claimName": "c",
                                   "ephemeral": false, "readOnly": true }),
    ));
    refuses(
        storage("pvc", json!({ "path": "/d", "existingPvc": true })),
        "spec.storage.pvc[0].claimName",
        "is required with existingPvc: the claim to mount",
    );
    refuses(
        storage(
            "pvc",
            json!({ "path": "/d", "existingPvc": true, "claimName": "c",
                               "claimInfo": { "size": "1Gi" } }),
        ),
        "spec.storage.pvc[0].claimInfo",
        "must not be set with existingPvc: the claim already exists",
    );
    refuses(
        storage(
            "pvc",
            json!({ "path": "/d", "existingPvc": true, "claimName": "c",
                               "ephemeral": true }),
        ),
        "spec.storage.pvc[0].ephemeral",
        "must not be true with existingPvc",
    );
}

#[test]
fn a_new_claim_is_described() {
    accepts(storage(
        "pvc",
        json!({ "path": "/d", "existingPvc": false,
        "claimInfo": { "size": "10Gi", "accessModes": { "readWriteOnce": true } } }),
    ));
    for existing in [json!(null), json!(false)] {
        refuses(
            storage("pvc", json!({ "path": "/d", "existingPvc": existing })),
            "spec.storage.pvc[0].claimInfo",
            "is required to create a new claim (size, storageClass, accessModes)",
        );
    }
}

#[test]
fn a_new_claim_has_a_positive_size() {
    let modes = json!({ "readOnlyMany": true });
    accepts(claim(json!({ "size": "500Mi", "accessModes": modes })));
    refuses(
        claim(json!({ "accessModes": modes })),
        "spec.storage.pvc[0].claimInfo.size",
        "is required, e.g. 10Gi",
    );
    refuses(
        claim(json!({ "size": "0", "accessModes": modes })),
        "spec.storage.pvc[0].claimInfo.size",
        "must be greater than 0 (got \"0\")",
    );
    refuses(
        claim(json!({ "size": "ten", "accessModes": modes })),
        "spec.storage.pvc[0].claimInfo.size",
        "must be a Kubernetes quantity",
    );
}

#[test]
fn a_storage_class_is_a_kubernetes_name() {
    let class = |class: &str| {
        claim(json!({ "size": "1Gi", "storageClass": class,
                      "accessModes": { "readWriteMany": true } }))
    };
    accepts(class("fast-ssd"));
    refuses(
        class("fast_ssd"),
        "spec.storage.pvc[0].claimInfo.storageClass",
        "(got \"fast_ssd\")",
    );
}

#[test]
fn a_new_claim_enables_an_access_mode() {
    for mode in ["readWriteOnce", "readOnlyMany", "readWriteMany"] {
        accepts(claim(
            json!({ "size": "1Gi", "accessModes": { mode: true } }),
        ));
    }
    for modes in [
        json!(null),
        json!({}),
        json!({ "readWriteOnce": false, "readOnlyMany": false, "readWriteMany": false }),
    ] {
        refuses(
            claim(json!({ "size": "1Gi", "accessModes": modes })),
            "spec.storage.pvc[0].claimInfo.accessModes",
            "must enable at least one of readWriteOnce, readOnlyMany, readWriteMany",
        );
    }
}

fn git(fields: Value) -> Value {
    let mut repo = json!({ "path": "/src", "repository": "https://example.com/r.git" });
    if let (Value::Object(repo), Value::Object(fields)) = (&mut repo, fields) {
        repo.extend(fields);
    }
    storage("git", repo)
}

#[test]
fn a_git_repository_is_a_url_to_clone() {
    for url in [
        "https://github.com/org/repo.git",
        "http://git.local/repo",
        "ssh://git@host/repo",
        "git@github.com:org/repo.git",
    ] {
        accepts(git(json!({ "repository": url })));
    }
    for missing in [json!(null), json!("")] {
        refuses(
            git(json!({ "repository": missing })),
            "spec.storage.git[0].repository",
            "is required: the URL to clone, e.g. https://github.com/org/repo.git",
        );
    }
    refuses(
        git(json!({ "repository": "ftp://host/repo" })),
        "spec.storage.git[0].repository",
        "must be an https://, http://, ssh:// or git@ URL (got \"ftp://host/repo\")",
    );
}

#[test]
fn git_branches_and_revisions_are_ref_names() {
    accepts(git(
        json!({ "branch": "release/1.0", "revision": "a1b2c3" }),
    ));
    for field in ["branch", "revision"] {
        for bad in ["", "-f", "two words"] {
            refuses(
                git(json!({ field: bad })),
                &format!("spec.storage.git[0].{field}"),
                &format!(
                    "must be a git ref name without spaces, not starting with '-' (got {bad:?})"
                ),
            );
        }
    }
}

#[test]
fn a_git_password_secret_names_both_of_its_keys() {
    accepts(git(
        json!({ "passwordSecret": "git-creds", "secretKeyOfUser": "user",
                        "secretKeyOfPassword": "password" }),
    ));
    refuses(
        git(json!({ "passwordSecret": "Git", "secretKeyOfUser": "u",
                    "secretKeyOfPassword": "p" })),
        "spec.storage.git[0].passwordSecret",
        "must be 1 to 253 lowercase letters",
    );
    refuses(
        git(json!({ "passwordSecret": "git-creds", "secretKeyOfUser": "user" })),
        "spec.storage.git[0].secretKeyOfPassword",
        "is required with passwordSecret",
    );
    refuses(
        git(
            json!({ "passwordSecret": "git-creds", "secretKeyOfUser": "a b",
                    "secretKeyOfPassword": "p" }),
        ),
        "spec.storage.git[0].secretKeyOfUser",
        "must be 1 to 253 letters, digits, '-', '_' or '.' (got \"a b\")",
    );
    let errors = refused(request(git(json!({ "passwordSecret": "git-creds" }))));
    assert_eq!(
        paths(&errors),
        [
            "spec.storage.git[0].secretKeyOfUser",
            "spec.storage.git[0].secretKeyOfPassword"
        ]
    );
}

#[test]
fn config_maps_and_secrets_are_kubernetes_names() {
    accepts(storage(
        "configMapVolume",
        json!({ "configMap": "cfg", "mountPath": "/cfg" }),
    ));
    refuses(
        storage(
            "configMapVolume",
            json!({ "configMap": "Cfg", "mountPath": "/cfg" }),
        ),
        "spec.storage.configMapVolume[0].configMap",
        "(got \"Cfg\")",
    );
    accepts(storage(
        "secretVolume",
        json!({ "secret": "tls.certs", "mountPath": "/tls" }),
    ));
    refuses(
        storage("secretVolume", json!({ "secret": "", "mountPath": "/tls" })),
        "spec.storage.secretVolume[0].secret",
        "(got 0 characters)",
    );
}

#[test]
fn a_host_path_is_absolute_and_not_bidirectional() {
    let host = |path: &str, propagation: &str| {
        storage(
            "hostPath",
            json!({ "path": path, "mountPath": "/host",
                                    "mountPropagation": propagation }),
        )
    };
    accepts(host("/var/data", "None"));
    accepts(host("/var/data", "HostToContainer"));
    refuses(
        host("var/data", "None"),
        "spec.storage.hostPath[0].path",
        "must be an absolute path starting with '/' (got \"var/data\")",
    );
    refuses(
        host("/var/data", "Bidirectional"),
        "spec.storage.hostPath[0].mountPropagation",
        "Bidirectional needs a privileged container",
    );
}

#[test]
fn an_nfs_export_is_an_absolute_path_on_a_host() {
    let nfs = |server: &str, path: &str| {
        storage(
            "nfs",
            json!({ "server": server, "path": path, "mountPath": "/nfs" }),
        )
    };
    accepts(nfs("10.0.0.1", "/exports/data"));
    accepts(nfs("nas.example.com", "/"));
    refuses(
        nfs("nas", "/a/../b"),
        "spec.storage.nfs[0].path",
        "must not contain '..'",
    );
    for server in ["", "nas example", "nas/exports"] {
        refuses(
            nfs(server, "/exports"),
            "spec.storage.nfs[0].server",
            &format!("must be a host name or IP address (got {server:?})"),
        );
    }
}

fn s3(fields: Value) -> Value {
    let mut bucket = json!({ "bucket": "my-bucket", "path": "/s3" });
    if let (Value::Object(bucket), Value::Object(fields)) = (&mut bucket, fields) {
        bucket.extend(fields);
    }
    storage("s3", bucket)
}

#[test]
fn an_s3_bucket_has_a_bucket_name() {
    accepts(s3(json!({ "bucket": "abc" })));
    accepts(s3(json!({ "bucket": "a".repeat(63) })));
    accepts(s3(json!({ "bucket": "logs.example" })));
    for bad in ["ab", &"a".repeat(64), "My-Bucket", "a..b"] {
        refuses(
            s3(json!({ "bucket": bad })),
            "spec.storage.s3[0].bucket",
            &format!(
                "must be an S3 bucket name: 3 to 63 lowercase letters, digits, '-' or \
                          '.' (got {bad:?})"
            ),
        );
    }
}

#[test]
fn an_s3_endpoint_is_an_http_url() {
    accepts(s3(json!({ "url": "https://s3.example.com" })));
    accepts(s3(json!({ "url": "http://minio:9000" })));
    refuses(
        s3(json!({ "url": "s3.example.com" })),
        "spec.storage.s3[0].url",
        "must be an http:// or https:// URL (got \"s3.example.com\")",
    );
}

#[test]
fn an_s3_access_key_secret_names_both_of_its_keys() {
    accepts(s3(
        json!({ "accessKeySecret": "s3-creds", "secretKeyOfAccessKeyId": "id",
                       "secretKeyOfSecretKey": "key" }),
    ));
    refuses(
        s3(json!({ "accessKeySecret": "s3-creds", "secretKeyOfSecretKey": "key" })),
        "spec.storage.s3[0].secretKeyOfAccessKeyId",
        "is required with accessKeySecret",
    );
    refuses(
        s3(
            json!({ "accessKeySecret": "S3", "secretKeyOfAccessKeyId": "id",
                   "secretKeyOfSecretKey": "key" }),
        ),
        "spec.storage.s3[0].accessKeySecret",
        "(got \"S3\")",
    );
}

#[test]
fn mount_paths_are_absolute() {
    accepts(storage(
        "dataVolume",
        json!({ "id": UUID, "mountPath": "/data/set" }),
    ));
    refuses(
        storage("dataVolume", json!({ "id": UUID, "mountPath": "data" })),
        "spec.storage.dataVolume[0].mountPath",
        "must be an absolute path starting with '/' (got \"data\")",
    );
    refuses(
        s3(json!({ "path": "/s3/../etc" })),
        "spec.storage.s3[0].path",
        "must not contain '..'",
    );
}

#[test]
fn nothing_is_mounted_over_the_root_or_shared_memory() {
    accepts(storage(
        "configMapVolume",
        json!({ "configMap": "c", "mountPath": "/dev/shm2" }),
    ));
    for mount in ["/", "/dev/shm", "/dev/shm/", "//"] {
        refuses(
            storage("secretVolume", json!({ "secret": "s", "mountPath": mount })),
            "spec.storage.secretVolume[0].mountPath",
            &format!("must not be {mount:?}"),
        );
    }
}

#[test]
fn two_volumes_never_share_a_mount_path() {
    let both = |second: &str| {
        json!({ "storage": {
            "dataVolume": [{ "id": UUID, "mountPath": "/data" }],
            "nfs": [{ "server": "nas", "path": "/x", "mountPath": second }] } })
    };
    accepts(both("/data2"));
    accepts(both("/data/sub"));
    for second in ["/data", "/data/"] {
        refuses(
            both(second),
            "spec.storage.nfs[0].mountPath",
            &format!("{second:?} is already used by another volume"),
        );
    }
    refuses(
        json!({ "storage": { "git": [{ "repository": "https://h/r", "path": "/src" }],
                             "pvc": [{ "path": "/src", "existingPvc": true, "claimName": "c" }] } }),
        "spec.storage.git[0].path",
        "\"/src\" is already used by another volume",
    );
}
