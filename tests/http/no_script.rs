//! The trainings' pages without JavaScript: the list and a training read as plain HTML, and the
//! new-training form submitted as a plain form.

use super::Running;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn the_trainings_list_and_a_training_read_without_javascript() {
    let server = Running::start().await;
    let first = server.submit("resnet-a").await;
    server.submit("bert-b").await;

    let list = server.get("/trainings").await.text().await.unwrap();
    assert!(
        list.contains("resnet-a") && list.contains("bert-b"),
        "{list}"
    );
    assert!(list.contains(&format!("/trainings/{}", first.workload_id)));
    assert!(
        list.contains("data-phase=\"Creating\""),
        "rows carry their phase"
    );
    assert!(list.contains("1–2 of 2"), "the page says what it shows");

    let filtered = server
        .get("/trainings?name=bert")
        .await
        .text()
        .await
        .unwrap();
    assert!(filtered.contains("bert-b") && !filtered.contains("resnet-a"));
    let none = server
        .get("/trainings?phase=Running")
        .await
        .text()
        .await
        .unwrap();
    assert!(none.contains("No trainings match these filters"), "{none}");
    let sorted = server
        .get("/trainings?sortBy=name&sortOrder=asc")
        .await
        .text()
        .await
        .unwrap();
    let (a, b) = (
        sorted.find("bert-b").unwrap(),
        sorted.find("resnet-a").unwrap(),
    );
    assert!(a < b, "sorted by name, ascending");
    let paged = server
        .get("/trainings?limit=1&offset=1")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        paged.contains("2–2 of 2") && paged.contains("Previous"),
        "{paged}"
    );

    let detail = server
        .get(&format!("/trainings/{}", first.workload_id))
        .await
        .text()
        .await
        .unwrap();
    for expected in [
        "resnet-a",
        "Timeline",
        "Submitted by",
        "What was asked for",
        "batch.volcano.sh/v1alpha1",
        "no Kubernetes cluster is configured",
    ] {
        assert!(
            detail.contains(expected),
            "the detail page shows {expected:?}"
        );
    }
    let missing = server.get("/trainings/not-a-training").await;
    let missing = missing.text().await.unwrap();
    assert!(
        missing.contains("no workload with the id") && missing.contains("not-a-training"),
        "an unknown id says so"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_new_training_form_submits_without_javascript() {
    use app::draft::fields::{compute, name, project, spec};
    use app::draft::posted::{GPU_MODE, input_name, unchecked_name};
    use app::draft::{Kind, Path};
    let server = Running::start().await;
    let client = Running::no_redirects();
    let form = server.get("/trainings/new").await.text().await.unwrap();
    let field = |kind: Kind, path: &Path| format!("draft[{}]", input_name(kind, path));
    let image = spec().key("image");
    let shm = compute().key("largeShmRequest");
    for posted in [
        field(Kind::Required, &name()),
        field(Kind::Text, &image),
        format!("draft[{GPU_MODE}]"),
        "draft[distributed]".to_owned(),
        format!("draft[{}]", unchecked_name(Kind::Flag, &shm)),
        "draft[document]".to_owned(),
    ] {
        let attribute = format!("name=\"{posted}\"");
        assert!(form.contains(&attribute), "the form posts {posted}");
    }
    let post = |pairs: Vec<(String, String)>| {
        client
            .post(format!("{}/api/fn/submit_training_form", server.base))
            .header("accept", "text/html")
            .header("referer", format!("{}/trainings/new", server.base))
            .form(&pairs)
            .send()
    };
    let typed = |name_text: &str| {
        vec![
            (field(Kind::Required, &name()), name_text.to_owned()),
            (field(Kind::Text, &project()), "default".to_owned()),
            (field(Kind::Text, &image), "busybox".to_owned()),
            (format!("draft[{GPU_MODE}]"), "devices".to_owned()),
            (
                field(Kind::Number, &compute().key("gpuDevicesRequest")),
                "1".to_owned(),
            ),
            (
                format!("draft[{}]", unchecked_name(Kind::Flag, &shm)),
                String::new(),
            ),
            (field(Kind::Flag, &shm), "true".to_owned()),
        ]
    };

    let accepted = post(typed("plain-form")).await.unwrap();
    assert!(accepted.status().is_redirection(), "{}", accepted.status());
    let to = accepted.headers()["location"].to_str().unwrap().to_owned();
    assert!(to.starts_with("/trainings/"), "to the new training: {to}");
    let stored = server
        .db
        .workloads()
        .list(&Default::default())
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(
        stored[0].workload.spec["spec"]["compute"]["largeShmRequest"],
        true
    );

    let rejected = post(typed("Bad_Name")).await.unwrap();
    assert!(rejected.status().is_redirection());
    let back = rejected.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        back.starts_with("/trainings/new?draft="),
        "back to the form: {back}"
    );
    let page = server.get(&back).await.text().await.unwrap();
    // The inputs themselves carry what was typed, so the page reads right before (or without)
    // hydration, not only the hidden document.
    let name_field = field(Kind::Required, &name());
    assert_eq!(
        input(&page, &name_field, "value").as_deref(),
        Some("Bad_Name")
    );
    assert!(input(&page, &field(Kind::Flag, &shm), "checked").is_some());
    assert!(
        page.contains("lowercase letters, digits or"),
        "the name's message is shown"
    );
    assert!(
        page.contains("data-testid=\"from-link\"") && page.contains("runs image busybox"),
        "a form filled in from its address says so"
    );
    // Anyone can send such a link: the form names what it would mount before it is submitted.
    let crafted = serde_json::json!({"name": "x", "projectId": "default", "spec": {
        "image": "busybox", "storage": {"secretVolume": [{"secret": "db-password", "mountPath": "/s"}]}}});
    let link = format!(
        "/trainings/new?draft={}",
        tephra_core::model::url::encode(&crafted.to_string())
    );
    let page = server.get(&link).await.text().await.unwrap();
    assert!(
        page.contains("mounts Secret db-password at /s"),
        "the crafted link's Secret is named"
    );
    let plain = server.get("/trainings/new").await.text().await.unwrap();
    assert!(
        !plain.contains("from-link"),
        "a plain form has no such notice"
    );
    assert_eq!(
        server
            .db
            .workloads()
            .list(&Default::default())
            .await
            .unwrap()
            .len(),
        1,
        "nothing more was stored"
    );

    let id = to.trim_start_matches("/trainings/");
    let clone = server.get(&format!("/trainings/new?from={id}")).await;
    let clone = clone.text().await.unwrap();
    assert_eq!(
        input(&clone, &name_field, "value").as_deref(),
        Some("plain-form-copy")
    );
    assert_eq!(
        input(&clone, &field(Kind::Text, &image), "value").as_deref(),
        Some("busybox")
    );
    server.stop().await;
}

