//! Users: everyone who has signed in, keyed by their identity provider and subject.

use super::{DbResult, now, on_pool};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct User {
    pub id: Uuid,
    pub issuer: String,
    pub subject: String,
    pub display_name: String,
    pub email: Option<String>,
    pub created_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    /// The Linux uid and gid from the provider's token at the last sign-in.
    pub uid: Option<i64>,
    pub gid: Option<i64>,
    /// The groups the provider named at the last sign-in: what an application the user made
    /// may act with is bounded by the rules they reach, groups included.
    pub groups: sqlx::types::Json<Vec<String>>,
}

/// What an identity provider says about someone at sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub issuer: String,
    pub subject: String,
    pub display_name: String,
    pub email: Option<String>,
    pub uid: Option<i64>,
    pub gid: Option<i64>,
    pub groups: Vec<String>,
}

pub struct Users<'a>(pub(super) &'a super::Database);

const COLUMNS: &str =
    "id, issuer, subject, display_name, email, created_at, last_seen_at, uid, gid, groups";

impl Users<'_> {
    /// Records a sign-in: creates the user on first sight, otherwise refreshes the name and email
    /// the provider sent and the last-seen time. Returns the stored user.
    pub async fn upsert(&self, identity: &Identity) -> DbResult<User> {
        let at = now();
        let sql = format!(
            "INSERT INTO users (id, issuer, subject, display_name, email, created_at, last_seen_at,
                                uid, gid, groups)
             VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9)
             ON CONFLICT (issuer, subject) DO UPDATE
                SET display_name = excluded.display_name,
                    email = excluded.email,
                    last_seen_at = excluded.last_seen_at,
                    uid = excluded.uid,
                    gid = excluded.gid,
                    groups = excluded.groups
             RETURNING {COLUMNS}"
        );
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql)
            .bind(Uuid::new_v4())
            .bind(&identity.issuer)
            .bind(&identity.subject)
            .bind(&identity.display_name)
            .bind(&identity.email)
            .bind(at)
            .bind(identity.uid)
            .bind(identity.gid)
            .bind(sqlx::types::Json(&identity.groups))
            .fetch_one(pool)
            .await)?)
    }

    pub async fn get(&self, id: Uuid) -> DbResult<User> {
        let sql = format!("SELECT {COLUMNS} FROM users WHERE id = $1");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).bind(id).fetch_one(pool).await)?)
    }

    /// Everyone, most recently seen first.
    pub async fn list(&self) -> DbResult<Vec<User>> {
        let sql = format!("SELECT {COLUMNS} FROM users ORDER BY last_seen_at DESC, display_name");
        Ok(on_pool!(self.0, pool => sqlx::query_as(&sql).fetch_all(pool).await)?)
    }

    pub async fn count(&self) -> DbResult<i64> {
        let sql = "SELECT COUNT(*) FROM users";
        Ok(on_pool!(self.0, pool => sqlx::query_scalar(sql).fetch_one(pool).await)?)
    }
}
