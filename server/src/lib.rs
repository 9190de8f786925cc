//! Tephra's server: configuration, storage, authentication and HTTP, assembled by [`Application`].
//!
//! Error policy: typed errors (`thiserror`) inside the request path, mapped explicitly to
//! [`app::error::AppError`] at the boundary; `anyhow` only at start-up and in `main`.

pub mod auth;
pub mod authorize;
pub mod cluster;
pub mod config;
pub mod db;
pub mod http;
pub mod metrics;
pub mod prometheus;
pub mod render_cli;
pub mod rendered;
pub mod service;
pub mod supervise;
pub mod telemetry;

use anyhow::Context;
use axum::serve::ListenerExt;
use config::ServeArgs;
use db::Database;
use leptos::config::Env;
use leptos::prelude::LeptosOptions;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tephra_core::domain;
use tokio::net::TcpListener;

/// A server that is listening and ready to run: the database is open and migrated, the default
/// project exists and the port is bound (so tests can bind port 0 and ask which one they got).
pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    /// `/healthz` and `/readyz` on a thread of their own, when `--probe-addr` is set.
    probes: Option<http::probes::Probes>,
    db: Database,
    /// To let the leader Lease go on shutdown.
    cluster: cluster::ClusterHandle,
    grace: Duration,
}

/// The database, migrated, with the default project in it.
async fn open_database(args: &ServeArgs) -> anyhow::Result<Database> {
    let url = args.database_url();
    let db = Database::connect(&url)
        .await
        .with_context(|| format!("cannot open the database at {}", db::redact(&url)))?;
    db.departments()
        .ensure_default(&args.namespace_prefix)
        .await
        .context("cannot name the default department's queue")?;
    db.projects()
        .ensure_default_prefixed(&args.namespace_prefix)
        .await
        .context("cannot create the default project")?;
    Ok(db)
}

/// The cluster's watches and controller, or a detached handle when no cluster is configured
/// (the dashboard still serves what the database holds).
async fn start_cluster(
    args: &ServeArgs,
    db: &Database,
    profile: &domain::cluster::ClusterProfile,
    metrics: &Arc<metrics::Metrics>,
    keys: Option<&domain::keyring::Keyring>,
) -> anyhow::Result<cluster::ClusterHandle> {
    let id = cluster::cluster_id(db, args.cluster_id.as_deref()).await?;
    Ok(match cluster::connect(args.kubeconfig.as_deref()).await? {
        Some(client) => {
            let settings = cluster::Settings {
                profile: profile.clone(),
                resync: Duration::from_secs(args.resync_seconds),
                key: cluster::owner_key(db, keys.map(|k| &k.owner)).await?,
                metrics: Arc::clone(metrics),
                leadership: leadership(args, db),
                project_access: args.project_access()?,
            };
            cluster::start(&id, db.clone(), client, settings)
        }
        None => {
            tracing::warn!("{}", cluster::NO_CLUSTER);
            cluster::ClusterHandle::detached(&id)
        }
    })
}

/// The settings key of the key that signs exposed URLs' passes.
const EXPOSED_KEY_SETTING: &str = "exposed-url-key";

/// The key that signs exposed URLs' passes, created at the first start and kept in the database
/// like the owner key, so every replica verifies what any replica signed. A key of its own: a
/// pass can never be taken for an owner signature or an application token. With a keys file it
/// is derived from the token keys instead, so the database holds no key that opens a job's host.
async fn exposed_key(
    db: &Database,
    keys: Option<&domain::keyring::Keyring>,
) -> anyhow::Result<domain::exposed::PassKey> {
    if let Some(keys) = keys {
        let tokens = auth::tokens::AppTokens::from_ring(keys.tokens.clone());
        let (current, older) = tokens.derived_keys("exposed-url-pass");
        return Ok(domain::exposed::PassKey::rotating(current, older));
    }
    let stored = db
        .settings()
        .get_or_create(EXPOSED_KEY_SETTING, auth::tokens::new_key)
        .await
        .context("cannot read or create the key that signs exposed URLs' passes")?;
    domain::exposed::PassKey::from_hex(&stored)
        .context("the stored exposed-URL key is not a key; it was changed by hand")
}

