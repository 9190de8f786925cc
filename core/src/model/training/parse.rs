//! JSON to request types, reporting unknown fields and type errors by path, then running
//! validation so one answer lists every problem.

use super::checked::{Distributed, Generic, Training};
use super::distributed::{DISTRIBUTED_KEYS, DistributedRequest, DistributedSpec};
use super::request::{TrainingRequest, TrainingSpec};
use super::validate;
use crate::model::validation::{FieldError, index, join};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Parses and validates a training request.
pub fn training(value: &Value) -> Result<Training, Vec<FieldError>> {
    without_nul(value, |value| validate::training(strict(value, "")?))
}

/// Parses and validates a generic multi-replica request.
pub fn generic(value: &Value) -> Result<Generic, Vec<FieldError>> {
    without_nul(value, |value| validate::generic(strict(value, "")?))
}

/// Parses and validates a distributed training request.
pub fn distributed(value: &Value) -> Result<Distributed, Vec<FieldError>> {
    without_nul(value, distributed_request)
}

/// Every string and object key of a request that holds U+0000, by path. PostgreSQL cannot store
/// the character in text or jsonb (the insert fails) while SQLite keeps it, and no Kubernetes
/// field takes it, so a request holding one is refused before it reaches either.
pub fn nul_characters(value: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    find_nul(value, "", &mut errors);
    errors
}

fn find_nul(value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let here = || {
        if path.is_empty() {
            ".".to_owned()
        } else {
            path.to_owned()
        }
    };
    match value {
        Value::String(s) if s.contains('\0') => errors.push(FieldError {
            path: here(),
            message: "must not contain a NUL character (\\u0000)".into(),
        }),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                find_nul(item, &index(path, i), errors);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                if key.contains('\0') {
                    // The key cannot be part of a path; the object holding it is named instead.
                    errors.push(FieldError {
                        path: here(),
                        message: format!(
                            "must not contain a NUL character (\\u0000) in its keys (got {key:?})"
                        ),
                    });
                } else {
                    find_nul(item, &join(path, key), errors);
                }
            }
        }
        _ => {}
    }
}

/// Runs `parse` and puts the NUL characters first. Other rules would report the same strings
/// (escaped, under the same paths) or paths holding the NUL itself, so those are left out.
fn without_nul<T>(
    value: &Value,
    parse: impl FnOnce(&Value) -> Result<T, Vec<FieldError>>,
) -> Result<T, Vec<FieldError>> {
    let mut errors = nul_characters(value);
    if errors.is_empty() {
        return parse(value);
    }
    if let Err(others) = parse(value) {
        let others: Vec<FieldError> = others
            .into_iter()
            .filter(|e| {
                // A quoted key shows its NUL escaped; either way the report is about the NUL.
                let names_nul = e.path.contains('\0') || e.path.contains("\\u0000");
                !names_nul && !errors.iter().any(|n| n.path == e.path)
            })
            .collect();
        errors.extend(others);
    }
    Err(errors)
}

/// Its spec is a [`TrainingSpec`] (the worker's) plus the distributed keys, so the two are
/// separated before each is parsed strictly.
fn distributed_request(value: &Value) -> Result<Distributed, Vec<FieldError>> {
    let Value::Object(top) = value else {
        return Err(vec![not_an_object("")]);
    };
    let mut errors = Vec::new();
    let mut header = top.clone();
    let spec_value = header
        .remove("spec")
        .unwrap_or(Value::Object(Default::default()));
    // Run:ai's current schema has the master beside the spec; Tephra also reads it inside.
    let top_master = header.remove("masterSpec");
    let top_same = header.remove("masterSpecSameAsWorker");
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
    let (master, master_at_top) = master_spec(&mut extra, top_master, top_same, &mut errors);
    let jax = refuse_jax(&mut extra, &mut errors);
    let extra: Option<Extra> = strict(&Value::Object(extra), "spec")
        .map_err(|e| errors.extend(e))
        .ok();
    let (Some(head), Some(worker), Some(extra)) = (head, worker, extra) else {
        return Err(errors);
    };
    let (Some(framework), Some(num_workers)) = (extra.distributed_framework, extra.num_workers)
    else {
        missing_required(&extra, jax, &mut errors);
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
            slots_per_worker: extra.slots_per_worker,
            ssh_auth_mount_path: extra.ssh_auth_mount_path,
            mpi_launcher_creation_policy: extra.mpi_launcher_creation_policy,
            clean_pod_policy: extra.clean_pod_policy,
            master_at_top,
        },
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    validate::distributed(request)
}

