//! docs/MAPPING.md names every field a request may carry, and the request types keep every field
//! of the seed request (nothing is silently dropped on the way in).

use serde_json::Value;
use utoipa::OpenApi;

fn leaf_paths(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let p = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                leaf_paths(child, &p, out);
            }
        }
        Value::Array(items) if items.first().is_some_and(|v| v.is_object()) => {
            leaf_paths(&items[0], &format!("{path}[]"), out);
        }
        _ => out.push(path.to_owned()),
    }
}

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/../core/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every field path a request of the schema `name` may carry, read from the OpenAPI document the
/// API serves, which utoipa derives from the request types: a field added to a type is a path
/// here without anyone listing it.
fn schema_paths(doc: &Value, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    schema_leaves(
        doc,
        &doc["components"]["schemas"][name],
        "",
        &mut out,
        &mut Vec::new(),
    );
    out
}

fn schema_leaves(
    doc: &Value,
    schema: &Value,
    path: &str,
    out: &mut Vec<String>,
    seen: &mut Vec<String>,
) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        // A type that contains itself would recurse forever; none does today.
        assert!(
            !seen.iter().any(|s| s == name),
            "{name} contains itself at {path}"
        );
        seen.push(name.to_owned());
        schema_leaves(doc, &doc["components"]["schemas"][name], path, out, seen);
        seen.pop();
        return;
    }
    // Optional fields are `oneOf: [null, T]`; untagged enums list their shapes the same way.
    for combined in ["oneOf", "anyOf", "allOf"] {
        if let Some(options) = schema[combined].as_array() {
            let shapes: Vec<&Value> = options.iter().filter(|o| o["type"] != "null").collect();
            if shapes
                .iter()
                .any(|o| o.get("$ref").is_some() || o.get("properties").is_some())
            {
                for shape in shapes {
                    schema_leaves(doc, shape, path, out, seen);
                }
                return;
            }
        }
    }
    if let Some(properties) = schema["properties"].as_object() {
        for (key, child) in properties {
            let p = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            schema_leaves(doc, child, &p, out, seen);
        }
    } else if schema
        .get("items")
        .is_some_and(|items| items.get("$ref").is_some() || items.get("properties").is_some())
    {
        let items = &schema["items"];
        let before = out.len();
        schema_leaves(doc, items, &format!("{path}[]"), out, seen);
        if out.len() == before {
            // An array of enum values or other scalars named by a reference.
            out.push(path.to_owned());
        }
    } else if !out.iter().any(|p| p == path) {
        out.push(path.to_owned());
    }
}

#[test]
fn every_request_field_is_in_the_mapping_table() {
    let doc = std::fs::read_to_string(format!("{}/../docs/MAPPING.md", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    let api = serde_json::to_value(server::http::api::openapi::ApiDoc::openapi()).unwrap();
    let mut paths = schema_paths(&api, "TrainingRequest");
    assert!(paths.len() > 120, "{}", paths.len());
    let mut seed = Vec::new();
    leaf_paths(&fixture("seed-003-request.json"), "", &mut seed);
    let unknown: Vec<&String> = seed.iter().filter(|p| !paths.contains(p)).collect();
    assert!(
        unknown.is_empty(),
        "the schema walk misses seed fields: {unknown:#?}"
    );
    // The master's spec is a training spec, documented above.
    paths.push("spec.master".into());
    paths.extend(
        schema_paths(&api, "DistributedRequest")
            .into_iter()
            .filter(|p| !p.starts_with("spec.master.")),
    );
    let mut generic = fixture("generic-ps-worker.json");
    generic["spec"]["runMode"] = serde_json::json!({
        "debug": { "enabled": true, "replicaSpecs": [{ "type": "x", "command": "c", "args": "a", "skipInitContainer": true }] },
        "pause": { "enabled": true, "resumeSpecs": [{ "type": "x", "command": "c", "args": "a", "skipInitContainer": true }] }
    });
    let mut generic_paths = Vec::new();
    leaf_paths(&generic["spec"], "spec", &mut generic_paths);
    // A replica's own spec is a training spec, documented above; a rule's keys are replica types.
    let rules = ["spec.successRules[]", "spec.failureRules[]"];
    paths.extend(generic_paths.into_iter().filter(|p| {
        !p.starts_with("spec.replicaSpecs[].spec.") && !rules.iter().any(|r| p.starts_with(r))
    }));
    paths.push("spec.replicaSpecs[].spec".into());
    paths.extend(rules.map(str::to_owned));
    let missing: Vec<&String> = paths
        .iter()
        .filter(|p| !doc.contains(&format!("`{p}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/MAPPING.md does not mention: {missing:#?}"
    );
}

#[test]
fn the_request_types_keep_every_field_of_the_seed() {
    let seed = fixture("seed-003-consistent.json");
    let parsed =
        tephra_core::model::training::parse::training(&seed).expect("the consistent seed is valid");
    let round_trip = serde_json::to_value(parsed.request()).unwrap();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    leaf_paths(&seed, "", &mut before);
    leaf_paths(&round_trip, "", &mut after);
    before.sort();
    after.sort();
    assert_eq!(before, after);
}
