//! A generic job from the form: replica types sharing the form's spec, one with its own command,
//! started paused; the preview shows each type as a task, and the API stores exactly that.

use fantoccini::Locator;
use serde_json::{Value, json};
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

const WAIT: Duration = Duration::from_secs(10);

async fn click_text(browser: &Browser, tag: &str, text: &str) {
    browser.settled().await.unwrap();
    browser
        .client
        .find(Locator::XPath(&format!("//{tag}[contains(., '{text}')]")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_generic_job_is_written_in_the_form_and_stored_paused() {
    let server = tephra::start_release().expect("the release server starts");
    let browser = Browser::start().await.expect("Chromium starts");
    let base = server.base_url();
    browser
        .open(&format!("{base}/trainings/new"))
        .await
        .unwrap();
    browser.fill("f-name", "tf-ps").await.unwrap();
    browser
        .fill("f-spec-image", "tensorflow/tensorflow:2.16.1")
        .await
        .unwrap();
    browser
        .fill("f-spec-command", "python worker.py")
        .await
        .unwrap();
    browser.click("#f-generic").await.unwrap();
    browser
        .fill("f-spec-replicaSpecs-0--replicas", "2")
        .await
        .unwrap();
    browser
        .fill("f-spec-replicaSpecs-0--restartPolicy-limit", "3")
        .await
        .unwrap();
    click_text(&browser, "button", "Add a replica type").await;
    browser
        .fill("f-spec-replicaSpecs-1--type", "ps")
        .await
        .unwrap();
    browser
        .fill("f-spec-replicaSpecs-1--spec-command", "python ps.py")
        .await
        .unwrap();
    browser
        .select("f-spec-cleanUpPolicy", "Unfinished")
        .await
        .unwrap();
    browser
        .click("#f-spec-runMode-pause-enabled")
        .await
        .unwrap();
    browser.screenshot("form-generic").await.unwrap();

    browser.click("[data-testid=preview-toggle]").await.unwrap();
    let yaml = browser
        .wait_text("[data-testid=yaml-preview]", "kind: Job", WAIT)
        .await
        .unwrap();
    for expected in [
        "name: worker",
        "name: ps",
        "restartPolicy: OnFailure",
        "tephra.dev/run-mode: pause",
    ] {
        assert!(yaml.contains(expected), "{expected:?} in\n{yaml}");
    }

    browser.click("[data-testid=submit]").await.unwrap();
    browser
        .wait_text("[data-testid=training-name]", "tf-ps", WAIT)
        .await
        .unwrap();
    let header = browser.text_of("main", WAIT).await.unwrap();
    assert!(header.contains("Generic job"), "{header}");
    // Hydrated, the creation time reads as an age; served, as the time itself (no " ago").
    browser
        .wait_text("[data-testid=created-line]", " ago", WAIT)
        .await
        .unwrap();
    let list: Value = reqwest::get(format!("{base}/api/v1/workloads/generic"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let job = &list["generic"][0];
    assert_eq!(job["actualPhase"], "Stopped", "started paused: {job}");
    let id = job["workloadId"].as_str().unwrap();
    let page = reqwest::get(format!("{base}/trainings/{id}"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let line = page
        .split("data-testid=\"created-line\"")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .unwrap_or_default();
    assert!(
        line.contains("created") && !line.contains("ago"),
        "served: {line}"
    );
    let stored: Value = reqwest::get(format!("{base}/api/v1/workloads/generic/{id}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let replicas = &stored["spec"]["replicaSpecs"];
    assert_eq!(
        (
            &replicas[0]["spec"]["command"],
            &replicas[1]["spec"]["command"]
        ),
        (&json!("python worker.py"), &json!("python ps.py")),
        "{stored}"
    );
    assert_eq!(
        replicas[1]["spec"]["image"], "tensorflow/tensorflow:2.16.1",
        "the spec is shared"
    );
    assert_eq!(replicas[0]["restartPolicy"]["limit"], 3);
    browser.close().await.unwrap();
}
