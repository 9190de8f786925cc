use super::*;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::ObjectMeta;
use tephra_core::domain::labels::{MANAGED_BY, MANAGED_BY_VALUE};
use tephra_core::domain::ownership::OWNER;

const NS: &str = "tephra-a";

fn key() -> OwnerKey {
    OwnerKey::from_hex(&"42".repeat(32)).unwrap()
}

fn labels(id: Uuid) -> Option<std::collections::BTreeMap<String, String>> {
    Some(
        [
            (WORKLOAD_ID.to_owned(), id.to_string()),
            (MANAGED_BY.to_owned(), MANAGED_BY_VALUE.to_owned()),
        ]
        .into(),
    )
}

/// A Job of workload `id`, signed with `key` when given.
fn job(id: Uuid, name: &str, uid: &str, key: Option<&OwnerKey>) -> Job {
    let mut job = Job::new(name, Default::default());
    job.metadata = ObjectMeta {
        name: Some(name.into()),
        namespace: Some(NS.into()),
        uid: Some(uid.into()),
        labels: labels(id),
        annotations: key.map(|k| [(OWNER.to_owned(), k.sign(&id.to_string(), NS, name))].into()),
        ..ObjectMeta::default()
    };
    job
}

fn pod(id: Uuid, name: &str, job_uid: &str) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some(NS.into()),
            labels: labels(id),
            owner_references: Some(vec![OwnerReference {
                uid: job_uid.into(),
                controller: Some(true),
                ..OwnerReference::default()
            }]),
            ..ObjectMeta::default()
        },
        ..Pod::default()
    }
}

#[test]
fn a_job_with_copied_labels_but_no_signature_is_ignored() {
    let mut index = Index::new(key());
    let id = Uuid::new_v4();
    assert_eq!(index.apply_job(&job(id, "train", "u1", None)), None);
    let forged_by_other_key = OwnerKey::from_hex(&"17".repeat(32)).unwrap();
    assert_eq!(
        index.apply_job(&job(id, "train", "u1", Some(&forged_by_other_key))),
        None
    );
    index.apply_pod(&pod(id, "train-worker-0", "u1"));
    assert!(
        index.observed(id).is_none_or(|e| e.observed.is_empty()),
        "the forged Job's pods do not count as the workload's"
    );
    assert_eq!(index.jobs().count(), 0);
    assert_eq!(index.unsigned_jobs().count(), 1, "but it is reported");
}

#[test]
fn a_signed_job_is_tracked_and_its_early_pods_released() {
    let mut index = Index::new(key());
    let id = Uuid::new_v4();
    // The pod watch may deliver a pod before the Job watch delivers its Job.
    index.apply_pod(&pod(id, "train-worker-0", "u1"));
    assert!(index.observed(id).unwrap().observed.pods.is_empty());
    assert_eq!(
        index.apply_job(&job(id, "train", "u1", Some(&key()))),
        Some(id)
    );
    let entry = index.observed(id).unwrap();
    assert!(entry.observed.job.is_some());
    assert!(entry.observed.pods.contains("train-worker-0"));
    // A later pod of the same Job counts at once.
    index.apply_pod(&pod(id, "train-worker-1", "u1"));
    assert_eq!(index.observed(id).unwrap().observed.pods.len(), 2);
}

#[test]
fn pods_of_an_unverified_job_never_count_even_with_the_right_labels() {
    let mut index = Index::new(key());
    let id = Uuid::new_v4();
    index.apply_job(&job(id, "train", "u1", Some(&key())));
    index.apply_pod(&pod(id, "intruder", "someone-elses-job"));
    assert!(
        !index
            .observed(id)
            .unwrap()
            .observed
            .pods
            .contains("intruder")
    );
}
