//! Storage that is not a claim: git, ConfigMaps and Secrets, host paths, NFS, S3, and where
//! every volume mounts.

use super::*;

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
