//! A real browser against the real release server: headless Chromium loads the page, waits for the
//! WebAssembly app to hydrate it, and uses something that only works after hydration.

mod applications;
mod dashboard;
mod form;
mod generic;
mod live_list;
mod organisation;
mod page_weight;
mod policy;
mod sign_in;
mod split;

use fantoccini::Locator;
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::{tephra, wait_for, workspace};

#[tokio::test]
async fn the_home_page_hydrates_and_reacts_to_clicks() {
    let server = tephra::start_release().expect("the release server starts");
    let browser = Browser::start().await.expect("Chromium starts");
    let c = &browser.client;

    c.goto(&server.base_url()).await.unwrap();
    assert_eq!(c.title().await.unwrap(), "Overview · Tephra");
    // Server-rendered content is there before any script ran.
    let stats = c
        .find(Locator::Css("[data-testid=overview-stats]"))
        .await
        .unwrap();
    assert!(stats.text().await.unwrap().contains("Projects"));

    wait_for("the page to hydrate", Duration::from_secs(30), || async {
        c.find(Locator::Css("body[data-hydrated=true]"))
            .await
            .ok()
            .map(|_| ())
    })
    .await
    .expect("hydration finishes (a broken WASM bundle or wasm-opt shows here)");

    let toggle = c.find(Locator::Id("getting-started-toggle")).await.unwrap();
    assert_eq!(
        toggle.attr("aria-expanded").await.unwrap().as_deref(),
        Some("false")
    );
    assert!(
        c.find(Locator::Id("getting-started")).await.is_err(),
        "starts closed"
    );
    toggle.click().await.unwrap();
    let steps = wait_for(
        "the getting-started list to open",
        Duration::from_secs(5),
        || async { c.find(Locator::Id("getting-started")).await.ok() },
    )
    .await
    .unwrap();
    assert!(steps.text().await.unwrap().contains("Pick a project"));
    assert_eq!(
        toggle.attr("aria-expanded").await.unwrap().as_deref(),
        Some("true")
    );

    // The generated stylesheet applies: the page background is slate-50, not the default white.
    let background = c
        .execute(
            "return getComputedStyle(document.body).backgroundColor",
            vec![],
        )
        .await
        .unwrap();
    assert_ne!(
        background.as_str(),
        Some("rgba(0, 0, 0, 0)"),
        "the stylesheet did not load"
    );

    let png = c.screenshot().await.unwrap();
    let path = workspace::artifacts_dir("screenshots").join("home-hydrated.png");
    std::fs::write(&path, png).unwrap();
    eprintln!("screenshot: {}", path.display());

    // A link loads the next page, rendered on the server with its own islands.
    c.find(Locator::LinkText("Projects"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for("the projects page", Duration::from_secs(10), || async {
        let title = c.title().await.ok()?;
        (title == "Projects · Tephra").then_some(())
    })
    .await
    .unwrap();
    let png = c.screenshot().await.unwrap();
    std::fs::write(
        workspace::artifacts_dir("screenshots").join("projects.png"),
        png,
    )
    .unwrap();

    // A project's name opens its page: quota and use per resource, pool and user.
    c.find(Locator::LinkText("default"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for("the project's page", Duration::from_secs(10), || async {
        let title = c.title().await.ok()?;
        (title == "default · Tephra").then_some(())
    })
    .await
    .unwrap();
    let resources = c
        .find(Locator::Css("[data-testid=project-resources]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for row in ["GPUs", "CPU (cores)", "Memory (GiB)"] {
        assert!(resources.contains(row), "{row} in {resources}");
    }

    browser.close().await.unwrap();
}

/// Every route of the dashboard, for a stored training `id` named `name`: an element the server
/// renders on it and a text that element must contain.
fn every_route(id: &str, name: &'static str) -> Vec<(String, &'static str, &'static str)> {
    vec![
        ("/".to_owned(), "[data-testid=overview-stats]", "Trainings"),
        (
            "/trainings".to_owned(),
            "[data-testid=trainings-table]",
            name,
        ),
        (
            "/trainings/new".to_owned(),
            "[data-testid=training-form]",
            "Submit training",
        ),
        (
            format!("/trainings/new?from={id}"),
            "[data-testid=cloned-from]",
            name,
        ),
        (
            format!("/trainings/{id}"),
            // What was asked for, below the live parts of the page.
            "[data-testid=spec]",
            "busybox",
        ),
        (
            format!("/trainings/{id}/gpu-use"),
            "#gpu-use-live",
            "GPU use is not shown",
        ),
        (
            "/projects".to_owned(),
            "[data-testid=projects-table]",
            "default",
        ),
        // The training was submitted by the dev login, so its use is the dev user's.
        (
            "/projects/default".to_owned(),
            "[data-testid=project-users]",
            "Dev User",
        ),
        ("/applications".to_owned(), "main", "New application"),
        (
            "/organisation".to_owned(),
            "[data-testid=departments-table]",
            "default",
        ),
        ("/admin".to_owned(), "main", "Audit trail"),
    ]
}

/// Waits until no element matching `css` contains `text`.
pub async fn wait_gone(browser: &Browser, css: &str, text: &str) -> anyhow::Result<()> {
    let c = &browser.client;
    wait_for(
        &format!("{css} to stop saying {text:?}"),
        Duration::from_secs(10),
        || async {
            let e = c.find(Locator::Css(css)).await.ok()?;
            let shown = e.text().await.ok()?;
            (!shown.contains(text)).then_some(())
        },
    )
    .await
}