/// The distributed keys of the spec, parsed apart from the worker's [`TrainingSpec`].
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Extra {
    distributed_framework: Option<super::distributed::Framework>,
    num_workers: Option<i64>,
    min_replicas: Option<i64>,
    max_replicas: Option<i64>,
    master_spec_same_as_worker: Option<bool>,
    slots_per_worker: Option<i64>,
    ssh_auth_mount_path: Option<String>,
    mpi_launcher_creation_policy: Option<super::distributed::MpiLauncherCreationPolicy>,
    clean_pod_policy: Option<super::distributed::CleanPodPolicy>,
}

/// The master's spec, from Run:ai's `masterSpec` beside the spec or Tephra's `spec.master`, and
/// whether the request put it (or `masterSpecSameAsWorker`) beside the spec. Leaves
/// `masterSpecSameAsWorker` in `extra` and takes `master` out of it.
fn master_spec(
    extra: &mut serde_json::Map<String, Value>,
    top_master: Option<Value>,
    top_same: Option<Value>,
    errors: &mut Vec<FieldError>,
) -> (Option<TrainingSpec>, bool) {
    for (top, inner, value) in [
        ("masterSpec", "master", &top_master),
        (
            "masterSpecSameAsWorker",
            "masterSpecSameAsWorker",
            &top_same,
        ),
    ] {
        if value.is_some() && extra.contains_key(inner) {
            errors.push(FieldError {
                path: top.into(),
                message: format!(
                    "is also given as spec.{inner}; set it in one place (Run:ai's is {top})"
                ),
            });
        }
    }
    let master_at_top = top_master.as_ref().is_some_and(|m| !m.is_null())
        || (top_same.is_some() && !extra.contains_key("master"));
    if let Some(same) = top_same {
        extra.insert("masterSpecSameAsWorker".into(), same);
    }
    let inner_master = extra.remove("master");
    let (master_value, master_path) = match top_master {
        Some(m) if !m.is_null() => (Some(m), "masterSpec"),
        _ => (inner_master, "spec.master"),
    };
    let master = match master_value {
        None | Some(Value::Null) => None,
        Some(m) => strict::<TrainingSpec>(&m, master_path)
            .map_err(|e| errors.extend(e))
            .ok(),
    };
    (master, master_at_top)
}

/// Takes a `distributedFramework` of JAX out of `extra`, reporting it; whether it was JAX.
fn refuse_jax(extra: &mut serde_json::Map<String, Value>, errors: &mut Vec<FieldError>) -> bool {
    // Run:ai's JAX is a Kubeflow JAXJob; Volcano has no plugin that gives JAX its coordinator,
    // so it is named with what to do instead rather than listed as merely unknown.
    let jax = extra.get("distributedFramework").and_then(Value::as_str) == Some("JAX");
    if jax {
        extra.remove("distributedFramework");
        errors.push(FieldError {
            path: "spec.distributedFramework".into(),
            message: JAX_REFUSED.into(),
        });
    }
    jax
}

/// The keys a distributed request cannot do without; a JAX framework was reported already.
fn missing_required(extra: &Extra, jax: bool, errors: &mut Vec<FieldError>) {
    if extra.distributed_framework.is_none() && !jax {
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
}

const JAX_REFUSED: &str = "JAX is not supported: Volcano has no JAX plugin to give the processes \
     their coordinator, count and index; use PyTorch, whose plugin sets MASTER_ADDR, MASTER_PORT, \
     WORLD_SIZE and RANK, and pass them to jax.distributed.initialize";

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
    // An integer beyond i64 (serde_json keeps up to u64 as integers); larger ones arrive as
    // floats and fail as a type above.
    if let Some(rest) = serde_message.strip_prefix("invalid value: integer `")
        && let Some((got, expected)) = rest.split_once("`, expected ")
        && let Some((min, max)) = match expected {
            "i64" => Some((i64::MIN.to_string(), i64::MAX.to_string())),
            "i32" => Some((i32::MIN.to_string(), i32::MAX.to_string())),
            "u64" => Some(("0".to_owned(), u64::MAX.to_string())),
            _ => None,
        }
    {
        return format!("must be between {min} and {max} (got {got})");
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
        Path::Map { parent, key } => key_path(&ignored_path(parent), key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_path(parent),
    }
}

/// `parent.key` for a plain key; `parent["key"]` for one that is empty or holds characters a
/// dotted path cannot show, so every unknown key gets a path that names it unambiguously.
fn key_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        join(parent, key)
    } else {
        let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("{key:?}"));
        format!("{parent}[{quoted}]")
    }
}

#[cfg(test)]
mod tests;
