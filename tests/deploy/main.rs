//! Tephra's Helm chart (deploy/helm/tephra): linted and rendered with the default values and
//! production-like ones, the rendered objects checked for what an installation relies on, then
//! validated by a real API server (the testbed), and the chart's service account shown to be
//! refused what Tephra never does. (That it is granted enough is shown by the cluster tests,
//! which run Tephra as that account.)
//!
//! A custom harness: the testbed starts only when a test that needs it is selected.

mod boundary;
mod cluster;
mod doc_paths;
mod docs;
mod namespaces;
mod network;
mod outdate;
mod render;
mod source_sizes;

use libtest_mimic::{Arguments, Trial};
use std::sync::{Arc, OnceLock};
use tephra_tests::testbed::Testbed;

type ClusterFn =
    fn(
        Arc<Testbed>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = anyhow::Result<()>> + Send>>;

enum Test {
    Render(fn() -> anyhow::Result<()>),
    Cluster(ClusterFn),
}

macro_rules! render {
    ($($module:ident :: $name:ident),* $(,)?) => {
        vec![$((stringify!($name), Test::Render($module::$name))),*]
    };
}

macro_rules! on_cluster {
    ($($module:ident :: $name:ident),* $(,)?) => {
        vec![$((stringify!($name), Test::Cluster(|tb| Box::pin($module::$name(tb))))),*]
    };
}

fn main() {
    let mut args = Arguments::from_args();
    // One at a time: helm and the testbed are both built by testbed/build on first use, and two
    // builds at once would write the same files.
    args.test_threads.get_or_insert(1);
    let mut tests = render![
        render::the_chart_lints_with_default_and_production_values,
        render::defaults_run_one_hardened_replica_on_sqlite_in_an_empty_dir,
        render::production_values_reference_secrets_and_spread_three_replicas,
        render::secrets_given_as_values_go_into_secrets_not_the_pod_spec,
        render::a_keys_secret_is_mounted_read_only_and_passed_as_the_keys_file,
        render::sqlite_with_several_replicas_is_refused_at_template_time,
        render::settings_tephra_would_refuse_are_refused_at_template_time,
        render::every_variable_the_pod_gets_is_one_tephra_reads,
        render::a_persistent_sqlite_volume_is_a_kept_claim,
        docs::the_rbac_table_in_deploy_md_is_the_charts_rules,
        doc_paths::every_path_a_document_names_exists,
        source_sizes::no_source_file_is_over_400_lines,
        network::tephras_pods_accept_only_the_named_namespaces_and_reach_only_their_ports,
    ];
    tests.extend(on_cluster![
        cluster::every_rendered_object_passes_the_api_servers_validation,
        cluster::the_chart_account_may_do_what_the_rbac_table_says,
        cluster::the_chart_account_is_refused_what_tephra_never_does,
        outdate::the_chart_account_may_outdate_a_pod_and_change_nothing_else,
        cluster::notes_say_how_to_reach_tephra_and_what_is_missing,
        boundary::the_chart_account_is_refused_each_dangerous_use_of_what_it_is_granted,
        boundary::the_chart_account_may_still_do_what_tephra_does_in_its_namespaces,
        namespaces::a_namespace_tephra_did_not_sign_is_refused_and_left_as_it_was,
    ]);
    // Started on first use by a cluster test, so a run of the render tests alone needs none.
    let testbed: Arc<OnceLock<Result<Arc<Testbed>, String>>> = Arc::new(OnceLock::new());
    let trials = tests
        .into_iter()
        .map(|(name, test)| match test {
            Test::Render(test) => {
                Trial::test(name, move || test().map_err(|e| format!("{e:#}").into()))
            }
            Test::Cluster(test) => {
                let testbed = Arc::clone(&testbed);
                Trial::test(name, move || {
                    let tb = testbed
                        .get_or_init(|| {
                            Testbed::start()
                                .map(Arc::new)
                                .map_err(|e| format!("cannot start the testbed: {e:#}"))
                        })
                        .clone()?;
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| e.to_string())?;
                    runtime
                        .block_on(test(tb))
                        .map_err(|e| format!("{e:#}").into())
                })
            }
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    // Every trial has finished and dropped its handle; this one stops the testbed, if one started.
    if let Some(Ok(tb)) = Arc::into_inner(testbed).and_then(OnceLock::into_inner) {
        match Arc::try_unwrap(tb) {
            Ok(mut tb) => tb.stop(),
            Err(_) => eprintln!("testbed still referenced at exit; its Drop stops it"),
        }
    }
    conclusion.exit();
}
