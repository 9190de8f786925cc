//! The audit trail's retention (`--audit-retention-days`): what is past it goes, batch by batch,
//! each batch with an entry saying how many went; what is within it stays, in order.

use chrono::{Duration, Utc};
use serde_json::json;
use server::db::Database;
use server::service::access::retention::forget;
use tephra_core::model::history::{AuditAction, AuditTarget};
use uuid::Uuid;

/// Moves every entry up to `id` back `days` days, as time would.
async fn age(db: &Database, id: i64, days: i64) {
    let at = Utc::now() - Duration::days(days);
    let sql = "UPDATE audit_events SET at = $1 WHERE id <= $2";
    match db {
        Database::Sqlite(server::db::SqliteDb { pool, .. }) => sqlx::query(sql)
            .bind(at)
            .bind(id)
            .execute(pool)
            .await
            .map(drop),
        Database::Postgres(pool) => sqlx::query(sql)
            .bind(at)
            .bind(id)
            .execute(pool)
            .await
            .map(drop),
    }
    .expect("the entries are aged");
}

async fn sign_in(db: &Database) -> i64 {
    db.audit()
        .record(
            None,
            AuditAction::SignIn,
            AuditTarget::User,
            Uuid::new_v4(),
            json!({}),
        )
        .await
        .expect("an entry")
        .id
}

pub async fn the_audit_trail_forgets_what_is_past_its_retention(db: &Database, _: &str) {
    let (_, second) = (sign_in(db).await, sign_in(db).await);
    age(db, second, 401).await;
    let kept = sign_in(db).await;

    assert_eq!(forget(db, 400).await.unwrap(), 2);
    let left = db.audit().recent(10).await.unwrap();
    let actions: Vec<_> = left.iter().map(|e| (e.id, e.action)).collect();
    assert_eq!(actions.len(), 2, "{actions:?}");
    assert_eq!(left[0].action, AuditAction::AuditForgotten);
    assert_eq!(left[0].target_kind, AuditTarget::System);
    assert_eq!(left[0].detail["entries"], json!(2));
    assert_eq!(left[1].id, kept, "what is within the retention stays");
    // Nothing more is past it, and a second pass writes nothing.
    assert_eq!(forget(db, 400).await.unwrap(), 0);
    assert_eq!(db.audit().recent(10).await.unwrap().len(), 2);

    // One batch at a time, oldest first, each with its own entry.
    let newest = sign_in(db).await;
    age(db, newest, 500).await;
    let before = Utc::now() - Duration::days(400);
    assert_eq!(db.audit().forget_before(before, 2).await.unwrap(), 2);
    let left = db.audit().recent(10).await.unwrap();
    assert_eq!(
        left.iter().map(|e| e.id).collect::<Vec<_>>()[1..],
        [newest],
        "the two oldest went first"
    );
    assert_eq!(db.audit().forget_before(before, 2).await.unwrap(), 1);
    assert_eq!(db.audit().forget_before(before, 2).await.unwrap(), 0);
}
