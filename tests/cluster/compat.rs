//! Run:ai-shaped requests, one per field group of Run:ai's current schema, through the REST API on
//! the testbed: each is accepted as Run:ai accepts it, rendered, and its Job's pods are bound and
//! run. (Seed 003's example, verbatim where the testbed allows, is `api::seed_003_...`; the SDK's
//! own calls are `runai::runai_python_sdk_runs_a_script_unmodified`.)

use crate::api::{DISTRIBUTED, TRAININGS, Tephra, id_of};
use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::sync::Arc;
use tephra_tests::testbed::Testbed;

/// A training named after its group, with `spec` laid over a minimal one.
fn training(group: &str, spec: Value) -> Value {
    let mut base = json!({ "image": "python:3.11", "command": "python train.py" });
    if let (Value::Object(base), Value::Object(spec)) = (&mut base, spec) {
        base.extend(spec);
    }
    json!({ "name": group, "projectId": "default", "spec": base })
}

fn storage_of_seed_003() -> anyhow::Result<Value> {
    let path = tephra_tests::workspace::root().join("core/tests/fixtures/seed-003-consistent.json");
    let seed: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let mut storage = seed["spec"]["storage"].clone();
    // The data volume the testbed's profile does not register, and the host paths the built-in
    // system policy refuses; the new claim in the testbed's storage class.
    for key in ["dataVolume", "hostPath"] {
        storage.as_object_mut().context("storage")?.remove(key);
    }
    storage["pvc"][0]["claimInfo"]["storageClass"] = "standard".into();
    Ok(storage)
}

pub async fn runai_requests_of_every_field_group_run_on_the_testbed(
    tb: Arc<Testbed>,
    ns: String,
) -> anyhow::Result<()> {
    let (t, _profile) = Tephra::start_with_profile(&tb, &ns, crate::api::SEED_003_PROFILE).await?;
    let result = async {
        // The seed's S3 keys, under the seed's key names, and the other objects it names.
        crate::storage::seed_003_objects(&t).await?;
        let keys = crate::storage::secret(
            "my-access-key-secret",
            [("AccessKeyId", "AKIA-SEED"), ("SecretKey", "seed")],
        );
        let secrets: kube::Api<k8s_openapi::api::core::v1::Secret> =
            kube::Api::namespaced(t.kube.clone(), &t.namespace());
        secrets.create(&Default::default(), &keys).await?;
        let cases = [
            (TRAININGS, training("container", json!({
                "imagePullPolicy": "IfNotPresent", "args": "--epochs 3", "workingDir": "/work",
                "createHomeDir": true, "tty": true, "stdin": true, "category": "Train",
                "environmentVariables": [{ "name": "EPOCHS", "value": "3" }],
                "labels": [{ "name": "team", "value": "vision" }],
                "annotations": [{ "name": "billing", "value": "unit-7" }],
                "imagePullSecrets": [{ "name": "registry" }],
                "ports": [{ "container": 8080, "serviceType": "ClusterIP" }],
                "relatedUrls": [{ "url": "https://wandb.example/run/1", "type": "wandb", "name": "run" }] }))),
            (TRAININGS, training("compute", json!({ "compute": {
                "gpuDevicesRequest": 1, "cpuCoreRequest": 0.5, "cpuCoreLimit": 2,
                "cpuMemoryRequest": "1Gi", "cpuMemoryLimit": "2Gi", "largeShmRequest": true } }))),
            (TRAININGS, training("fraction", json!({ "compute": {
                "gpuDevicesRequest": 1, "gpuRequestType": "portion", "gpuPortionRequest": 0.25,
                "gpuPortionLimit": 0.25 } }))),
            (TRAININGS, training("gpu-memory", json!({ "compute": {
                "gpuDevicesRequest": 2, "gpuRequestType": "memory", "gpuMemoryRequest": "20Gi" } }))),
            (TRAININGS, training("security", json!({ "security": {
                "uidGidSource": "custom", "runAsUid": 1000, "runAsGid": 1000,
                "runAsNonRoot": true, "allowPrivilegeEscalation": false,
                "seccompProfileType": "RuntimeDefault", "supplementalGroups": "2000" } }))),
            (TRAININGS, training("storage", json!({ "storage": storage_of_seed_003()? }))),
            (TRAININGS, training("scheduling", json!({
                "priorityClass": "build", "preemptibility": "preemptible",
                "tolerations": [{ "name": "gpus", "key": "nvidia.com/gpu", "operator": "Exists",
                                  "effect": "NoSchedule" }],
                "compute": { "gpuDevicesRequest": 1 } }))),
            (TRAININGS, training("lifecycle", json!({
                "backoffLimit": 2, "terminateAfterPreemption": true, "restartPolicy": "OnFailure",
                "terminationGracePeriodSeconds": 30, "autoDeletionTimeAfterCompletionSeconds": 60,
                "completions": 2, "parallelism": 1 }))),
            (DISTRIBUTED, json!({ "name": "pytorch", "projectId": "default", "spec": {
                "image": "pytorch/pytorch:2.4.0", "command": "torchrun train.py",
                "distributedFramework": "PyTorch", "numWorkers": 2, "minReplicas": 2, "maxReplicas": 3,
                "masterSpecSameAsWorker": true, "compute": { "gpuDevicesRequest": 1 } } })),
            (DISTRIBUTED, json!({ "name": "mpi", "projectId": "default", "spec": {
                "image": "mpioperator/tensorflow-benchmarks", "command": "mpirun python bench.py",
                "distributedFramework": "MPI", "numWorkers": 2, "slotsPerWorker": 1,
                "mpiLauncherCreationPolicy": "AtStartup", "compute": { "gpuDevicesRequest": 1 } } })),
            (DISTRIBUTED, json!({ "name": "tf", "projectId": "default", "spec": {
                "image": "tensorflow/tensorflow:2.16.1", "command": "python train.py",
                "distributedFramework": "TF", "numWorkers": 1 } })),
            (DISTRIBUTED, json!({ "name": "xgboost", "projectId": "default", "spec": {
                "image": "xgboost/xgboost", "command": "python train.py",
                "distributedFramework": "XGBoost", "numWorkers": 1 } })),
        ];
        for (kind, body) in &cases {
            let group = body["name"].as_str().unwrap_or_default();
            let (status, answer) = t.post(kind, body).await?;
            ensure!(status == 202, "{group}: {status} {answer}");
            let id = id_of(&answer)?;
            t.wait_phase(kind, &id, "Running")
                .await
                .with_context(|| format!("{group} runs"))?;
            if group == "pytorch" {
                // Elastic: maxReplicas workers and the master, the one beyond the gang too.
                tephra_tests::wait_for("four bound pods", crate::api::WAIT, || async {
                    let pods = t.pods_of(&id).await.ok()?;
                    let bound = pods.iter().filter(|p| {
                        p.spec.as_ref().is_some_and(|s| s.node_name.is_some())
                    });
                    (bound.count() == 4).then_some(())
                })
                .await?;
            }
            let pods = t.pods_of(&id).await?;
            ensure!(
                !pods.is_empty()
                    && pods
                        .iter()
                        .all(|p| p.spec.as_ref().is_some_and(|s| s.node_name.is_some())),
                "{group}: every pod is bound"
            );
            let (status, _) = t.delete(&format!("{kind}/{id}")).await?;
            ensure!(status == 202, "{group}: deleted");
            t.wait_gone(kind, &id).await?;
        }
        Ok(())
    }
    .await;
    t.cleanup().await;
    result
}
