//! The testbed behaves like a real cluster with Volcano: gang scheduling, queues with capability,
//! Volcano's own suspend and resume, foreground deletion, and restart policies. These document
//! the behaviour Tephra relies on. One testbed serves every test (a custom harness starts it
//! first and stops it last); each test has its own namespace.

mod api;
mod compat;
mod dashboard;
mod diagnosis;
mod drills;
mod edits;
mod eta;
mod generic;
mod gpu_use;
mod isolation;
mod kept_logs;
mod logs;
mod namespaces;
mod node_loss;
mod org;
mod ownership;
mod positions;
mod quota;
mod reliability;
mod replicas;
mod runai;
mod runs;
mod safety;
mod security;
mod sharing;
mod storage;
mod time_limit;
mod volcano;

use futures::FutureExt;
use libtest_mimic::{Arguments, Trial};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};
use tephra_tests::service_account::ChartAccount;
use tephra_tests::testbed::Testbed;

/// The Helm chart's service account on this run's testbed: Tephra runs as it (`api::launch`).
static ACCOUNT: OnceLock<ChartAccount> = OnceLock::new();

pub(crate) fn account() -> &'static ChartAccount {
    ACCOUNT
        .get()
        .expect("the chart's account is installed before any test runs")
}

/// The kubeconfig the tephra binary gets: the chart's service account's.
pub(crate) fn tephra_kubeconfig() -> &'static std::path::Path {
    &account().kubeconfig
}

/// Installs the chart's ServiceAccount and RBAC objects on the testbed and mints the account's
/// kubeconfig.
fn install_account(tb: &Testbed) -> anyhow::Result<ChartAccount> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(ChartAccount::install(tb))
}

type TestFn = fn(
    Arc<Testbed>,
    String,
)
    -> std::pin::Pin<Box<dyn std::future::Future<Output = anyhow::Result<()>> + Send>>;

macro_rules! trials {
    ($($module:ident :: $name:ident),* $(,)?) => {
        vec![$((stringify!($name), (|tb, ns| Box::pin($module::$name(tb, ns))) as TestFn)),*]
    };
}

