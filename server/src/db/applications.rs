//! Applications: API clients a user creates for scripts. Each acts through its own row in
//! users (issuer [`APP_ISSUER`], subject its name), so the audit trail and `createdBy` name it
//! like a person. Only a hash of the secret is kept.

use super::audit::record_in;
use super::{DbResult, conflict_as, now, on_pool, write_transaction};
use chrono::{DateTime, Utc};
use tephra_core::model::history::{AuditAction, AuditTarget};
use uuid::Uuid;

/// The issuer of the user rows that stand for applications.
pub const APP_ISSUER: &str = "tephra:application";

/// How stale `last_used_at` may get before a use writes it again: a script calling every
/// second must not turn every request into a write.
const TOUCH_EVERY_SECONDS: i64 = 60;

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Application {
    pub id: Uuid,
    /// Unique; the client id a script signs in with.
    pub name: String,
    /// The user row it acts as.
    pub user_id: Uuid,
    /// Who created it.
    pub owner_id: Uuid,
    pub secret_hash: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// When the secret, and every token it gave, stops working (`None` only if set so by hand).
    pub expires_at: Option<DateTime<Utc>>,
    /// When the current secret was made; tokens issued before it no longer work.
    pub secret_set_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, name, user_id, owner_id, secret_hash, created_at, last_used_at, \
                       revoked_at, expires_at, secret_set_at";

/// A secret to store: its hash, and when it expires.
pub struct NewSecret {
    pub hash: String,
    pub expires_at: DateTime<Utc>,
}

pub struct Applications<'a>(pub(super) &'a super::Database);

impl Applications<'_> {
    /// Creates the application and the user row it acts as, with its audit event (`detail`
    /// says what was notable, such as a system administrator's role).
    pub async fn create(
        &self,
        name: &str,
        owner: Uuid,
        secret: &NewSecret,
        detail: serde_json::Value,
    ) -> DbResult<Application> {
        let at = now();
        let app = Application {
            id: Uuid::new_v4(),
            name: name.to_owned(),
            user_id: Uuid::new_v4(),
            owner_id: owner,
            secret_hash: secret.hash.clone(),
            created_at: at,
            last_used_at: None,
            revoked_at: None,
            expires_at: Some(secret.expires_at),
            secret_set_at: Some(at),
        };
        let taken = || {
            format!(
                "an application named {name:?} exists already (names stay taken after revocation)"
            )
        };
        write_transaction!(self.0, tx => {
            sqlx::query(
                "INSERT INTO users (id, issuer, subject, display_name, email, created_at, last_seen_at)
                 VALUES ($1, $2, $3, $3, NULL, $4, $4)",
            )
            .bind(app.user_id)
            .bind(APP_ISSUER)
            .bind(name)
            .bind(at)
            .execute(&mut *tx)
            .await
            .map_err(conflict_as(taken))?;
            sqlx::query(
                "INSERT INTO applications (id, name, user_id, owner_id, secret_hash, created_at,
                                           expires_at, secret_set_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $6)",
            )
            .bind(app.id)
            .bind(name)
            .bind(app.user_id)
            .bind(owner)
            .bind(&secret.hash)
            .bind(at)
            .bind(secret.expires_at)
            .execute(&mut *tx)
            .await
            .map_err(conflict_as(taken))?;
            record_in!(&mut *tx, Some(owner), AuditAction::ApplicationCreate, AuditTarget::Application, app.id, &detail)
                .await?;
            tx.commit().await?;
        });
        Ok(app)
    }

    pub async fn get(&self, id: Uuid) -> DbResult<Application> {
        let sql = format!("SELECT {COLUMNS} FROM applications WHERE id = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?)
    }

    pub async fn by_name(&self, name: &str) -> DbResult<Application> {
        let sql = format!("SELECT {COLUMNS} FROM applications WHERE name = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(name).fetch_one(pool).await)?)
    }

    /// The applications `owner` created, or everyone's when `None`; newest first.
    pub async fn list(&self, owner: Option<Uuid>) -> DbResult<Vec<Application>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM applications WHERE $1 IS NULL OR owner_id = $1
              ORDER BY created_at DESC, name"
        );
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(owner).fetch_all(pool).await)?)
    }

    /// Revokes the application unless it is revoked already; `None` when it was.
    pub async fn revoke(&self, id: Uuid, by: Uuid) -> DbResult<Option<Application>> {
        let revoked = write_transaction!(self.0, tx => {
            let done = sqlx::query(
                "UPDATE applications SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
            )
            .bind(id)
            .bind(now())
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if done == 1 {
                let detail = serde_json::json!({});
                record_in!(&mut *tx, Some(by), AuditAction::ApplicationRevoke, AuditTarget::Application, id, &detail)
                    .await?;
                tx.commit().await?;
            }
            done == 1
        });
        Ok(if revoked {
            Some(self.get(id).await?)
        } else {
            None
        })
    }

    /// Gives the application a new secret: the old one and every token it gave stop working.
    /// `None` when it is revoked (a revoked application stays revoked).
    pub async fn rotate(
        &self,
        id: Uuid,
        secret: &NewSecret,
        by: Uuid,
    ) -> DbResult<Option<Application>> {
        let rotated = write_transaction!(self.0, tx => {
            let done = sqlx::query(
                "UPDATE applications SET secret_hash = $2, expires_at = $3, secret_set_at = $4
                  WHERE id = $1 AND revoked_at IS NULL",
            )
            .bind(id)
            .bind(&secret.hash)
            .bind(secret.expires_at)
            .bind(now())
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if done == 1 {
                let detail = serde_json::json!({ "expiresAt": secret.expires_at });
                record_in!(&mut *tx, Some(by), AuditAction::ApplicationRotateSecret, AuditTarget::Application, id, &detail)
                    .await?;
                tx.commit().await?;
            }
            done == 1
        });
        Ok(if rotated {
            Some(self.get(id).await?)
        } else {
            None
        })
    }

    /// Records a use, at most once a minute per application.
    pub async fn touch(&self, id: Uuid) -> DbResult<()> {
        let at = now();
        let stale = at - chrono::Duration::seconds(TOUCH_EVERY_SECONDS);
        on_pool!(self.0, pool => sqlx::query(
            "UPDATE applications SET last_used_at = $2
              WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)",
        )
        .bind(id)
        .bind(at)
        .bind(stale)
        .execute(pool)
        .await
        .map(|_| ()))?;
        Ok(())
    }
}
