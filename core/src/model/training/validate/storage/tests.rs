use super::super::tests::{accepts, paths, refused, refuses, request};
use serde_json::{Value, json};

mod sources;

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
