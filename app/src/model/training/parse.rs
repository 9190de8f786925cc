//! JSON to request types, reporting unknown fields and type errors by path, then running
//! validation so one answer lists every problem.

use super::distributed::{DISTRIBUTED_KEYS, DistributedRequest, DistributedSpec};
use super::request::{TrainingRequest, TrainingSpec};
use super::validate;
use crate::model::validation::{FieldError, join};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Parses and validates a training request.
pub fn training(value: &Value) -> Result<TrainingRequest, Vec<FieldError>> {
    let request: TrainingRequest = strict(value, "")?;
    validate::training(&request)?;
    Ok(request)
}

/// Parses and validates a generic multi-replica request.
pub fn generic(value: &Value) -> Result<super::generic::GenericRequest, Vec<FieldError>> {
    let request: super::generic::GenericRequest = strict(value, "")?;
    validate::generic(&request)?;
    Ok(request)
}

/// Parses and validates a distributed training request. Its spec is a [`TrainingSpec`] (the
/// worker's) plus the distributed keys, so the two are separated before each is parsed strictly.
pub fn distributed(value: &Value) -> Result<DistributedRequest, Vec<FieldError>> {
    let Value::Object(top) = value else {
        return Err(vec![not_an_object("")]);
    };
    let mut errors = Vec::new();
    let mut header = top.clone();
    let spec_value = header
        .remove("spec")
        .unwrap_or(Value::Object(Default::default()));
    header.insert("spec".into(), Value::Object(Default::default()));
    let head: Result<TrainingRequest, _> = strict(&Value::Object(header), "");
    let head = head.map_err(|e| errors.extend(e)).ok();

    let Value::Object(mut worker) = spec_value else {
        errors.push(not_an_object("spec"));
        return Err(errors);
    };
    let mut extra = serde_json::Map::new();
    for key in DISTRIBUTED_KEYS {
        if let Some(v) = worker.remove(key) {
            extra.insert(key.into(), v);
        }
    }
    let worker: Option<TrainingSpec> = strict(&Value::Object(worker), "spec")
        .map_err(|e| errors.extend(e))
        .ok();
    let master = match extra.remove("master") {
        None | Some(Value::Null) => None,
        Some(m) => strict::<TrainingSpec>(&m, "spec.master")
            .map_err(|e| errors.extend(e))
            .ok(),
    };
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Extra {
        distributed_framework: Option<super::distributed::Framework>,
        num_workers: Option<i64>,
        min_replicas: Option<i64>,
        max_replicas: Option<i64>,
        master_spec_same_as_worker: Option<bool>,
    }
    let extra: Option<Extra> = strict(&Value::Object(extra), "spec")
        .map_err(|e| errors.extend(e))
        .ok();
    let (Some(head), Some(worker), Some(extra)) = (head, worker, extra) else {
        return Err(errors);
    };
    let (Some(framework), Some(num_workers)) = (extra.distributed_framework, extra.num_workers)
    else {
        if extra.distributed_framework.is_none() {
            errors.push(FieldError {
                path: "spec.distributedFramework".into(),
                message: "is required: one of PyTorch, MPI, TF, XGBoost".into(),
            });
        }
        if extra.num_workers.is_none() {
            errors.push(FieldError {
                path: "spec.numWorkers".into(),
                message: "is required: how many workers besides the master (at least 1)".into(),
            });
        }
        return Err(errors);
    };
    let request = DistributedRequest {
        name: head.name,
        use_given_name_as_prefix: head.use_given_name_as_prefix,
        project_id: head.project_id,
        cluster_id: head.cluster_id,
        spec: DistributedSpec {
            worker,
            distributed_framework: framework,
            num_workers,
            min_replicas: extra.min_replicas,
            max_replicas: extra.max_replicas,
            master_spec_same_as_worker: extra.master_spec_same_as_worker,
            master,
        },
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    validate::distributed(&request)?;
    Ok(request)
}

fn not_an_object(path: &str) -> FieldError {
    FieldError {
        path: if path.is_empty() {
            ".".into()
        } else {
            path.into()
        },
        message: "must be a JSON object".into(),
    }
}

/// Deserializes `value`, reporting every unknown field and the first type error, each with its
/// path under `prefix`.
fn strict<T: DeserializeOwned>(value: &Value, prefix: &str) -> Result<T, Vec<FieldError>> {
    let mut unknown = Vec::new();
    let mut record = |path: serde_ignored::Path| unknown.push(ignored_path(&path));
    let deserializer = serde_ignored::Deserializer::new(value, &mut record);
    let result: Result<T, _> = serde_path_to_error::deserialize(deserializer);
    let mut errors: Vec<FieldError> = unknown
        .into_iter()
        .map(|path| FieldError {
            path: join(prefix, &path),
            message: "is not a known field".into(),
        })
        .collect();
    match result {
        Ok(parsed) if errors.is_empty() => Ok(parsed),
        Ok(_) => Err(errors),
        Err(e) => {
            let path = e.path().to_string();
            let path = match (path.as_str(), prefix) {
                (".", "") => ".".to_owned(),
                (".", prefix) => prefix.to_owned(),
                (path, prefix) => join(prefix, path),
            };
            errors.push(FieldError {
                path,
                message: type_message(&e.into_inner().to_string()),
            });
            Err(errors)
        }
    }
}

/// serde's messages, in the words of this API: "invalid type: string \"x\", expected i64"
/// becomes "must be an integer (got string \"x\")".
fn type_message(serde_message: &str) -> String {
    if let Some(rest) = serde_message.strip_prefix("invalid type: ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        let expected = match expected {
            e if e.starts_with("struct ") || e == "a map" => "a JSON object",
            "i64" | "u64" | "i32" | "u32" => "an integer",
            "f64" => "a number",
            "a boolean" => "true or false",
            "a string" => "a string",
            "a sequence" => "a list",
            other => other,
        };
        return format!("must be {expected} (got {got})");
    }
    if serde_message.starts_with("data did not match any variant of untagged enum ProjectId") {
        return "must be a number or a string".into();
    }
    if let Some(rest) = serde_message.strip_prefix("unknown variant ") {
        return format!("is not allowed: {rest}").replace('`', "");
    }
    if let Some(field) = serde_message.strip_prefix("missing field ") {
        return format!("is missing the required field {}", field.replace('`', ""));
    }
    serde_message.replace('`', "")
}

