//! ID tokens that must be refused: signed by the provider's own key (its test-only `/__test/sign`)
//! but wrong in one way each, checked by the same verification a sign-in runs, against the keys
//! Tephra discovered from the provider.

use super::{CLIENT_ID, CLIENT_SECRET, ada};
use anyhow::ensure;
use serde_json::{Value, json};
use server::auth::oidc::{Oidc, SignInError};
use server::config::{OidcSettings, PublicUrl};
use std::sync::Arc;
use tephra_tests::oidc::{OidcClient, OidcProvider};

const NONCE: &str = "the-nonce-tephra-sent";

async fn discovered() -> anyhow::Result<(OidcProvider, Arc<Oidc>)> {
    let provider = OidcProvider::start(
        &[OidcClient {
            client_id: CLIENT_ID.into(),
            client_secret: CLIENT_SECRET.into(),
            redirect_uris: vec!["http://127.0.0.1:9/auth/callback".into()],
            post_logout_redirect_uris: vec![],
            client_credentials: false,
        }],
        &[ada()],
        "urn:tephra:api",
    )?;
    let oidc = Oidc::new(OidcSettings {
        issuer: provider.issuer.clone(),
        client_id: CLIENT_ID.into(),
        client_secret: Some(CLIENT_SECRET.into()),
        scopes: vec!["profile".into()],
        groups_claim: "groups".into(),
        uid_claim: Some("uid".into()),
        gid_claim: Some("gid".into()),
        audience: "urn:tephra:api".into(),
        trust_unverified_email: false,
        public_url: PublicUrl {
            origin: "http://127.0.0.1:9".into(),
            host: "127.0.0.1:9".into(),
            https: false,
        },
    })?;
    oidc.discover().await.map_err(anyhow::Error::msg)?;
    Ok((provider, oidc))
}

fn claims(issuer: &str) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({
        "iss": issuer, "sub": "ada-0001", "aud": CLIENT_ID, "iat": now, "exp": now + 300,
        "nonce": NONCE, "name": "Ada Lovelace", "groups": ["ml-team"], "uid": 1000,
    })
}

/// Signs `claims` changed by `edit` with the provider's key (and `header` overrides).
async fn forge(
    provider: &OidcProvider,
    header: Value,
    edit: impl FnOnce(&mut Value),
) -> anyhow::Result<String> {
    let mut c = claims(&provider.issuer);
    edit(&mut c);
    provider.sign(header, c).await
}

fn refused(outcome: Result<impl std::fmt::Debug, SignInError>, what: &str) -> anyhow::Result<()> {
    match outcome {
        Err(SignInError::BadIdToken(why)) => {
            eprintln!("{what}: refused ({why})");
            Ok(())
        }
        other => anyhow::bail!("{what}: expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_well_formed_token_is_accepted_and_its_claims_read() -> anyhow::Result<()> {
    let (provider, oidc) = discovered().await?;
    let token = forge(&provider, json!({}), |_| {}).await?;
    let identity = oidc.verify_id_token(&token, NONCE)?;
    ensure!(identity.subject == "ada-0001" && identity.name == "Ada Lovelace");
    ensure!(identity.groups == ["ml-team"] && identity.uid == Some(1000));
    Ok(())
}

#[tokio::test]
async fn bad_id_tokens_are_refused_each_for_its_own_reason() -> anyhow::Result<()> {
    let (provider, oidc) = discovered().await?;
    let now = chrono::Utc::now().timestamp();

    let wrong_audience = forge(&provider, json!({}), |c| c["aud"] = json!("another-app")).await?;
    refused(
        oidc.verify_id_token(&wrong_audience, NONCE),
        "wrong audience",
    )?;

    let expired = forge(&provider, json!({}), |c| {
        c["iat"] = json!(now - 7200);
        c["exp"] = json!(now - 3600);
    })
    .await?;
    refused(oidc.verify_id_token(&expired, NONCE), "expired")?;

    let wrong_issuer = forge(&provider, json!({}), |c| {
        c["iss"] = json!("https://evil.example")
    })
    .await?;
    refused(oidc.verify_id_token(&wrong_issuer, NONCE), "wrong issuer")?;

    let good = forge(&provider, json!({}), |_| {}).await?;
    refused(
        oidc.verify_id_token(&good, "another-nonce"),
        "nonce mismatch",
    )?;

    // The payload changed after signing: the signature no longer matches.
    let mut parts: Vec<String> = good.split('.').map(str::to_owned).collect();
    let other = forge(&provider, json!({}), |c| c["sub"] = json!("mallory")).await?;
    parts[1] = other.split('.').nth(1).unwrap_or_default().to_owned();
    refused(
        oidc.verify_id_token(&parts.join("."), NONCE),
        "tampered payload",
    )?;

    let unsigned = forge(&provider, json!({ "alg": "none" }), |_| {}).await?;
    refused(oidc.verify_id_token(&unsigned, NONCE), "alg none")?;

    let unknown_key = forge(
        &provider,
        json!({ "kid": "not-a-key-of-the-provider" }),
        |_| {},
    )
    .await?;
    refused(oidc.verify_id_token(&unknown_key, NONCE), "unknown kid")?;
    Ok(())
}
