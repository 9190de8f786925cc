//! The new-training form is drawn by the server: the page posts it as it changes and puts the
//! drawing in place. What the user typed, where the focus and the caret are, and the form's shape
//! all survive that; and without scripts its buttons still work, through a round trip.

use fantoccini::Locator;
use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

const WAIT: Duration = Duration::from_secs(10);

async fn active_id(browser: &Browser) -> anyhow::Result<String> {
    let id = browser
        .client
        .execute("return document.activeElement.id", vec![])
        .await?;
    Ok(id.as_str().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn drawing_the_form_again_keeps_what_was_typed_and_the_focus() -> anyhow::Result<()> {
    let server = tephra::start_release()?;
    let browser = Browser::start().await?;
    let c = &browser.client;
    browser
        .open(&format!("{}/trainings/new", server.base_url()))
        .await?;
    browser.fill("f-name", "keep-me").await?;
    browser.fill("f-spec-compute-cpuCoreRequest", "1.").await?;
    browser.settled().await?;
    // Typing only redraws the messages: the half-typed decimal stays as typed.
    let cpu = c.find(Locator::Id("f-spec-compute-cpuCoreRequest")).await?;
    assert_eq!(cpu.prop("value").await?.as_deref(), Some("1."));

    // A message and "will it fit now?" change their text in place, so a screen reader announces
    // them (a live region put in the place of another is not): their elements stay.
    let live = "['f-spec-compute-cpuCoreRequest-error', 'fit-verdict']";
    let mark = format!("for (const id of {live}) document.getElementById(id).dataset.kept = 'yes'");
    c.execute(&mark, vec![]).await?;
    browser.fill("f-spec-compute-cpuCoreRequest", "-1").await?;
    browser.settled().await?;
    let read = format!(
        "return {live}.map(id => {{ const e = document.getElementById(id); \
         return [e.dataset.kept || '', e.textContent]; }})"
    );
    let parts = c.execute(&read, vec![]).await?;
    let part = |i: usize, j: usize| parts[i][j].as_str().unwrap_or_default().to_owned();
    assert_eq!(
        (part(0, 0), part(1, 0)),
        ("yes".into(), "yes".into()),
        "{parts}"
    );
    assert!(!part(0, 1).trim().is_empty(), "the message shows: {parts}");
    assert!(
        part(1, 1).contains("to fix"),
        "the fit waits for a valid form: {parts}"
    );
    browser.fill("f-spec-compute-cpuCoreRequest", "1").await?;

    // A choice changes the form's shape: it is drawn whole, with the focus where it was.
    browser.click("#f-distributed").await?;
    browser.settled().await?;
    assert_eq!(active_id(&browser).await?, "f-distributed");
    let workers = c.find(Locator::Id("f-spec-numWorkers")).await?;
    assert_eq!(workers.prop("value").await?.as_deref(), Some("1"));
    let name = c.find(Locator::Id("f-name")).await?;
    assert_eq!(name.prop("value").await?.as_deref(), Some("keep-me"));

    // A row added and removed again, by the server.
    browser
        .click("button[value^='add spec.tolerations ']")
        .await?;
    browser.settled().await?;
    browser.fill("f-spec-tolerations-0--key", "gpu").await?;
    browser
        .click("button[value='remove spec.tolerations 0']")
        .await?;
    browser.settled().await?;
    assert!(
        c.find(Locator::Id("f-spec-tolerations-0--key"))
            .await
            .is_err(),
        "the row is gone"
    );
    let name = c.find(Locator::Id("f-name")).await?;
    assert_eq!(name.prop("value").await?.as_deref(), Some("keep-me"));
    browser.close().await
}

#[tokio::test]
async fn without_scripts_the_buttons_come_back_with_the_change() -> anyhow::Result<()> {
    let server = tephra::start_release()?;
    let base = server.base_url();
    let browser = Browser::start_with(&["--blink-settings=scriptEnabled=false"]).await?;
    browser
        .client
        .goto(&format!("{base}/trainings/new"))
        .await?;
    browser.fill("f-name", "offline").await?;
    browser
        .click("button[value^='add spec.tolerations ']")
        .await?;
    let row = browser
        .client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Id("f-spec-tolerations-0--key"))
        .await?;
    assert_eq!(row.prop("value").await?.as_deref(), Some(""));
    let name = browser.client.find(Locator::Id("f-name")).await?;
    assert_eq!(name.prop("value").await?.as_deref(), Some("offline"));
    // Filled in from the address, so the page says so.
    browser
        .wait_text(
            "[data-testid=from-link]",
            "filled in from its address",
            WAIT,
        )
        .await?;
    browser.click("[data-testid=preview-toggle]").await?;
    browser
        .wait_text(
            "[data-testid=yaml-preview-error]",
            "Nothing to preview",
            WAIT,
        )
        .await?;
    browser.close().await
}