/// With a shared database several replicas may run, and the holder of a Lease reconciles; with
/// SQLite there is one.
fn leadership(args: &ServeArgs, db: &Database) -> Option<cluster::Leadership> {
    if db.engine() != db::Engine::Postgres {
        return None;
    }
    Some(cluster::Leadership {
        namespace: args.lease_namespace.clone(),
        name: format!("{}reconciler", args.namespace_prefix),
        identity: config::replica_identity(),
        duration: Duration::from_secs(args.lease_seconds),
    })
}

/// Where the compiled front end lives and which address the pages name.
fn leptos_options(args: &ServeArgs, local_addr: SocketAddr) -> LeptosOptions {
    LeptosOptions::builder()
        .output_name("tephra")
        .site_root(args.site_root.to_string_lossy().into_owned())
        .site_pkg_dir("pkg")
        .site_addr(local_addr)
        .env(Env::PROD)
        .build()
}

/// The cluster profile (`--cluster-profile`, or the default), refused when the public URL's host
/// or sign-in would not work with its ingress settings.
fn cluster_profile(args: &ServeArgs) -> anyhow::Result<domain::cluster::ClusterProfile> {
    let profile = match &args.cluster_profile {
        Some(path) => render_cli::load_profile(path).map_err(anyhow::Error::msg)?,
        None => domain::cluster::ClusterProfile::default(),
    };
    let public = args.auth.public_url(args.addr)?;
    if let Some(public) = &public
        && let Some(why) = profile.ingress_host_refusal(&public.host)
    {
        anyhow::bail!("--cluster-profile (TEPHRA_CLUSTER_PROFILE): {why}");
    }
    if let Some(why) = profile.forward_auth_refusal(public.as_ref().map(|p| p.origin.as_str())) {
        anyhow::bail!("--cluster-profile (TEPHRA_CLUSTER_PROFILE): {why}");
    }
    Ok(profile)
}

/// The listening socket and its address (the port, when `addr` asked for any).
async fn listen(addr: SocketAddr) -> anyhow::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr} (is another server using it? set --addr)")
    })?;
    let local_addr = listener
        .local_addr()
        .context("bound socket has an address")?;
    Ok((listener, local_addr))
}

/// The idle GPU rule's controller, when GPU use can be read (`--prometheus-url`).
fn start_idle_rule(config: &service::ServiceConfig) {
    let Some(prometheus) = config.prometheus.clone() else {
        return;
    };
    let idle = cluster::idle::IdleRule::new(config.db.clone(), prometheus, config.cluster.clone());
    supervise::supervise(
        "idle GPU rule",
        config.cluster.shared.health.clone(),
        move || idle.clone().run(),
    );
}

/// The time limits' controller.
fn start_time_limits(config: &service::ServiceConfig) {
    let limits = cluster::time_limit::TimeLimits::new(config.db.clone(), config.cluster.clone());
    supervise::supervise(
        "time limits",
        config.cluster.shared.health.clone(),
        move || limits.clone().run(),
    );
}

/// The kept log lines' retention.
fn start_kept_logs_retention(config: &service::ServiceConfig) {
    let retention = cluster::keeper::Retention::new(
        config.db.clone(),
        config.cluster.clone(),
        config.profile.kept_logs_days,
    );
    supervise::supervise(
        "kept logs' retention",
        config.cluster.shared.health.clone(),
        move || retention.clone().run(),
    );
}

/// Workloads stored before quotas have no recorded demand; quotas count it, so it is measured
/// once at start.
async fn measure_older_workloads(services: &service::Services) -> anyhow::Result<()> {
    let measured = services
        .workloads()
        .measure_unmeasured()
        .await
        .context("cannot measure the workloads stored before quotas")?;
    if measured > 0 {
        tracing::info!(
            measured,
            "measured what older workloads ask for, for quotas"
        );
    }
    Ok(())
}

