//! Scripts authenticate with `Authorization: Bearer <token>`: either Tephra's own token for an
//! application (from `POST /api/v1/token`, see [`super::tokens`]) or an access token the
//! organisation's provider issued for Tephra's audience. The answer to a bad token says what was
//! wrong with it (missing, expired, revoked, wrong issuer) and never which part of a secret.

use super::Authenticator;
use super::tokens::{TOKEN_SECONDS, TokenError, hash_secret, is_tephra_token};
use crate::db::DbError;
use crate::db::applications::Application;
use app::error::AppError;
use serde::Serialize;
use tephra_core::model::principal::Principal;

/// The answer to `POST /api/v1/token`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuedToken {
    pub access_token: String,
    pub token_type: &'static str,
    /// Seconds until the token expires.
    pub expires_in: i64,
}

/// The credentials of `POST /api/v1/token`, in any of the spellings Run:ai clients send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub client_id: String,
    pub secret: String,
}

impl Credentials {
    /// Reads `{"grantType": "client_credentials" | "app_token", ...}` with the id as
    /// `clientId`, `AppId`, `appID` or `appId` and the secret as `clientSecret`, `AppSecret` or
    /// `appSecret`. The error names the field and what is allowed.
    pub fn parse(body: &serde_json::Value) -> Result<Credentials, AppError> {
        let invalid = |field: &str, message: String| AppError::Invalid {
            field: field.into(),
            message,
        };
        let text = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| body.get(*k).and_then(|v| v.as_str()))
                .map(str::to_owned)
        };
        match text(&["grantType"]).as_deref() {
            Some("client_credentials" | "app_token") => {}
            Some(other) => {
                return Err(invalid(
                    "grantType",
                    format!("{other:?} is not allowed: client_credentials or app_token"),
                ));
            }
            None => {
                return Err(invalid(
                    "grantType",
                    "is required: client_credentials or app_token".into(),
                ));
            }
        }
        let client_id = text(&["clientId", "AppId", "appID", "appId"])
            .filter(|s| !s.is_empty())
            .ok_or_else(|| invalid("clientId", "is required (also read as AppId, appID)".into()))?;
        let secret = text(&["clientSecret", "AppSecret", "appSecret"])
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                invalid(
                    "clientSecret",
                    "is required (also read as AppSecret, appSecret)".into(),
                )
            })?;
        Ok(Credentials { client_id, secret })
    }
}

fn unauthorized(message: impl Into<String>) -> AppError {
    AppError::Unauthorized(message.into())
}

const BAD_CREDENTIALS: &str = "invalid client credentials";

impl Authenticator {
    /// Exchanges an application's credentials for an access token.
    pub async fn issue_token(&self, credentials: &Credentials) -> Result<IssuedToken, AppError> {
        let app = match self.db.applications().by_name(&credentials.client_id).await {
            Ok(app) => app,
            Err(DbError::NotFound) => return Err(unauthorized(BAD_CREDENTIALS)),
            Err(e) => return Err(e.into()),
        };
        let hash = hash_secret(&credentials.secret);
        if !super::claims::constant_time_eq(hash.as_bytes(), app.secret_hash.as_bytes()) {
            return Err(unauthorized(BAD_CREDENTIALS));
        }
        let app = self.usable(app)?;
        self.touch(&app).await;
        Ok(IssuedToken {
            access_token: self
                .app_tokens
                .issue(&app.name, chrono::Utc::now().timestamp()),
            token_type: "Bearer",
            expires_in: TOKEN_SECONDS,
        })
    }

    /// The principal a bearer token stands for.
    pub(super) async fn bearer(&self, token: &str) -> Result<Principal, AppError> {
        if is_tephra_token(token) {
            return self.application_token(token).await;
        }
        let Some(oidc) = &self.oidc else {
            return Err(unauthorized(
                "the bearer token is not one of Tephra's, and no identity provider is configured \
                 (--oidc-issuer) to accept its tokens; get one from POST /api/v1/token",
            ));
        };
        let identity = oidc
            .verify_access_token(token)
            .await
            .map_err(|why| unauthorized(format!("the access token was not accepted: {why}")))?;
        let user = self.db.users().upsert(&identity.as_user()).await?;
        Ok(self.principal_for(user.id, &identity))
    }

    async fn application_token(&self, token: &str) -> Result<Principal, AppError> {
        let claims = self
            .app_tokens
            .verify(token, chrono::Utc::now().timestamp())
            .map_err(|e: TokenError| unauthorized(e.to_string()))?;
        let app = match self.db.applications().by_name(&claims.sub).await {
            Ok(app) => app,
            Err(DbError::NotFound) => {
                return Err(unauthorized("the access token names no application"));
            }
            Err(e) => return Err(e.into()),
        };
        let app = self.usable(app)?;
        // Same-second tokens pass: `iat` has whole seconds only.
        if app
            .secret_set_at
            .is_some_and(|at| claims.iat < at.timestamp())
        {
            return Err(unauthorized(
                "the access token was issued before the application's secret was rotated; get \
                 a new one with the new secret",
            ));
        }
        self.touch(&app).await;
        Ok(Principal {
            user_id: app.user_id.to_string(),
            subject: app.name.clone(),
            display_name: app.name.clone(),
            email: None,
            groups: Vec::new(),
            admin: false,
            dev_login: false,
            application: Some(app.name),
            uid: None,
            gid: None,
            grants: Vec::new(),
        })
    }

    fn usable(&self, app: Application) -> Result<Application, AppError> {
        let time = |at: chrono::DateTime<chrono::Utc>| {
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        };
        if let Some(at) = app.revoked_at {
            return Err(unauthorized(format!(
                "application {:?} was revoked at {}",
                app.name,
                time(at)
            )));
        }
        if let Some(at) = app.expires_at.filter(|at| *at <= chrono::Utc::now()) {
            return Err(unauthorized(format!(
                "the secret of application {:?} expired at {}; its creator can give it a new \
                 one (POST /api/v1/apps/{{id}}/secret)",
                app.name,
                time(at)
            )));
        }
        Ok(app)
    }

    async fn touch(&self, app: &Application) {
        if let Err(error) = self.db.applications().touch(app.id).await {
            tracing::warn!(%error, application = %app.name, "cannot record an application's use");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_run_ai_spelling_of_the_credentials_is_read() {
        let expected = Credentials {
            client_id: "ci-bot".into(),
            secret: "s3cret".into(),
        };
        for body in [
            json!({"grantType": "client_credentials", "clientId": "ci-bot", "clientSecret": "s3cret"}),
            json!({"grantType": "app_token", "AppId": "ci-bot", "AppSecret": "s3cret"}),
            json!({"grantType": "app_token", "appID": "ci-bot", "appSecret": "s3cret"}),
        ] {
            assert_eq!(Credentials::parse(&body).unwrap(), expected, "{body}");
        }
    }

    #[test]
    fn missing_or_wrong_fields_are_named() {
        let field = |body: serde_json::Value| match Credentials::parse(&body).unwrap_err() {
            AppError::Invalid { field, message } => format!("{field}: {message}"),
            other => panic!("{other:?}"),
        };
        assert!(field(json!({})).starts_with("grantType: is required"));
        assert!(field(json!({"grantType": "password"})).contains("\"password\" is not allowed"));
        assert!(field(json!({"grantType": "app_token", "AppSecret": "x"})).starts_with("clientId"));
        assert!(
            field(json!({"grantType": "app_token", "AppId": "x", "AppSecret": ""}))
                .starts_with("clientSecret")
        );
    }
}