fn ignored_path(path: &serde_ignored::Path) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", ignored_path(parent)),
        Path::Map { parent, key } => join(&ignored_path(parent), key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_path(parent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(errors: &[FieldError]) -> Vec<&str> {
        errors.iter().map(|e| e.path.as_str()).collect()
    }

    #[test]
    fn every_unknown_field_is_named_by_path() {
        let errors = training(&json!({
            "name": "a", "projectId": 1, "colour": "red",
            "spec": { "image": "x", "imagePullPolicyy": "Always", "compute": { "gpus": 2 },
                      "tolerations": [{ "key": "k", "operator": "Exists", "tolerate": true }] }
        }))
        .unwrap_err();
        assert_eq!(
            paths(&errors),
            [
                "colour",
                "spec.compute.gpus",
                "spec.imagePullPolicyy",
                "spec.tolerations[0].tolerate"
            ]
        );
        assert!(errors.iter().all(|e| e.message == "is not a known field"));
    }

    #[test]
    fn type_errors_name_the_field_and_the_expected_type() {
        let errors = training(&json!({
            "name": "a", "projectId": 1, "spec": { "image": "x", "compute": { "gpuDevicesRequest": "two" } }
        }))
        .unwrap_err();
        assert_eq!(paths(&errors), ["spec.compute.gpuDevicesRequest"]);
        assert_eq!(errors[0].message, "must be an integer (got string \"two\")");

        let errors = training(
            &json!({ "name": "a", "projectId": 1, "spec": { "imagePullPolicy": "Sometimes" } }),
        )
        .unwrap_err();
        assert_eq!(paths(&errors), ["spec.imagePullPolicy"]);
        assert!(
            errors[0].message.contains("Always, IfNotPresent, Never"),
            "{}",
            errors[0].message
        );

        let errors = training(&json!(null)).unwrap_err();
        assert_eq!(paths(&errors), ["."]);
        assert_eq!(errors[0].message, "must be a JSON object (got null)");
    }

    #[test]
    fn validation_reports_all_problems_at_once() {
        let errors = training(&json!({
            "name": "Bad_Name", "projectId": 1,
            "spec": {
                "command": "echo 'unterminated",
                "compute": { "gpuRequestType": "portion", "gpuPortionRequest": 1.5 },
                "tolerations": [{ "key": "k", "operator": "Exists", "value": "v" }]
            }
        }))
        .unwrap_err();
        assert_eq!(
            paths(&errors),
            [
                "name",
                "spec.image",
                "spec.command",
                "spec.tolerations[0].value",
                "spec.compute.gpuPortionRequest"
            ]
        );
    }

    #[test]
    fn distributed_requests_separate_their_own_keys() {
        let ok = distributed(&json!({
            "name": "ddp", "projectId": "p",
            "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 2,
                      "master": { "image": "y" }, "masterSpecSameAsWorker": false }
        }))
        .unwrap();
        assert_eq!(ok.spec.num_workers, 2);
        assert_eq!(ok.spec.master_spec().image.as_deref(), Some("y"));

        let errors = distributed(&json!({
            "name": "ddp", "projectId": "p",
            "spec": { "image": "x", "numWorkers": 0, "master": { "bogus": 1 } }
        }))
        .unwrap_err();
        assert_eq!(
            paths(&errors),
            ["spec.master.bogus", "spec.distributedFramework"]
        );

        let errors = distributed(&json!({
            "name": "ddp", "projectId": "p",
            "spec": { "image": "x", "distributedFramework": "PyTorch", "numWorkers": 0, "minReplicas": 5 }
        }))
        .unwrap_err();
        assert_eq!(paths(&errors), ["spec.numWorkers", "spec.minReplicas"]);
    }
}