impl Application {
    pub async fn build(args: &ServeArgs) -> anyhow::Result<Self> {
        args.validate()?;
        let keys = args.keys.keyring()?;
        let db = open_database(args).await?;
        let profile = cluster_profile(args)?;
        let metrics = metrics::Metrics::new();
        let cluster = start_cluster(args, &db, &profile, &metrics, keys.as_ref()).await?;
        let dev_login = args.dev_login_enabled()?;
        let token_keys = keys.as_ref().map(|k| &k.tokens);
        let (auth, sessions) = auth::start(args, &db, &cluster.shared.health, token_keys).await?;
        let exposed_key = exposed_key(&db, keys.as_ref()).await?;

        let (listener, local_addr) = listen(args.addr).await?;

        let leptos_options = leptos_options(args, local_addr);
        let cluster_configured = cluster.is_configured();
        let release = cluster.clone();
        let config = service::ServiceConfig {
            db: db.clone(),
            cluster,
            profile: Arc::new(profile),
            max_pods: args.max_pods_per_workload,
            namespaces: domain::namespaces::NamespaceRules {
                prefix: args.namespace_prefix.clone(),
                release: args.lease_namespace.clone(),
            },
            metrics,
            prometheus: args
                .prometheus_url
                .as_deref()
                .map(prometheus::Prometheus::new)
                .transpose()
                .map_err(anyhow::Error::msg)?,
        };
        if cluster_configured {
            start_idle_rule(&config);
            start_time_limits(&config);
            start_kept_logs_retention(&config);
        }
        let health = config.cluster.shared.health.clone();
        let services = service::Services::new(config, auth);
        services.observe().keep_asking_the_database();
        services
            .access()
            .keep_audit_within(args.audit_retention_days, health.clone());
        services.workloads().keep_order_computed(health);
        measure_older_workloads(&services).await?;
        let state = http::AppState {
            leptos_options,
            services,
            site: http::cross_site::SitePolicy {
                dev_login,
                public_host: args.auth.public_url(args.addr)?.map(|url| url.host),
            },
            sessions,
            exposed_key,
            limits: http::limits::RateLimiter::new(args.limits.limits()?),
            streams: http::streams::Streams::new(args.limits.streams()?),
        };
        let probes = args
            .probe_addr
            .map(|addr| http::probes::Probes::start(addr, state.clone()))
            .transpose()?;
        let router = http::build_router(state);
        tracing::info!(
            addr = %local_addr,
            database = db.engine().as_str(),
            cluster = cluster_configured,
            site_root = %args.site_root.display(),
            "tephra is ready"
        );
        Ok(Application {
            listener,
            router,
            probes,
            db,
            cluster: release,
            grace: Duration::from_secs(args.shutdown_grace_seconds),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("bound socket has an address")
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Serves until `shutdown` resolves, then lets open requests finish (up to the grace period)
    /// and closes the database.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
        let signal = async move {
            shutdown.await;
            tracing::info!("shutting down: finishing open requests");
            let _ = stopping_tx.send(());
        };
        let listener =
            http::connection::Connections::new(self.listener, http::connection::STALLED_WRITE)
                // Pages stream in several small writes; without TCP_NODELAY, Nagle's algorithm meets the
                // client's delayed ACK and every page waits about 40 ms. (A tapped listener is also one
                // that axum gives the client's address for.)
                .tap_io(|io| {
                    if let Err(error) = io.get_ref().set_nodelay(true) {
                        tracing::debug!(%error, "cannot set TCP_NODELAY");
                    }
                });
        // The client's address reaches the rate limits (`http::limits`).
        let service = self
            .router
            .into_make_service_with_connect_info::<std::net::SocketAddr>();
        let serve = axum::serve(listener, service).with_graceful_shutdown(signal);
        let grace = self.grace;
        let served = tokio::select! {
            served = serve => served.context("the HTTP server failed"),
            () = async move {
                // Only counts once the shutdown signal arrived.
                if stopping_rx.await.is_ok() {
                    tokio::time::sleep(grace).await;
                } else {
                    std::future::pending::<()>().await;
                }
            } => {
                tracing::warn!(grace_seconds = grace.as_secs(), "open requests did not finish in time");
                Ok(())
            }
        };
        self.cluster.release(cluster::controller::ACT_TIMEOUT).await;
        if let Some(probes) = self.probes {
            probes.stop().await;
        }
        self.db.close().await;
        tracing::info!("stopped");
        served
    }
}

/// Installs the SIGTERM and Ctrl-C handlers now, and returns a future that resolves when either
/// arrives. Installing before the server announces readiness matters: a supervisor may send
/// SIGTERM the moment it sees the ready line, and an uninstalled handler means the default action
/// (immediate death).
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let terminate = signal(SignalKind::terminate());
    let interrupt = signal(SignalKind::interrupt());
    async move {
        let wait = |installed: std::io::Result<tokio::signal::unix::Signal>| async move {
            match installed {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                // Without the handler the signal keeps its default action; nothing to wait for.
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = wait(terminate) => {}
            () = wait(interrupt) => {}
        }
    }
}
