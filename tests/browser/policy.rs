//! The form reads the project's policies: their defaults are filled in, a locked field is shown
//! read-only with who locked it, a range is shown beside its field, a value outside it gets the
//! server's own refusal before submit, and a volume kind nobody may add cannot be chosen.

use fantoccini::Locator;
use serde_json::{Value, json};
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn the_form_fills_shows_and_keeps_the_projects_policy() -> anyhow::Result<()> {
    let server = tephra::start_release()?;
    let base = server.base_url();
    let http = tephra_tests::http();
    let res = http
        .put(format!("{base}/api/v2/policy/trainings"))
        .json(&json!({
            "meta": { "scope": "project", "projectId": "default" },
            "policy": {
                "defaults": { "compute": { "gpuDevicesRequest": 1 }, "imagePullPolicy": "Always" },
                "rules": {
                    "compute": { "gpuDevicesRequest": { "max": 2 } },
                    "imagePullPolicy": { "canEdit": false }
                }
            }
        }))
        .send()
        .await?;
    assert_eq!(res.status(), 200, "{}", res.text().await?);

    let browser = Browser::start().await?;
    let c = &browser.client;
    browser.open(&format!("{base}/trainings/new")).await?;

    // The default is filled in, and the range is shown beside the field.
    let gpus = c
        .find(Locator::Id("f-spec-compute-gpuDevicesRequest"))
        .await?;
    assert_eq!(gpus.prop("value").await?.as_deref(), Some("1"));
    let range = browser
        .text_of("[data-policy-for=f-spec-compute-gpuDevicesRequest]", WAIT)
        .await?;
    assert_eq!(
        range,
        "Allowed: at most 2; set by project \"default\"'s policy."
    );

    // A locked field is shown, set to its default, and cannot be changed.
    let pull = c.find(Locator::Id("f-spec-imagePullPolicy")).await?;
    assert_eq!(pull.prop("disabled").await?.as_deref(), Some("true"));
    assert_eq!(pull.prop("value").await?.as_deref(), Some("Always"));
    let why = browser
        .text_of("[data-policy-for=f-spec-imagePullPolicy]", WAIT)
        .await?;
    assert_eq!(why, "Locked by project \"default\"'s policy.");
    // The built-in system policy locks the host's network and forbids host paths.
    let host_network = c.find(Locator::Id("f-spec-security-hostNetwork")).await?;
    assert_eq!(
        host_network.prop("disabled").await?.as_deref(),
        Some("true")
    );
    let host_path = c
        .find(Locator::Css("#f-new-volume-kind option[value=hostPath]"))
        .await?;
    assert_eq!(host_path.prop("disabled").await?.as_deref(), Some("true"));
    let storage = browser
        .text_of("[data-testid=storage-policy]", WAIT)
        .await?;
    assert!(
        storage.contains("Host path: Allowed: no entries may be added; set by the system policy."),
        "{storage}"
    );
    browser.screenshot("form-policy").await?;

    // A valid draft gets the server's answer to "will it fit now?".
    browser.fill("f-name", "too-many").await?;
    browser.fill("f-spec-image", "busybox").await?;
    browser
        .fill("f-spec-compute-gpuDevicesRequest", "2")
        .await?;
    let fit = browser
        .wait_text("[data-testid=fit-verdict]", "Asks 2 GPU(s)", WAIT)
        .await?;
    assert!(fit.contains("Fits now"), "{fit}");

    // Beyond the range: the form says what the API says, before anything is sent.
    browser
        .fill("f-spec-compute-gpuDevicesRequest", "3")
        .await?;
    let shown = browser
        .wait_text(
            "[data-error-for=f-spec-compute-gpuDevicesRequest]",
            "at most 2",
            WAIT,
        )
        .await?;
    let res = http
        .post(format!("{base}/api/v1/workloads/trainings"))
        .json(&json!({ "name": "too-many", "projectId": "default",
                       "spec": { "image": "busybox", "compute": { "gpuDevicesRequest": 3 } } }))
        .send()
        .await?;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await?;
    let api = body["details"]
        .as_array()
        .and_then(|d| {
            d.iter()
                .find(|d| d["field"] == "spec.compute.gpuDevicesRequest")
        })
        .and_then(|d| d["message"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(shown, api, "{body}");
    assert_eq!(shown, "must be at most 2 (project \"default\"'s policy)");
    browser.close().await?;
    Ok(())
}
