use super::*;
use serde_json::json;

fn gpus(deserved: Option<f64>, limit: Option<f64>) -> Value {
    json!([{ "nodePool": { "id": null, "name": "default" },
             "gpu": { "deserved": deserved, "limit": limit, "overQuotaWeight": null },
             "cpu": { "deserved": null, "limit": null, "overQuotaWeight": null },
             "memory": { "deserved": null, "limit": null, "overQuotaWeight": null } }])
}

#[test]
fn a_quota_change_reads_as_before_and_after_in_words() {
    let detail = json!({
        "departmentId": "2", "name": "trial69",
        "before": { "resources": gpus(Some(8.0), Some(12.0)) },
        "after": { "resources": gpus(Some(16.0), None) },
    });
    assert_eq!(
        summary(&detail),
        "departmentId 2 · name trial69 · resources: default pool 8 GPUs up to 12 GPUs → \
         default pool 16 GPUs"
    );
}

#[test]
fn a_create_lists_what_it_set_and_a_delete_what_it_had() {
    let made = json!({
        "name": "vision", "before": null,
        "after": { "description": "", "resources": gpus(Some(1.0), None), "schedulingRules": null },
    });
    assert_eq!(
        summary(&made),
        "name vision · made with resources default pool 1 GPU"
    );
    let gone = json!({ "name": "vision", "before": { "description": "" }, "after": null });
    assert_eq!(summary(&gone), "name vision · had nothing set");
}

#[test]
fn plain_details_read_as_their_fields() {
    assert_eq!(
        summary(&json!({ "from": "Running", "to": "Stopped" })),
        "from Running · to Stopped"
    );
    assert_eq!(
        summary(&json!({ "scope": "project", "scopeId": null, "kind": "training" })),
        "kind training · scope project",
        "in the order of the keys, as both databases give them back"
    );
    assert_eq!(summary(&json!({})), "");
    assert_eq!(summary(&json!("text")), "text");
    assert_eq!(
        summary(&json!({ "changes": { "image": "a", "gpus": 2, "pools": ["x", "y"] } })),
        "changes {gpus 2, image a, pools [x, y]}"
    );
}

#[test]
fn a_pool_without_a_quota_and_odd_lists_stay_readable() {
    let none = json!({ "after": { "resources": gpus(None, None) }, "before": { "resources": [] } });
    assert_eq!(summary(&none), "resources: [] → default pool no quota");
    let weight = json!([{ "nodePool": { "name": "a100" },
                          "gpu": { "overQuotaWeight": 3 }, "cpu": { "deserved": 1500 } }]);
    assert_eq!(words(&weight), "a100 pool weight 3, 1500m CPU");
    // Not pools after all: a list whose items only look like them is shown as it is.
    let odd = json!([{ "nodePool": 7 }]);
    assert_eq!(words(&odd), "[{nodePool 7}]");
}

#[test]
fn a_long_summary_is_cut_on_a_character_boundary() {
    let long = json!({ "reason": "é".repeat(MAX_CHARS + 10) });
    let cut = summary(&long);
    assert!(cut.ends_with('…'));
    assert_eq!(cut.chars().count(), MAX_CHARS + 1);
    assert_eq!(summary(&json!({ "reason": "short" })), "reason short");
}
