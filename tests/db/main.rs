//! Repository stories, each run against SQLite and against a real PostgreSQL cluster.

mod access;
mod among;
mod filters;
mod kept;
mod lifecycle;
mod lists;
mod org_units;
mod policy;
mod quota;
mod retention;
mod rules;
mod security;
mod standing;
mod store;
mod waiting;

use access::{
    access_rules_are_unique_and_their_changes_audited,
    applications_act_as_their_own_user_and_revoke_once,
    lists_limited_to_some_projects_show_only_theirs,
};
use among::a_list_among_projects_merges_their_pages;
use filters::{
    deleted_workloads_free_their_name_and_leave_lists, workload_lists_filter_and_paginate,
};
use kept::kept_logs_are_replaced_read_and_forgotten;
use lifecycle::{
    a_finish_is_stamped_once, a_workload_stored_without_a_cluster_says_why_from_the_start,
    racing_transitions_have_exactly_one_winner,
    status_is_written_only_for_the_desired_phase_it_was_derived_for,
    workloads_round_trip_and_change_phase,
};
use lists::{
    a_name_search_follows_every_write, counts_follow_every_write,
    keyset_pages_walk_every_order_as_offsets_do,
};
use org_units::{
    a_department_deleted_while_a_project_is_made_in_it_ends_one_way,
    a_project_deleted_while_a_training_is_submitted_into_it_ends_one_way,
    org_units_check_quotas_and_refuse_deleting_what_is_used,
    racing_project_quotas_never_pass_their_department_together,
};
use policy::{
    a_projects_layers_read_from_it_match_its_scopes,
    policies_protect_nodes_narrow_inward_and_fill_defaults,
};
use quota::{
    a_projects_usage_splits_placed_and_waiting_work_by_user,
    concurrent_submissions_queue_beyond_the_limit,
    edits_are_admitted_without_their_own_use_and_one_of_racing_edits_wins,
};
use retention::the_audit_trail_forgets_what_is_past_its_retention;
use rules::scheduling_rules_are_stored_checked_cleared_and_listed;
use security::{
    a_deleted_unit_takes_its_rules_and_policies_with_it,
    a_rule_or_policy_racing_a_delete_is_not_left_behind,
    a_stranger_cannot_tell_a_taken_name_or_id_from_a_free_one, an_unreadable_policy_fails_closed,
    every_department_and_project_change_is_audited_and_a_refused_one_leaves_none,
    every_policy_change_is_in_the_audit_trail_and_a_refused_one_leaves_none,
    inner_policies_cannot_unlock_what_the_system_locks, non_preemptible_workers_stay_within_quota,
    offered_entries_are_compared_whole, researchers_cannot_reach_past_their_pods,
    strangers_learn_nothing_of_a_projects_policy,
    tenants_cannot_choose_a_namespace_tephra_does_not_own,
};
use serde_json::json;
use server::db::Database;
use server::db::users::Identity;
use server::db::workloads::{Change, NewWorkload, StatusWrite, StoredWorkload};
use standing::{
    a_preemption_is_in_the_history_with_the_status_that_shows_it,
    a_workload_admitted_over_quota_says_so_after_the_act_that_admitted_it,
};
use store::{
    bad_input_gets_the_same_400_on_both_engines_and_stores_nothing, bad_references_store_nothing,
    projects_are_unique_by_name_namespace_and_queue, reopening_keeps_data_and_the_default_project,
    settings_are_created_once, the_audit_trail_keeps_order, users_are_recorded_once_per_identity,
};
use tephra_core::domain::request::WorkloadKind;
use tephra_core::model::history::{AuditAction, HistoryAction};
use tephra_core::model::live::LiveStatus;
use tephra_core::model::phase::Phase;
use tephra_tests::postgres::TempPostgres;
use uuid::Uuid;
use waiting::{holders_and_waiting_gpus_follow_the_start, pending_time_adds_up_every_wait};

/// Keeps what a database lives on alive for the length of a test.
#[allow(dead_code)]
enum Guard {
    Sqlite(tempfile::TempDir),
    Postgres(TempPostgres),
}

async fn sqlite() -> (Database, Guard, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}/nested/data/tephra.db", dir.path().display());
    let db = Database::connect(&url).await.expect("SQLite opens");
    (db, Guard::Sqlite(dir), url)
}

async fn postgres() -> (Database, Guard, String) {
    let pg = TempPostgres::start().expect("PostgreSQL starts (run scripts/setup to install it)");
    let url = pg
        .create_database("tephra")
        .await
        .expect("database created");
    let db = Database::connect(&url).await.expect("PostgreSQL opens");
    (db, Guard::Postgres(pg), url)
}

macro_rules! on_both_engines {
    ($($story:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $story() {
                    let (db, _guard, url) = super::sqlite().await;
                    super::$story(&db, &url).await;
                    db.close().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $story() {
                    let (db, _guard, url) = super::postgres().await;
                    super::$story(&db, &url).await;
                    db.close().await;
                }
            )*
        }
    };
}

