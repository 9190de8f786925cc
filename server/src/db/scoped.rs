//! What a department's or project's delete takes with it (the access rules and policies scoped
//! to it), and the hold that keeps a new rule or policy from naming a unit being deleted. Left
//! behind, a grant would name a unit that is gone (shown as a bare id in every list of rules and
//! carried in its holder's principal) and a policy would outlive what it governs.

use serde_json::{Value, json};

/// Deletes the access rules and policies on scope `$kind` (`"department"` or `"project"`) `$id`
/// (the id as the scope spells it) inside `$tx`, and answers what went ([`taken`]) for the
/// delete's audit entry. `?` returns the function it is in on a failed statement.
macro_rules! forget_scope {
    ($tx:expr, $kind:expr, $id:expr) => {{
        let rules: Vec<(String, String, i64)> = sqlx::query_as(
            "DELETE FROM access_rules WHERE scope_type = $1 AND scope_id = $2
             RETURNING subject_type, subject_id, role_id",
        )
        .bind($kind)
        .bind($id)
        .fetch_all(&mut *$tx)
        .await?;
        let policies: Vec<String> = sqlx::query_scalar(
            "DELETE FROM policies WHERE scope_type = $1 AND scope_id = $2 RETURNING kind",
        )
        .bind($kind)
        .bind($id)
        .fetch_all(&mut *$tx)
        .await?;
        $crate::db::scoped::taken(rules, policies)
    }};
}
pub(crate) use forget_scope;

/// Holds scope `$scope` (a `&Scope`) for the transaction `$tx` that writes something naming it,
/// and answers whether it still exists: the project's or department's row lock, which its
/// delete takes before it removes what names it. A rule or policy written meanwhile is then
/// either seen and removed by the delete, or finds the unit gone. The system always exists.
macro_rules! hold_scope {
    ($tx:expr, $scope:expr) => {{
        use tephra_core::domain::authz::Scope;
        macro_rules! held {
            ($sql:expr, $id:expr) => {
                sqlx::query($sql)
                    .bind($id)
                    .execute(&mut *$tx)
                    .await?
                    .rows_affected()
                    == 1
            };
        }
        // An id that does not parse names no unit: nothing holds it.
        match $scope {
            Scope::System => true,
            Scope::Department(id) => match id.parse::<i64>() {
                Ok(id) => held!($crate::db::departments::LOCK_SQL, id),
                Err(_) => false,
            },
            Scope::Project(id) => match id.parse::<uuid::Uuid>() {
                Ok(id) => held!($crate::db::projects::LOCK_SQL, id),
                Err(_) => false,
            },
        }
    }};
}
pub(crate) use hold_scope;

/// What a delete took with it, in a stable order: each access rule's subject and role, and the
/// kinds of the policies.
pub(crate) fn taken(mut rules: Vec<(String, String, i64)>, mut policies: Vec<String>) -> Value {
    rules.sort();
    policies.sort();
    let rules: Vec<Value> = rules
        .into_iter()
        .map(|(subject_type, subject_id, role_id)| {
            json!({ "subjectType": subject_type, "subjectId": subject_id, "roleId": role_id })
        })
        .collect();
    json!({ "accessRules": rules, "policies": policies })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_went_is_listed_in_a_stable_order() {
        let went = taken(
            vec![
                ("user".into(), "b@x".into(), 3),
                ("group".into(), "ml".into(), 2),
            ],
            vec!["training".into(), "distributed".into()],
        );
        assert_eq!(
            went,
            json!({
                "accessRules": [
                    { "subjectType": "group", "subjectId": "ml", "roleId": 2 },
                    { "subjectType": "user", "subjectId": "b@x", "roleId": 3 },
                ],
                "policies": ["distributed", "training"],
            })
        );
    }
}
