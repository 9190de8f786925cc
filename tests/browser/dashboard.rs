//! The dashboard in a real browser without a cluster: the form's validation against the API's,
//! accessibility of every page (light and dark), and keyboard focus.

use fantoccini::Locator;
use fantoccini::key::Key;
use futures::StreamExt;
use serde_json::Value;
use std::time::Duration;
use tephra_tests::axe;
use tephra_tests::browser::Browser;
use tephra_tests::tephra::{self, TephraServer};

const WAIT: Duration = Duration::from_secs(10);

async fn submit(server: &TephraServer, name: &str) -> Value {
    let res = tephra_tests::http()
        .post(format!("{}/api/v1/workloads/trainings", server.base_url()))
        .json(&serde_json::json!({
            "name": name, "projectId": "default",
            "spec": {"image": "busybox", "command": "sleep 60", "compute": {"gpuDevicesRequest": 1}},
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    res.json().await.unwrap()
}

/// The message the page shows under the field with this element id.
async fn message_under(browser: &Browser, id: &str) -> String {
    let css = format!("[data-error-for='{id}']");
    let c = &browser.client;
    tephra_tests::wait_for(&format!("a message under #{id}"), WAIT, || async {
        let text = c.find(Locator::Css(&css)).await.ok()?.text().await.ok()?;
        (!text.is_empty()).then_some(text)
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn invalid_input_gets_the_apis_own_message_before_submit() {
    let server = tephra::start_release().expect("the release server starts");
    let browser = Browser::start().await.expect("Chromium starts");
    let base = server.base_url();
    browser
        .open(&format!("{base}/trainings/new"))
        .await
        .unwrap();

    browser.fill("f-name", "Bad_Name").await.unwrap();
    let name = message_under(&browser, "f-name").await;
    browser.click("#gpu-mode-portion").await.unwrap();
    browser
        .fill("f-spec-compute-gpuPortionRequest", "1.5")
        .await
        .unwrap();
    let portion = message_under(&browser, "f-spec-compute-gpuPortionRequest").await;
    browser.settled().await.unwrap();
    browser
        .client
        .find(Locator::XPath("//button[contains(., 'Add a toleration')]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .select("f-spec-tolerations-0--operator", "Exists")
        .await
        .unwrap();
    browser
        .fill("f-spec-tolerations-0--value", "gpu")
        .await
        .unwrap();
    let toleration = message_under(&browser, "f-spec-tolerations-0--value").await;
    browser.screenshot("form-invalid-input").await.unwrap();

    // The same input, sent to the API by a script.
    let request = serde_json::json!({
        "name": "Bad_Name",
        "projectId": "default",
        "spec": {
            "compute": {"gpuRequestType": "portion", "gpuPortionRequest": 1.5},
            "tolerations": [{"operator": "Exists", "value": "gpu"}],
        },
    });
    let res = tephra_tests::http()
        .post(format!("{base}/api/v1/workloads/trainings"))
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    let api = |path: &str| {
        body["details"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["field"] == path)
            .and_then(|d| d["message"].as_str())
            .unwrap_or_else(|| panic!("the API names {path}: {body}"))
            .to_owned()
    };
    assert_eq!(name, api("name"));
    assert_eq!(portion, api("spec.compute.gpuPortionRequest"));
    assert_eq!(toleration, api("spec.tolerations[0].value"));

    // Submitting anyway lists every problem and stores nothing.
    browser.click("[data-testid=submit]").await.unwrap();
    let summary = browser
        .wait_text(
            "[data-testid=error-summary]",
            "to fix before submitting",
            WAIT,
        )
        .await
        .unwrap();
    assert!(summary.contains("spec.image"), "{summary}");
    browser.screenshot("form-error-summary").await.unwrap();
    let list: Value = reqwest::get(format!("{base}/api/v1/workloads/trainings"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 0, "nothing was stored");
    browser.close().await.unwrap();
}

/// Every page, light and dark: no serious or critical axe-core violations.
#[tokio::test]
async fn every_page_passes_axe_in_light_and_dark_mode() {
    let server = tephra::start_release().expect("the release server starts");
    let base = server.base_url();
    let stored = submit(&server, "axe-check").await;
    let id = stored["workloadId"].as_str().unwrap();
    let pages = [
        ("overview", "/".to_owned()),
        ("trainings", "/trainings".to_owned()),
        ("trainings-empty", "/trainings?phase=Failed".to_owned()),
        ("new-training", "/trainings/new".to_owned()),
        ("clone", format!("/trainings/new?from={id}")),
        ("training", format!("/trainings/{id}")),
        ("gpu-use", format!("/trainings/{id}/gpu-use")),
        ("projects", "/projects".to_owned()),
        ("project", "/projects/default".to_owned()),
        ("applications", "/applications".to_owned()),
        ("organisation", "/organisation".to_owned()),
        ("admin", "/admin".to_owned()),
    ];
    let mut failures = Vec::new();
    for dark in [false, true] {
        let browser = if dark {
            Browser::start_dark().await
        } else {
            Browser::start().await
        }
        .expect("Chromium starts");
        let mode = if dark { "dark" } else { "light" };
        for (name, path) in &pages {
            browser.open(&format!("{base}{path}")).await.unwrap();
            if name.starts_with("new-training") {
                // Every kind of row and the preview, as a user opens them.
                for button in [
                    "Add a variable",
                    "Add to labels",
                    "Add a volume",
                    "Add a toleration",
                ] {
                    browser.settled().await.unwrap();
                    browser
                        .client
                        .find(Locator::XPath(&format!(
                            "//button[contains(., '{button}')]"
                        )))
                        .await
                        .unwrap()
                        .click()
                        .await
                        .unwrap();
                }
                browser.click("[data-testid=preview-toggle]").await.unwrap();
                browser
                    .wait_for("[data-testid=yaml-preview-error]", WAIT)
                    .await
                    .unwrap();
            }
            for v in axe::serious_violations(&browser.client).await.unwrap() {
                failures.push(format!("{mode} {path}: {v}"));
            }
            browser.screenshot(&format!("{name}-{mode}")).await.unwrap();
        }
        if dark {
            let prefers = browser
                .client
                .execute(
                    "return matchMedia('(prefers-color-scheme: dark)').matches",
                    vec![],
                )
                .await
                .unwrap();
            assert_eq!(prefers, Value::Bool(true), "the browser prefers dark");
            let background = browser
                .client
                .execute(
                    "return getComputedStyle(document.body).backgroundColor",
                    vec![],
                )
                .await
                .unwrap();
            assert_eq!(
                background.as_str(),
                Some("oklch(0.129 0.042 264.695)"),
                "the page follows the system into dark mode (slate-950)"
            );
        }
        browser.close().await.unwrap();
    }
    assert!(
        failures.is_empty(),
        "axe-core found:\n{}",
        failures.join("\n")
    );
}

/// Tab reaches the skip link first and then the controls in order, each with a visible focus.
#[tokio::test]
async fn the_keyboard_reaches_every_control_with_visible_focus() {
    let server = tephra::start_release().expect("the release server starts");
    let browser = Browser::start().await.expect("Chromium starts");
    browser
        .open(&format!("{}/trainings/new", server.base_url()))
        .await
        .unwrap();
    let c = &browser.client;
    let body = c.find(Locator::Css("body")).await.unwrap();
    body.send_keys(&Key::Tab.to_string()).await.unwrap();
    let first = c.active_element().await.unwrap();
    assert_eq!(first.text().await.unwrap(), "Skip to content");
    let mut reached = Vec::new();
    for _ in 0..12 {
        c.active_element()
            .await
            .unwrap()
            .send_keys(&Key::Tab.to_string())
            .await
            .unwrap();
        let focus = c
            .execute(
                "const e = document.activeElement; const s = getComputedStyle(e);
                 return [e.id || e.textContent.trim().slice(0, 30), s.outlineStyle, s.outlineWidth];",
                vec![],
            )
            .await
            .unwrap();
        let [what, style, width] =
            [&focus[0], &focus[1], &focus[2]].map(|v| v.as_str().unwrap_or("").to_owned());
        assert!(
            style != "none" && width != "0px",
            "{what} has no visible focus ({style} {width})"
        );
        reached.push(what);
    }
    assert!(
        reached.contains(&"f-name".to_owned()),
        "the name field is reachable: {reached:?}"
    );
    browser.screenshot("keyboard-focus").await.unwrap();
    browser.close().await.unwrap();
}

/// Every route is rendered on the server in full: with scripts off (the same as a bundle that
/// never arrives), each page still shows its content, never a blank page or a spinner.
#[tokio::test]
async fn every_route_reads_without_its_script() {
    let server = tephra::start_release().expect("the release server starts");
    let base = server.base_url();
    let stored = submit(&server, "no-script").await;
    let id = stored["workloadId"].as_str().unwrap();
    let mut pages = crate::every_route(id, "no-script");
    pages.insert(
        2,
        (
            "/trainings?phase=Failed".to_owned(),
            "[data-testid=empty-state]",
            "No trainings match",
        ),
    );
    pages.push(("/no-such-page".to_owned(), "main", "There is no page here"));
    // The policy editor opens on the system's own policy, written by the server.
    let res = tephra_tests::http()
        .put(format!("{base}/api/v2/policy/trainings"))
        .json(&serde_json::json!({
            "meta": { "scope": "system" },
            "policy": { "rules": { "compute": { "gpuDevicesRequest": { "max": 6 } } } }
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    pages.push(("/organisation".to_owned(), "#policy-text", "\"max\": 6"));
    let browser = Browser::start_with(&["--blink-settings=scriptEnabled=false"])
        .await
        .expect("Chromium starts");
    for (path, css, expected) in &pages {
        browser.client.goto(&format!("{base}{path}")).await.unwrap();
        let text = browser
            .text_of(css, WAIT)
            .await
            .unwrap_or_else(|e| panic!("{path} shows {css} without scripts: {e}"));
        assert!(
            text.to_lowercase().contains(&expected.to_lowercase()),
            "{path} without scripts shows {expected:?} in {css}:\n{text}"
        );
        let hydrated = browser
            .client
            .find(Locator::Css("body[data-hydrated]"))
            .await
            .is_ok();
        assert!(!hydrated, "{path}: scripts were off, yet the page hydrated");
    }
    browser.screenshot("training-without-script").await.unwrap();
    browser.close().await.unwrap();
}

/// Pages render on whichever server thread picks the request up: many requests for every page at
/// once all answer 200. (A value tied to the thread that created it once made the trainings list
/// fail one request in ten.)
#[tokio::test]
async fn every_page_renders_under_concurrent_requests() {
    let server = tephra::start_release().expect("the release server starts");
    let base = server.base_url();
    let stored = submit(&server, "concurrent").await;
    let id = stored["workloadId"].as_str().unwrap().to_owned();
    // A fresh connection per request, so requests land on different threads.
    let http = tephra_tests::http_builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let paths = [
        "/".to_owned(),
        "/trainings".to_owned(),
        "/trainings/new".to_owned(),
        format!("/trainings/new?from={id}"),
        format!("/trainings/{id}"),
        format!("/trainings/{id}/gpu-use"),
        "/projects".to_owned(),
        "/applications".to_owned(),
        "/organisation".to_owned(),
        "/admin".to_owned(),
    ];
    let urls: Vec<String> = paths
        .iter()
        .flat_map(|path| std::iter::repeat_n(format!("{base}{path}"), 30))
        .collect();
    let answers: Vec<_> = futures::stream::iter(urls)
        .map(|url| {
            let http = &http;
            async move { (url.clone(), http.get(&url).send().await.map(|r| r.status())) }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let failed: Vec<String> = answers
        .into_iter()
        .filter(|(_, status)| !matches!(status, Ok(s) if s.is_success()))
        .map(|(url, status)| format!("{url}: {status:?}"))
        .collect();
    assert!(
        failed.is_empty(),
        "pages that failed:\n{}",
        failed.join("\n")
    );
}
