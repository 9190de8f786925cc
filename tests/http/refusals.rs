//! What the submit refuses and what it accepts with a word: a bad request gets a 400 naming the
//! field and stores nothing; fields without effect are accepted and named in the answer.

use super::Running;

#[tokio::test]
async fn fields_without_effect_are_accepted_and_named_in_the_answer() {
    let server = Running::start().await;
    let res = server
        .client
        .post(format!("{}/api/v1/workloads/trainings", server.base))
        .json(&serde_json::json!({
            "name": "warned", "projectId": "default",
            "spec": { "image": "busybox",
                      "security": { "uidGidSource": "fromTheImage", "runAsUid": 500 } },
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(
        body["warnings"],
        serde_json::json!([{
            "path": "spec.security.runAsUid",
            "message": "has no effect with uidGidSource fromTheImage (the image's user is used); \
                        it is used with uidGidSource custom",
        }])
    );
    // Reading it back: the spec as sent, and no warnings (they belong to the submit's answer).
    let id = body["workloadId"].as_str().unwrap();
    let read: serde_json::Value = server
        .get(&format!("/api/v1/workloads/trainings/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(read["spec"]["security"]["runAsUid"], 500);
    assert!(read.get("warnings").is_none(), "{read}");
    server.stop().await;
}

/// Bad input is refused over HTTP with a 400 naming the field, before anything is stored.
#[tokio::test]
async fn bad_input_is_refused_with_a_400_naming_the_field() {
    let server = Running::start().await;
    let nul = "must not contain a NUL character (\\u0000)";
    let cases = [
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "command": "sleep\u{0}60" } }),
            "spec.command",
            nul,
        ),
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "probes": { "readiness": {
                    "periodSeconds": 4294967297u64, "handler": { "httpGet": { "port": 80 } } } } } }),
            "spec.probes.readiness.periodSeconds",
            "must be between 1 and 2147483647 (got 4294967297)",
        ),
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "compute": { "cpuMemoryRequest": "1e400" } } }),
            "spec.compute.cpuMemoryRequest",
            "must be below 8Ei (2^63 base units, the most Kubernetes can count) (got \"1e400\")",
        ),
        (
            "trainings",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "parallelism": 3000000 } }),
            "spec.parallelism",
            "asks for 3000000 pods at once; this Tephra allows at most 1000 per workload \
             (--max-pods-per-workload)",
        ),
        (
            "distributed",
            serde_json::json!({ "name": "bad", "projectId": "default",
                "spec": { "image": "busybox", "distributedFramework": "PyTorch",
                          "numWorkers": 5000 } }),
            "spec.numWorkers",
            "asks for 5001 pods at once; this Tephra allows at most 1000 per workload \
             (--max-pods-per-workload)",
        ),
    ];
    for (path, body, field, message) in cases {
        let res = server
            .client
            .post(format!("{}/api/v1/workloads/{path}", server.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{body}");
        let answer: serde_json::Value = res.json().await.unwrap();
        assert_eq!(
            answer["details"],
            serde_json::json!([{ "field": field, "message": message }]),
            "{answer}"
        );
    }
    let listed = server
        .db
        .workloads()
        .count(&server::db::workloads::WorkloadFilter {
            include_deleted: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(listed, 0, "nothing was stored");
    server.stop().await;
}