/// The value of `attribute` on the `<input>` posted as `name`, if the page has one that carries
/// it (`Some("")` for a bare boolean attribute).
fn input(page: &str, name: &str, attribute: &str) -> Option<String> {
    let named = format!("name=\"{name}\"");
    let tag = page
        .split("<input")
        .skip(1)
        .map(|rest| &rest[..rest.find('>').unwrap_or(rest.len())])
        .find(|tag| tag.contains(&named))?;
    let start = tag.find(&format!(" {attribute}"))? + attribute.len() + 1;
    Some(match tag[start..].strip_prefix("=\"") {
        Some(quoted) => quoted[..quoted.find('"')?].replace("&quot;", "\""),
        None => String::new(),
    })
}

/// The Admin page's audit trail says what a department's change did in words, with the whole
/// detail one click away, as plain HTML.
#[tokio::test]
async fn the_audit_trail_reads_a_quota_change_in_words() {
    let server = Running::start().await;
    let pool =
        |gpus: u32| json!([{ "nodePool": { "name": "default" }, "gpu": { "deserved": gpus } }]);
    let departments = "/api/v1/org-unit/departments";
    let lab = json!({ "name": "lab", "resources": pool(8) });
    let made: serde_json::Value = server
        .send(Method::POST, departments, &lab)
        .await
        .json()
        .await
        .unwrap();
    let path = format!("{departments}/{}", made["id"].as_str().unwrap());
    let raised = json!({ "name": "lab", "resources": pool(16) });
    let changed = server.send(Method::PUT, &path, &raised).await;
    assert_eq!(changed.status(), 200);
    let page = server
        .get("/admin?action=department.update")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("resources: default pool 8 GPUs → default pool 16 GPUs"),
        "{page}"
    );
    assert!(
        page.contains("<details"),
        "the whole detail is one click away"
    );
    server.stop().await;
}
