use super::*;
use clap::CommandFactory;

fn serve(args: &[&str]) -> ServeArgs {
    let cli =
        Cli::try_parse_from(std::iter::once("tephra").chain(args.iter().copied())).expect("parses");
    match cli.into_command() {
        Command::Serve(args) => *args,
        Command::Render(_) => panic!("expected serve"),
    }
}

#[test]
fn the_cli_definition_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn serve_is_the_default_and_takes_the_same_flags() {
    let implicit = serve(&["--addr", "127.0.0.1:4000"]);
    let explicit = serve(&["serve", "--addr", "127.0.0.1:4000"]);
    assert_eq!(implicit.addr, explicit.addr);
    assert_eq!(implicit.addr.port(), 4000);
}

#[test]
fn the_database_defaults_to_sqlite_in_the_data_dir() {
    let args = serve(&["--data-dir", "/var/lib/tephra"]);
    assert_eq!(args.database_url(), "sqlite:/var/lib/tephra/tephra.db");
}

#[test]
fn dev_login_follows_the_address() {
    assert!(serve(&[]).dev_login_enabled().unwrap());
    assert!(
        !serve(&["--addr", "0.0.0.0:3000"])
            .dev_login_enabled()
            .unwrap()
    );
    let err = serve(&["--addr", "0.0.0.0:3000", "--dev-login", "on"])
        .validate()
        .unwrap_err();
    assert!(err.to_string().starts_with("--dev-login"), "{err}");
}

#[test]
fn sign_in_settings_that_cannot_work_are_refused_by_name() {
    let cases: &[(&[&str], &str)] = &[
        (&["--oidc-issuer", "https://id.example"], "--oidc-client-id"),
        (&["--oidc-client-id", "tephra"], "--oidc-client-id"),
        (
            &[
                "--oidc-issuer",
                "https://id.example",
                "--oidc-client-id",
                "t",
            ],
            "--public-url",
        ),
        (
            &["--oidc-issuer", "id.example", "--oidc-client-id", "t"],
            "--oidc-issuer",
        ),
        (
            &[
                "--addr",
                "0.0.0.0:3000",
                "--public-url",
                "http://tephra.example",
            ],
            "--public-url",
        ),
        (&["--session-idle-minutes", "0"], "--session-idle-minutes"),
        (
            &["--session-idle-minutes", "120", "--session-max-hours", "1"],
            "--session-max-hours",
        ),
    ];
    for (args, flag) in cases {
        let err = serve(args).validate().unwrap_err();
        assert!(err.to_string().starts_with(flag), "{args:?}: {err}");
    }
    let opted_in = serve(&[
        "--addr",
        "0.0.0.0:3000",
        "--public-url",
        "http://tephra.example",
        "--allow-insecure-public-url",
    ]);
    assert!(opted_in.validate().is_ok());
}

#[test]
fn an_identity_provider_turns_the_automatic_dev_login_off() {
    let args = serve(&[
        "--oidc-issuer",
        "https://id.example",
        "--oidc-client-id",
        "tephra",
        "--public-url",
        "http://127.0.0.1:3000",
    ]);
    assert!(args.validate().is_ok());
    assert!(!args.dev_login_enabled().unwrap());
}

#[test]
fn unknown_database_schemes_are_refused_by_name() {
    let err = serve(&["--database-url", "mysql://x/y"])
        .validate()
        .unwrap_err();
    assert!(err.to_string().starts_with("--database-url"), "{err}");
}

#[test]
fn namespace_prefixes_must_start_a_namespace_name() {
    assert!(serve(&["--namespace-prefix", "ml-"]).validate().is_ok());
    for bad in ["", "Tephra-", "9x", "a_b"] {
        let flag = format!("--namespace-prefix={bad}");
        let err = serve(&[&flag]).validate().unwrap_err();
        assert!(err.to_string().starts_with("--namespace-prefix"), "{err}");
    }
}

#[test]
fn the_pod_maximum_defaults_to_1000_and_must_allow_one_pod() {
    assert_eq!(serve(&[]).max_pods_per_workload, 1000);
    assert_eq!(
        serve(&["--max-pods-per-workload", "20"]).max_pods_per_workload,
        20
    );
    let err = serve(&["--max-pods-per-workload", "0"])
        .validate()
        .unwrap_err();
    assert!(
        err.to_string().starts_with("--max-pods-per-workload"),
        "{err}"
    );
}

#[test]
fn bad_log_filters_are_refused_by_name() {
    let err = serve(&["--log", "info,=="]).validate().unwrap_err();
    assert!(err.to_string().starts_with("--log"), "{err}");
}
