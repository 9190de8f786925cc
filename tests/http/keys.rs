//! Keys at rest (issue 34): with `--keys-file` the application-token key comes from the file, not
//! the database, and rotating it keeps earlier tokens valid while the older key stays listed. The
//! server is restarted on the same database with each version of the file, as an operator
//! updating the mounted Secret would.

use super::Running;
use base64::Engine as _;
use serde_json::{Value, json};
use std::path::Path;
use tephra_tests::postgres::TempPostgres;

#[tokio::test]
async fn a_rotated_token_key_keeps_older_tokens_until_it_is_dropped_on_sqlite() {
    rotation(&[]).await;
}

#[tokio::test]
async fn a_rotated_token_key_keeps_older_tokens_until_it_is_dropped_on_postgres() {
    let pg = TempPostgres::start().expect("PostgreSQL starts");
    let url = pg.create_database("keys").await.expect("a database");
    rotation(&["--database-url", &url]).await;
}

#[tokio::test]
async fn a_bad_keys_file_stops_the_start_naming_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.yaml");
    std::fs::write(
        &path,
        keys_file(("k1", 1), &[]).replace(&"01".repeat(32), "not-hex"),
    )
    .unwrap();
    let cli = <server::config::Cli as clap::Parser>::try_parse_from([
        "tephra",
        "serve",
        "--keys-file",
        path.to_str().unwrap(),
    ])
    .unwrap();
    let server::config::Command::Serve(args) = cli.into_command() else {
        panic!("serve")
    };
    let error = args.validate().unwrap_err().to_string();
    assert!(error.starts_with("--keys-file"), "{error}");
    assert!(error.contains("keys.yaml: tokens.keys[0].key"), "{error}");
}

/// A keys file whose token ring has `current` and `older` (kid, byte repeated as the key), and a
/// fixed owner key.
fn keys_file(current: (&str, u8), older: &[(&str, u8)]) -> String {
    let mut keys = String::new();
    for (kid, byte) in std::iter::once(&current).chain(older) {
        let key = format!("{byte:02x}").repeat(32);
        keys.push_str(&format!("    - kid: {kid}\n      key: {key}\n"));
    }
    format!(
        "tokens:\n  current: {}\n  keys:\n{keys}owner:\n  current: owner-1\n  keys:\n    - kid: \
         owner-1\n      key: {}\n",
        current.0,
        "ee".repeat(32)
    )
}

async fn rotation(database: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.yaml");
    let flags = |path: &Path| -> Vec<String> {
        let mut flags: Vec<String> = database.iter().map(|s| (*s).to_owned()).collect();
        flags.extend(["--keys-file".into(), path.to_str().unwrap().to_owned()]);
        flags
    };
    let flags = flags(&path);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();

    std::fs::write(&path, keys_file(("k1", 1), &[])).unwrap();
    let server = Running::start_with(tempfile::tempdir().unwrap(), &flags).await;
    let secret = create_app(&server).await;
    let old = token(&server, &secret).await;
    assert_eq!(kid(&old), "tephra-app:k1");
    assert_eq!(use_token(&server, &old).await.0, 200);

    // A new current key, the older one kept.
    std::fs::write(&path, keys_file(("k2", 2), &[("k1", 1)])).unwrap();
    let server = server.restart_with(&flags).await;
    assert_eq!(
        use_token(&server, &old).await.0,
        200,
        "the older key is listed"
    );
    let new = token(&server, &secret).await;
    assert_eq!(kid(&new), "tephra-app:k2");
    assert_eq!(use_token(&server, &new).await.0, 200);

    // The older key dropped.
    std::fs::write(&path, keys_file(("k2", 2), &[])).unwrap();
    let server = server.restart_with(&flags).await;
    let (status, body) = use_token(&server, &old).await;
    assert_eq!(status, 401, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("no longer accepts") && message.contains("k1"),
        "{body}"
    );
    assert_eq!(use_token(&server, &new).await.0, 200);

    // The database was never given a token key to hand out.
    let stored = server
        .db
        .settings()
        .get_or_create(server::auth::tokens::SETTING, || "none".into())
        .await
        .unwrap();
    assert_eq!(stored, "none");
    server.stop().await;
}

/// Creates an application as the development user (a system administrator) and returns its
/// secret.
async fn create_app(server: &Running) -> String {
    let created = server
        .client
        .post(format!("{}/api/v1/apps", server.base))
        .json(&json!({"name": "nightly", "roles": [
            {"roleId": 4, "scopeType": "project", "scopeId": "default"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let app: Value = created.json().await.unwrap();
    app["clientSecret"].as_str().unwrap().to_owned()
}

async fn token(server: &Running, secret: &str) -> String {
    let answer = server
        .client
        .post(format!("{}/api/v1/token", server.base))
        .json(&json!({"grantType": "app_token", "AppId": "nightly", "AppSecret": secret}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let body: Value = answer.json().await.unwrap();
    body["accessToken"].as_str().unwrap().to_owned()
}

async fn use_token(server: &Running, token: &str) -> (u16, Value) {
    let answer = server
        .client
        .get(format!("{}/api/v1/org-unit/projects", server.base))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

/// The `kid` in a token's header.
fn kid(token: &str) -> String {
    let header = token.split('.').next().unwrap();
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .unwrap();
    let header: Value = serde_json::from_slice(&header).unwrap();
    header["kid"].as_str().unwrap().to_owned()
}