fn main() {
    let mut args = Arguments::from_args();
    // The tests share one cluster's 32 GPUs and assert on what fits; one at a time keeps each
    // test's picture of free capacity its own (they take about 15 s together).
    args.test_threads.get_or_insert(1);
    let tests = trials![
        volcano::seed_000_pytorch_job_runs_as_a_gang,
        volcano::completing_the_master_completes_the_torchrun_job,
        volcano::a_gang_that_cannot_fit_binds_nothing_while_a_small_job_runs,
        volcano::a_gang_larger_than_the_cluster_never_binds_a_pod,
        volcano::a_queue_capability_caps_what_runs,
        volcano::abort_and_resume_commands_stop_and_restart_the_job,
        volcano::foreground_delete_removes_pods_and_the_podgroup,
        volcano::a_failed_pod_restarts_the_job_and_counts_a_retry,
        runs::seed_003_training_runs_live_and_completes,
        runs::a_pytorch_training_runs_as_a_gang_and_completes_with_its_master,
        runs::a_gang_that_cannot_fit_is_pending_with_the_schedulers_reason,
        ownership::suspend_and_resume_three_times_then_delete_leaves_nothing,
        ownership::new_volumes_belong_to_the_workload_and_go_with_it,
        safety::bad_input_gets_the_documented_status_and_changes_nothing,
        safety::killed_between_accepting_and_creating_no_request_gets_two_jobs,
        safety::requests_are_accepted_while_the_cluster_is_unreachable,
        safety::jobs_without_a_workload_are_reported_not_deleted,
        dashboard::a_pytorch_training_from_the_form_runs_live_and_is_managed_with_buttons,
        org::projects_are_leaf_queues_under_their_department_and_come_back,
        runai::completions_beyond_parallelism_run_every_pod_and_complete_when_all_succeed,
        runai::runai_python_sdk_runs_a_script_unmodified,
        runai::an_mpi_launcher_that_waits_is_created_once_its_workers_run,
        runai::exposed_urls_get_a_service_and_an_ingress_that_go_with_the_workload,
        runai::a_projects_default_pull_secret_reaches_the_pods,
        sharing::gpu_portions_get_their_share_of_a_cards_memory,
        compat::runai_requests_of_every_field_group_run_on_the_testbed,
        storage::every_kind_of_storage_is_created_bound_and_mounted,
        storage::an_s3_volume_waits_for_its_secret_and_runs_once_it_exists,
        logs::a_pods_log_is_read_tailed_with_timestamps_and_downloaded,
        logs::a_followed_log_streams_new_lines_and_ends_with_the_container,
        logs::an_endless_line_and_its_follow_keep_tephra_small,
        gpu_use::gpu_use_shows_per_pod_and_in_the_list,
        gpu_use::a_project_rule_suspends_a_training_whose_gpus_stay_idle,
        time_limit::a_training_is_stopped_at_its_time_limit,
        diagnosis::a_failed_training_says_why_in_one_line,
        diagnosis::a_training_killed_for_memory_opens_the_form_with_more,
        diagnosis::an_image_that_cannot_be_pulled_says_so_and_offers_the_fix,
        diagnosis::a_missing_secret_is_named_until_it_exists,
        node_loss::a_training_whose_node_is_deleted_says_so_and_runs_again,
        kept_logs::a_failed_trainings_last_lines_and_hints_outlive_its_pods,
        edits::a_running_training_scales_and_changes_priority_and_the_cluster_follows,
        generic::a_generic_jobs_failure_rule_waits_for_every_replica_it_lists,
        generic::a_generic_jobs_success_rule_and_clean_up_none_and_all,
        generic::a_generic_jobs_restart_limit_counts_the_types_restarts,
        generic::a_generic_jobs_pause_and_debug_run_modes,
        quota::an_in_quota_training_reclaims_what_an_over_quota_one_borrowed,
        positions::the_first_in_the_queue_is_the_first_volcano_starts,
        eta::a_waiting_training_starts_within_its_estimate,
        eta::an_estimate_names_no_training_of_another_project,
        reliability::a_finished_training_stays_finished_when_its_job_is_collected,
        reliability::a_delete_right_after_submit_never_leaves_a_job_behind,
        reliability::a_resume_racing_a_delete_never_undoes_it,
        reliability::a_job_volcano_stopped_is_suspended_and_can_be_resumed,
        reliability::a_taken_name_backs_off_and_is_retried_once_freed,
        namespaces::a_project_namespace_tephra_did_not_make_is_refused_and_left_alone,
        security::tenant_escapes_are_refused_and_reach_nothing_on_sqlite,
        security::tenant_escapes_are_refused_and_reach_nothing_on_postgres,
        reliability::a_job_changed_by_hand_is_drift_and_one_deleted_by_hand_comes_back,
        reliability::a_job_is_not_recreated_once_the_policy_forbids_its_request,
        replicas::two_replicas_serve_alike_and_the_follower_takes_over_when_the_leader_is_killed,
        replicas::a_leader_that_shuts_down_hands_over_at_once,
        drills::crash_drill_short,
        drills::api_server_outage_drill_short,
        // Ignored unless asked for (`scripts/drill` runs them with --ignored).
        drills::crash_drill_long,
        drills::api_server_outage_drill_long,
        logs::an_endless_line_followed_ten_minutes_keeps_tephra_small_long,
    ];
    let wanted: Vec<_> = tests
        .iter()
        .filter(|(name, _)| {
            args.filter.as_ref().is_none_or(|f| {
                if args.exact {
                    name == f
                } else {
                    name.contains(f.as_str())
                }
            })
        })
        .collect();
    // Start the cluster only when a test will use it (e.g. not for `--list`).
    let testbed = if wanted.is_empty() || args.list {
        None
    } else {
        // With the GPU metrics (a DCGM-shaped exporter and Prometheus) for `gpu_use`.
        match Testbed::start_with(&["--metrics"]) {
            Ok(tb) => {
                match install_account(&tb) {
                    Ok(account) => {
                        let _ = ACCOUNT.set(account);
                    }
                    Err(e) => {
                        eprintln!("cannot install the chart's service account: {e:#}");
                        drop(tb);
                        std::process::exit(101);
                    }
                }
                Some(Arc::new(tb))
            }
            Err(e) => {
                eprintln!("cannot start the testbed: {e:#}");
                std::process::exit(101);
            }
        }
    };
    let trials = tests
        .into_iter()
        .map(|(name, test)| {
            let testbed = testbed.clone();
            let long = name.ends_with("_long");
            Trial::test(name, move || {
                let testbed = testbed.ok_or("no testbed")?;
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?;
                runtime.block_on(async move {
                    let client = testbed.client().await.map_err(|e| format!("{e:#}"))?;
                    let before = isolation::namespaces(&client).await?;
                    let ns = testbed
                        .namespace(&client, name)
                        .await
                        .map_err(|e| format!("{e:#}"))?;
                    // A failed assertion panics; its namespace goes all the same, or the pods
                    // it left would hold GPUs that later tests count on.
                    let result = AssertUnwindSafe(test(testbed.clone(), ns.clone()))
                        .catch_unwind()
                        .await;
                    // Before cleaning up: what held the cluster's GPUs when the test failed.
                    let holders = match &result {
                        Ok(Ok(())) => None,
                        _ => Some(isolation::gpu_holders(&client).await),
                    };
                    volcano::cleanup(&client, &ns).await;
                    if holders.is_some() {
                        isolation::remove_namespaces_since(&client, &before).await;
                    }
                    let stray = isolation::stop_stray_servers();
                    let settled = isolation::settle(&client, &before).await;
                    match result {
                        Ok(result) => {
                            result
                                .map_err(|e| format!("{e:#}\n{}", holders.unwrap_or_default()))?;
                            stray?;
                            Ok(settled?)
                        }
                        Err(panic) => {
                            eprintln!("{}", holders.unwrap_or_default());
                            std::panic::resume_unwind(panic)
                        }
                    }
                })
            })
            .with_ignored_flag(long)
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    // Every trial has finished and dropped its handle; this is the last one.
    if let Some(testbed) = testbed {
        match Arc::try_unwrap(testbed) {
            Ok(mut tb) => tb.stop(),
            Err(_) => eprintln!("testbed still referenced at exit; its Drop stops it"),
        }
    }
    conclusion.exit();
}
