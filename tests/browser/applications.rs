//! The Applications page: create one with a role, see its secret once, revoke it.

use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::tephra;

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn an_application_is_created_with_its_secret_shown_once_then_revoked() -> anyhow::Result<()> {
    let server = tephra::start_release()?;
    let browser = Browser::start().await?;
    let base = server.base_url();
    browser.open(&format!("{base}/applications")).await?;
    browser.fill("app-name", "browser-bot").await?;
    browser.select("app-role", "5").await?;
    browser.select("app-project", "default").await?;
    browser.click("[data-testid=create-app]").await?;
    let secret = browser.text_of("[data-testid=new-secret]", WAIT).await?;
    assert!(secret.contains("browser-bot"), "{secret}");
    assert!(secret.contains("not shown again"), "{secret}");
    browser
        .wait_text(
            "[data-testid=applications-table]",
            "Viewer in default",
            WAIT,
        )
        .await?;
    browser.screenshot("applications-created").await?;

    // The secret on screen works as the API documents.
    let secret = secret
        .lines()
        .find_map(|l| l.strip_prefix("Client secret"))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .or_else(|| secret.lines().last().map(|l| l.trim().to_owned()))
        .unwrap_or_default();
    let token = tephra_tests::http()
        .post(format!("{base}/api/v1/token"))
        .json(&serde_json::json!({"grantType": "client_credentials",
                                  "clientId": "browser-bot", "clientSecret": secret}))
        .send()
        .await?;
    assert_eq!(
        token.status(),
        200,
        "the secret shown is the one that works"
    );

    browser.click("[data-testid=revoke-browser-bot]").await?;
    browser
        .wait_text("[data-testid=applications-table]", "revoked", WAIT)
        .await?;
    browser.close().await
}
