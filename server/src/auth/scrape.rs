//! Who may read `/metrics`: it names every project with its workloads' counts, so not anyone
//! who reaches the port (the chart's Ingress routes it to the internet). A scraper presents the
//! token from `--metrics-token-file`; a system administrator may read it signed in.

use super::Authenticator;
use super::claims::constant_time_eq;
use app::error::AppError;
use tephra_core::domain::authz::Permission;

impl Authenticator {
    /// The token a scraper must present, if one is configured.
    pub fn with_scrape_token(mut self, token: Option<String>) -> Self {
        self.scrape_token = token.filter(|t| !t.is_empty());
        self
    }

    /// Whether the request may read the metrics, or why not.
    pub async fn may_scrape(&self, request: &http::request::Parts) -> Result<(), AppError> {
        let bearer = request
            .headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if let (Some(expected), Some(given)) = (&self.scrape_token, bearer)
            && constant_time_eq(expected.as_bytes(), given.trim().as_bytes())
        {
            return Ok(());
        }
        let principal = self.authenticate(request).await?;
        crate::authorize::require_system(&principal, Permission::ManageSystem).map_err(|_| {
            AppError::Forbidden(
                "the metrics are for the scraper (the token of --metrics-token-file) and system \
                 administrators"
                    .into(),
            )
        })
    }
}
