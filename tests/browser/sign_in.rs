//! Signing in as a person does (issue 13): headless Chromium opens a page of a Tephra configured
//! with a real OpenID provider (tests/oidc), lands on the provider's login, signs in, comes back
//! to the page it asked for with its name in the header, and signs out again.

use std::time::Duration;
use tephra_tests::browser::Browser;
use tephra_tests::oidc::{OidcClient, OidcProvider, OidcUser};
use tephra_tests::tephra::Launch;
use tephra_tests::wait_for;

const WAIT: Duration = Duration::from_secs(20);

#[tokio::test]
async fn a_user_signs_in_at_the_provider_and_out_again() -> anyhow::Result<()> {
    let port = tephra_tests::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let provider = OidcProvider::start(
        &[OidcClient {
            client_id: "tephra".into(),
            client_secret: "browser-secret".into(),
            redirect_uris: vec![format!("{base}/auth/callback")],
            post_logout_redirect_uris: vec![format!("{base}/")],
            client_credentials: false,
        }],
        &[OidcUser {
            login: "ada".into(),
            sub: "ada-0001".into(),
            name: "Ada Lovelace".into(),
            email: "ada@example.org".into(),
            email_verified: true,
            groups: vec!["ml-team".into()],
            uid: None,
            gid: None,
        }],
        "urn:tephra:api",
    )?;
    let server = Launch::default()
        .addr(format!("127.0.0.1:{port}"))
        .arg("--public-url")
        .arg(&base)
        .arg("--oidc-issuer")
        .arg(&provider.issuer)
        .arg("--oidc-client-id")
        .arg("tephra")
        .arg("--oidc-client-secret")
        .arg("browser-secret")
        .arg("--oidc-scopes")
        .arg("profile,email,groups")
        .start()?;
    let ready = format!("{}/readyz", server.base_url());
    wait_for("Tephra to discover the provider", WAIT, || async {
        let answer = reqwest::get(&ready).await.ok()?;
        answer.status().is_success().then_some(())
    })
    .await?;

    let browser = Browser::start().await?;
    browser.client.goto(&format!("{base}/trainings")).await?;
    browser.wait_for("#login", WAIT).await?;
    let at = browser.client.current_url().await?;
    assert!(
        at.as_str().starts_with(&provider.issuer),
        "on the provider: {at}"
    );
    browser.fill("login", "ada").await?;
    browser.click("button[type=submit]").await?;

    browser
        .wait_text("[data-testid=signed-in-user]", "Ada Lovelace", WAIT)
        .await?;
    let back = browser.client.current_url().await?;
    assert_eq!(back.path(), "/trainings", "back on the page asked for");
    assert!(
        browser
            .client
            .find(fantoccini::Locator::Css("[data-testid=dev-login-banner]"))
            .await
            .is_err(),
        "no development login banner"
    );
    browser.hydrated().await?;
    browser.screenshot("signed-in").await?;

    browser.click("form[action='/auth/logout'] button").await?;
    // The provider asks to confirm its own sign-out (its button sits outside its form); after it,
    // Tephra's pages ask to sign in again.
    browser.wait_for("button[name=logout]", WAIT).await?;
    browser.click("button[name=logout]").await?;
    browser.wait_for("#login", WAIT).await?;
    browser.client.goto(&format!("{base}/trainings")).await?;
    browser.wait_for("#login", WAIT).await?;
    browser.close().await?;
    Ok(())
}