on_both_engines!(
    reopening_keeps_data_and_the_default_project,
    projects_are_unique_by_name_namespace_and_queue,
    users_are_recorded_once_per_identity,
    workloads_round_trip_and_change_phase,
    deleted_workloads_free_their_name_and_leave_lists,
    workload_lists_filter_and_paginate,
    keyset_pages_walk_every_order_as_offsets_do,
    a_list_among_projects_merges_their_pages,
    counts_follow_every_write,
    a_name_search_follows_every_write,
    pending_time_adds_up_every_wait,
    holders_and_waiting_gpus_follow_the_start,
    kept_logs_are_replaced_read_and_forgotten,
    bad_references_store_nothing,
    the_audit_trail_keeps_order,
    racing_transitions_have_exactly_one_winner,
    a_workload_stored_without_a_cluster_says_why_from_the_start,
    status_is_written_only_for_the_desired_phase_it_was_derived_for,
    a_finish_is_stamped_once,
    settings_are_created_once,
    bad_input_gets_the_same_400_on_both_engines_and_stores_nothing,
    access_rules_are_unique_and_their_changes_audited,
    applications_act_as_their_own_user_and_revoke_once,
    lists_limited_to_some_projects_show_only_theirs,
    concurrent_submissions_queue_beyond_the_limit,
    org_units_check_quotas_and_refuse_deleting_what_is_used,
    racing_project_quotas_never_pass_their_department_together,
    a_department_deleted_while_a_project_is_made_in_it_ends_one_way,
    a_project_deleted_while_a_training_is_submitted_into_it_ends_one_way,
    policies_protect_nodes_narrow_inward_and_fill_defaults,
    a_projects_layers_read_from_it_match_its_scopes,
    a_projects_usage_splits_placed_and_waiting_work_by_user,
    edits_are_admitted_without_their_own_use_and_one_of_racing_edits_wins,
    a_workload_admitted_over_quota_says_so_after_the_act_that_admitted_it,
    a_preemption_is_in_the_history_with_the_status_that_shows_it,
    every_policy_change_is_in_the_audit_trail_and_a_refused_one_leaves_none,
    every_department_and_project_change_is_audited_and_a_refused_one_leaves_none,
    a_deleted_unit_takes_its_rules_and_policies_with_it,
    a_rule_or_policy_racing_a_delete_is_not_left_behind,
    non_preemptible_workers_stay_within_quota,
    a_stranger_cannot_tell_a_taken_name_or_id_from_a_free_one,
    the_audit_trail_forgets_what_is_past_its_retention,
    scheduling_rules_are_stored_checked_cleared_and_listed,
    tenants_cannot_choose_a_namespace_tephra_does_not_own,
    inner_policies_cannot_unlock_what_the_system_locks,
    offered_entries_are_compared_whole,
    researchers_cannot_reach_past_their_pods,
    an_unreadable_policy_fails_closed,
    strangers_learn_nothing_of_a_projects_policy,
);

/// A status write with no reason and an empty live status, derived for `desired`.
pub(crate) fn moved(desired: Phase, from: Phase, to: Phase) -> StatusWrite<'static> {
    static EMPTY: std::sync::LazyLock<LiveStatus> = std::sync::LazyLock::new(LiveStatus::default);
    StatusWrite::new(desired, from, to, None, &EMPTY)
}

pub(crate) async fn user(db: &Database, subject: &str) -> Uuid {
    let identity = Identity {
        issuer: "https://idp.example".into(),
        subject: subject.into(),
        display_name: format!("User {subject}"),
        email: Some(format!("{subject}@example.com")),
        uid: None,
        gid: None,
        groups: Vec::new(),
    };
    db.users().upsert(&identity).await.expect("user stored").id
}

fn training(project_id: Uuid, created_by: Uuid, name: &str) -> NewWorkload {
    NewWorkload {
        project_id,
        name: name.into(),
        requested_name: name.into(),
        cluster_id: "default".into(),
        kind: WorkloadKind::Training,
        spec: json!({ "image": "pytorch/pytorch:2.4", "compute": { "gpuDevicesRequest": 1 } }),
        created_by,
        job_ttl_seconds: None,
        starts_paused: false,
        demand: Default::default(),
        reason: None,
    }
}

/// The history entry of a submit.
fn submitted(actor: Uuid) -> Change {
    Change {
        actor: Some(actor),
        action: HistoryAction::Submit,
        detail: json!({}),
    }
}

/// Submits a workload and suspends it.
async fn suspended(db: &Database, new: NewWorkload) -> StoredWorkload {
    let w = db
        .workloads()
        .insert(&new, submitted(new.created_by))
        .await
        .unwrap();
    db.workloads()
        .transition(
            w.id,
            Phase::Running,
            Phase::Stopped,
            acted("workload.suspend"),
        )
        .await
        .unwrap()
        .unwrap()
}

fn acted(action: &'static str) -> Change {
    Change {
        actor: None,
        action: AuditAction::parse(action)
            .and_then(AuditAction::on_workload)
            .expect("a workload's action"),
        detail: json!({}),
    }
}

/// Deletes workload `id` as a delete does: asked for (Deleting), then marked deleted once its
/// objects are gone.
pub(crate) async fn delete_workload(db: &Database, id: Uuid) {
    db.workloads()
        .transition(
            id,
            Phase::Running,
            Phase::Deleting,
            acted("workload.delete"),
        )
        .await
        .unwrap();
    db.workloads().mark_deleted(id).await.unwrap();
}

#[tokio::test]
async fn sqlite_creates_its_directory_and_uses_wal() {
    let (db, _guard, url) = sqlite().await;
    let path = url.trim_start_matches("sqlite:");
    assert!(std::path::Path::new(path).exists(), "{path} was created");
    let Database::Sqlite(server::db::SqliteDb { pool, .. }) = &db else {
        panic!("expected SQLite")
    };
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    db.close().await;
}
