//! docs/MAPPING.md names every field a request may carry, and the request types keep every field
//! of the seed request (nothing is silently dropped on the way in).

use serde_json::Value;

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
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Fields Tephra accepts beyond the seed's example.
const ADDITIONS: [&str; 8] = [
    "spec.storage.git[].repository",
    "spec.storage.s3[].url",
    "spec.distributedFramework",
    "spec.numWorkers",
    "spec.minReplicas",
    "spec.maxReplicas",
    "spec.masterSpecSameAsWorker",
    "spec.master",
];

#[test]
fn every_request_field_is_in_the_mapping_table() {
    let doc = std::fs::read_to_string(format!("{}/../docs/MAPPING.md", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    let mut paths = Vec::new();
    leaf_paths(&fixture("seed-003-request.json"), "", &mut paths);
    assert!(paths.len() > 120, "{}", paths.len());
    paths.extend(ADDITIONS.iter().map(|s| s.to_string()));
    let mut generic = fixture("generic-ps-worker.json");
    generic["spec"]["runMode"] = serde_json::json!({
        "debug": { "enabled": true, "replicaSpecs": [{ "type": "x", "command": "c", "args": "a", "skipInitContainer": true }] },
        "pause": { "enabled": true, "resumeSpecs": [{ "type": "x", "command": "c", "args": "a", "skipInitContainer": true }] }
    });
    generic["spec"]["failureRules"][0]["name"] = "any".into();
    let mut generic_paths = Vec::new();
    leaf_paths(&generic["spec"], "spec", &mut generic_paths);
    // A replica's own spec is a training spec, documented above.
    paths.extend(
        generic_paths
            .into_iter()
            .filter(|p| !p.starts_with("spec.replicaSpecs[].spec.")),
    );
    paths.push("spec.replicaSpecs[].spec".into());
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
        app::model::training::parse::training(&seed).expect("the consistent seed is valid");
    let round_trip = serde_json::to_value(parsed.request()).unwrap();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    leaf_paths(&seed, "", &mut before);
    leaf_paths(&round_trip, "", &mut after);
    before.sort();
    after.sort();
    assert_eq!(before, after);
}
