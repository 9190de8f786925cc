//! Identities Tephra trusts only as far as the provider vouches for them: an e-mail address the
//! provider never verified matches no administrator, and an ID token is not an API credential.

use super::{CLIENT_ID, Setup, user};
use anyhow::ensure;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn status_of(response: reqwest::Response) -> anyhow::Result<(StatusCode, Value)> {
    let status = response.status();
    let text = response.text().await?;
    Ok((
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    ))
}

#[tokio::test]
async fn an_unverified_email_equal_to_an_administrators_is_not_an_administrator()
-> anyhow::Result<()> {
    let boss = tephra_tests::oidc::OidcUser {
        email: "boss@example.org".into(),
        ..user("boss", &[])
    };
    // Someone who registered the administrator's address where the provider does not check it.
    let eve = tephra_tests::oidc::OidcUser {
        email: "boss@example.org".into(),
        email_verified: false,
        ..user("eve", &[])
    };
    let setup = Setup::start_for(&[boss, eve], &["--admin-users", "boss@example.org"]).await?;
    let audit = setup.tephra.url("/api/v1/audit");
    let eve = setup.sign_in("eve").await?;
    let (status, body) = status_of(eve.http.get(&audit).send().await?).await?;
    ensure!(status == StatusCode::FORBIDDEN, "eve: {status} {body}");
    let boss = setup.sign_in("boss").await?;
    let (status, body) = status_of(boss.http.get(&audit).send().await?).await?;
    ensure!(status == StatusCode::OK, "boss: {status} {body}");
    setup.tephra.stop().await
}

#[tokio::test]
async fn a_rotated_provider_key_is_accepted_within_a_minute() -> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let url = setup.tephra.url("/api/v1/org-unit/projects");
    let now = chrono::Utc::now().timestamp();
    let claims = json!({ "iss": setup.provider.issuer, "sub": "ada-0001", "aud": CLIENT_ID,
                         "iat": now, "exp": now + 600, "email": "ada@example.org" });
    let call = |token: String| {
        let request = tephra_tests::http().get(&url).bearer_auth(token);
        async move { status_of(request.send().await?).await }
    };
    let before = setup
        .provider
        .sign(json!({ "typ": "at+jwt" }), claims.clone())
        .await?;
    let (status, body) = call(before.clone()).await?;
    ensure!(
        status == StatusCode::OK,
        "the key Tephra knows: {status} {body}"
    );

    // A forged kid first: Tephra fetches the keys for it, so its next fetch waits a minute.
    let forged = setup
        .provider
        .sign(
            json!({ "typ": "at+jwt", "kid": "not-a-key-of-the-provider" }),
            claims.clone(),
        )
        .await?;
    let (status, _) = call(forged).await?;
    ensure!(
        status == StatusCode::UNAUTHORIZED,
        "an unknown key: {status}"
    );

    let kid = setup.provider.rotate_key().await?;
    let after = setup
        .provider
        .sign(json!({ "typ": "at+jwt" }), claims)
        .await?;
    let rotated_at = std::time::Instant::now();
    tephra_tests::wait_for(
        "a token under the rotated key",
        std::time::Duration::from_secs(75),
        || {
            let after = after.clone();
            let call = &call;
            async move { (call(after).await.ok()?.0 == StatusCode::OK).then_some(()) }
        },
    )
    .await?;
    println!(
        "a token under the new key {kid} was accepted {:.0} s after the rotation",
        rotated_at.elapsed().as_secs_f64()
    );
    // Tokens under the old key stay valid until they expire: the provider publishes both.
    let (status, body) = call(before).await?;
    ensure!(
        status == StatusCode::OK,
        "the old key after rotation: {status} {body}"
    );
    setup.tephra.stop().await
}

#[tokio::test]
async fn an_id_token_is_not_a_bearer_token() -> anyhow::Result<()> {
    let setup = Setup::start().await?;
    let url = setup.tephra.url("/api/v1/org-unit/projects");
    let now = chrono::Utc::now().timestamp();
    let claims = |aud: &str| {
        json!({ "iss": setup.provider.issuer, "sub": "ada-0001", "aud": aud,
                "iat": now, "exp": now + 300, "email": "ada@example.org" })
    };
    // Signed by the provider's own key, for Tephra's client: an ID token in all but name.
    let id_token = setup
        .provider
        .sign(json!({ "typ": "JWT" }), claims(CLIENT_ID))
        .await?;
    let (status, body) = status_of(
        tephra_tests::http()
            .get(&url)
            .bearer_auth(&id_token)
            .send()
            .await?,
    )
    .await?;
    ensure!(status == StatusCode::UNAUTHORIZED, "{status} {body}");
    let message = body["message"].as_str().unwrap_or_default();
    ensure!(message.contains("it is an ID token"), "{message}");
    // The same claims as an access token (RFC 9068's type) are accepted.
    let access = setup
        .provider
        .sign(json!({ "typ": "at+jwt" }), claims(CLIENT_ID))
        .await?;
    let (status, body) = status_of(
        tephra_tests::http()
            .get(&url)
            .bearer_auth(&access)
            .send()
            .await?,
    )
    .await?;
    ensure!(status == StatusCode::OK, "{status} {body}");
    setup.tephra.stop().await
}

#[tokio::test]
async fn metrics_are_for_the_scraper_and_system_administrators() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let token_file = dir.path().join("metrics-token");
    std::fs::write(&token_file, "scrape-4f1c9a7e2b6d\n")?;
    let token_arg = token_file.display().to_string();
    let setup = Setup::start_with(&["--metrics-token-file", &token_arg]).await?;
    let url = setup.tephra.url("/metrics");
    let (status, body) = status_of(tephra_tests::http().get(&url).send().await?).await?;
    ensure!(
        status == StatusCode::UNAUTHORIZED,
        "anonymous: {status} {body}"
    );
    let (status, _) = status_of(
        tephra_tests::http()
            .get(&url)
            .bearer_auth("scrape-4f1c9a7e2b6d")
            .send()
            .await?,
    )
    .await?;
    ensure!(status == StatusCode::OK, "the scraper: {status}");
    let (status, _) = status_of(
        tephra_tests::http()
            .get(&url)
            .bearer_auth("scrape-wrong-token")
            .send()
            .await?,
    )
    .await?;
    ensure!(
        status == StatusCode::UNAUTHORIZED,
        "a wrong token: {status}"
    );
    let grace = setup.sign_in("grace").await?;
    let (status, body) = status_of(grace.http.get(&url).send().await?).await?;
    ensure!(
        status == StatusCode::FORBIDDEN,
        "a researcher: {status} {body}"
    );
    let ada = setup.sign_in("ada").await?;
    let (status, _) = status_of(ada.http.get(&url).send().await?).await?;
    ensure!(status == StatusCode::OK, "a system administrator: {status}");
    setup.tephra.stop().await
}
