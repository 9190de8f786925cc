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
            let path = if path == "." {
                prefix.to_owned()
            } else {
                join(prefix, &path)
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
            "i64" | "u64" | "i32" | "u32" => "an integer",
            "f64" => "a number",
            "a boolean" => "true or false",
            "a string" => "a string",
            "a sequence" => "a list",
            other => other,
        };
        return format!("must be {expected} (got {got})");
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
