//! Command line and environment: every option is a flag with a `TEPHRA_*` variable beside it, and
//! `tephra --help` documents them all. Checks that need more than parsing (e.g. the dev login on a
//! public address) happen in [`ServeArgs::validate`], so the error names the option to change.

mod access;
mod auth;
#[cfg(test)]
mod doc_tests;
mod keys;
mod limits;
mod render;

pub use access::{AccessArgs, ProjectAccess};
pub use auth::{AuthArgs, OidcSettings, PublicUrl};
use clap::{Args, Parser, Subcommand, ValueEnum};
pub use keys::KeyArgs;
pub use limits::LimitArgs;
pub use render::{OutputFormat, RenderArgs};
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "tephra",
    version,
    about = "Tephra: a control plane for ML training on Kubernetes with Volcano.",
    long_about = "Tephra: a control plane for ML training on Kubernetes with Volcano.\n\n\
                  Without a subcommand, `tephra` runs the server (`tephra serve`). Every option can \
                  also be set with the environment variable shown beside it.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server: the web UI, the API and the controller (the default).
    Serve(Box<ServeArgs>),
    /// Print the Volcano Job (and PVCs, Services) a training request becomes, without a cluster.
    Render(RenderArgs),
}

impl Cli {
    /// The subcommand to run, with `serve` when none was given.
    pub fn into_command(self) -> Command {
        self.command
            .unwrap_or_else(|| Command::Serve(Box::new(self.serve)))
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on. Keep the loopback default unless Tephra runs behind a proxy or in a
    /// cluster.
    #[arg(long, env = "TEPHRA_ADDR", default_value = "127.0.0.1:3000", value_name = "IP:PORT")]
    pub addr: SocketAddr,

    /// Also serve `/healthz` and `/readyz` here, from a thread of their own, so the probes do not
    /// wait behind the main listener's requests and streams. The Helm chart points the kubelet's
    /// probes at it.
    #[arg(long, env = "TEPHRA_PROBE_ADDR", value_name = "IP:PORT")]
    pub probe_addr: Option<SocketAddr>,

    /// Directory for Tephra's own files (the embedded SQLite database). Created when missing.
    #[arg(long, env = "TEPHRA_DATA_DIR", default_value = "data", value_name = "DIR")]
    pub data_dir: PathBuf,

    /// Database URL: `sqlite:PATH` or `postgres://USER:PASSWORD@HOST:PORT/DB`. Defaults to
    /// `sqlite:<data-dir>/tephra.db`.
    #[arg(long, env = "TEPHRA_DATABASE_URL", value_name = "URL", hide_env_values = true)]
    pub database_url: Option<String>,

    /// Days the audit trail keeps an entry (a workload's history is in it too); older ones are
    /// removed every hour, with an `audit.forgotten` entry saying how many. 0 keeps them all.
    #[arg(
        long,
        env = "TEPHRA_AUDIT_RETENTION_DAYS",
        default_value_t = 400,
        value_name = "DAYS"
    )]
    pub audit_retention_days: u32,

    /// Directory with the built site (the `pkg/` folder with the WASM and JS bundle, and the
    /// public files), as produced by `cargo leptos build --release`.
    #[arg(long, env = "TEPHRA_SITE_ROOT", default_value = "target/site", value_name = "DIR")]
    pub site_root: PathBuf,

    /// The development login: everyone who opens the UI acts as one local user (a system
    /// administrator), no identity provider involved. `auto` turns it on when listening on a
    /// loopback address with no --oidc-issuer; `on` is refused on any other address.
    #[arg(long, env = "TEPHRA_DEV_LOGIN", value_enum, default_value_t = DevLogin::Auto)]
    pub dev_login: DevLogin,

    /// Log filter in `tracing` syntax, e.g. `info` or `info,server=debug,sqlx=warn`.
    #[arg(long, env = "TEPHRA_LOG", default_value = "info", value_name = "FILTER")]
    pub log: String,

    /// Log format: JSON lines for machines, text for people. `auto` picks text on a terminal and
    /// JSON otherwise.
    #[arg(long, env = "TEPHRA_LOG_FORMAT", value_enum, default_value_t = LogFormat::Auto)]
    pub log_format: LogFormat,

    /// The cluster's kubeconfig. Without it Tephra looks where kubectl does (`KUBECONFIG`,
    /// `~/.kube/config`) and then for an in-cluster service account; with none of them it stores
    /// trainings and starts them once it runs with a cluster.
    #[arg(long, env = "TEPHRA_KUBECONFIG", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The cluster's id (a UUID): what `GET /api/v1/clusters` lists and workloads record as
    /// their `clusterId`; requests naming another cluster are refused. Without it, a UUID is
    /// created at the first start and stored.
    #[arg(long, env = "TEPHRA_CLUSTER_ID", value_name = "UUID", value_parser = uuid_text)]
    pub cluster_id: Option<String>,

    /// Prefix of the namespace and Volcano queue of each new project (`<prefix><project>`), so
    /// several installations can share a cluster.
    #[arg(
        long,
        env = "TEPHRA_NAMESPACE_PREFIX",
        default_value = "tephra-",
        value_name = "PREFIX"
    )]
    pub namespace_prefix: String,

    /// How often the controller compares every workload with the cluster (it also acts at once
    /// on each request).
    #[arg(long, env = "TEPHRA_RESYNC_SECONDS", default_value_t = 10, value_name = "SECONDS")]
    pub resync_seconds: u64,

    /// With PostgreSQL, several replicas may serve the same users; the one holding a Lease
    /// (`<namespace-prefix>reconciler`, coordination.k8s.io) in this namespace reconciles. Another
    /// takes over this long after the holder stops renewing (at once when it shuts down).
    #[arg(long, env = "TEPHRA_LEASE_SECONDS", default_value_t = 15, value_name = "SECONDS")]
    pub lease_seconds: u64,

    /// The namespace of the leader Lease: in a cluster, Tephra's own (`POD_NAMESPACE`).
    #[arg(long, env = "POD_NAMESPACE", default_value = "default", value_name = "NAMESPACE")]
    pub lease_namespace: String,

    /// Prometheus with NVIDIA DCGM exporter metrics (e.g. http://prometheus-server.monitoring:9090):
    /// GPU use on the pages, and the projects' idle GPU rule. Without it neither is shown or
    /// applied.
    #[arg(long, env = "TEPHRA_PROMETHEUS_URL", value_name = "URL")]
    pub prometheus_url: Option<String>,

    /// Cluster profile (JSON or YAML): node-pool and node-type labels, priority classes, git image,
    /// S3 driver, data volumes. Defaults suit the testbed.
    #[arg(long, env = "TEPHRA_CLUSTER_PROFILE", value_name = "FILE")]
    pub cluster_profile: Option<PathBuf>,

    /// How long to wait for open requests to finish after SIGTERM or Ctrl-C before exiting.
    #[arg(
        long,
        env = "TEPHRA_SHUTDOWN_GRACE_SECONDS",
        default_value_t = 20,
        value_name = "SECONDS"
    )]
    pub shutdown_grace_seconds: u64,

    /// Most pods one workload may ask for at once (parallelism, workers and the master, or every
    /// replica of a generic workload); larger requests are refused with 400.
    #[arg(
        long,
        env = "TEPHRA_MAX_PODS_PER_WORKLOAD",
        default_value_t = 1000,
        value_name = "PODS"
    )]
    pub max_pods_per_workload: u64,

    #[command(flatten)]
    pub auth: AuthArgs,

    #[command(flatten)]
    pub access: AccessArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub keys: KeyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DevLogin {
    Auto,
    On,
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Auto,
    Json,
    Text,
}

/// A setting that parses but cannot be used, named after its flag.
#[derive(Debug, thiserror::Error)]
#[error("{option}: {message}")]
pub struct ConfigError {
    pub option: &'static str,
    pub message: String,
}

impl ServeArgs {
    /// The database URL in effect.
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(url) => url.clone(),
            None => format!("sqlite:{}", self.data_dir.join("tephra.db").display()),
        }
    }

    /// The RoleBinding Tephra makes in each project namespace, if it is told its account.
    pub fn project_access(&self) -> Result<Option<ProjectAccess>, ConfigError> {
        self.access.project_access(&self.lease_namespace)
    }

    /// Whether the development login is active, or why the combination is refused.
    pub fn dev_login_enabled(&self) -> Result<bool, ConfigError> {
        let loopback = self.addr.ip().is_loopback();
        match self.dev_login {
            DevLogin::Auto => Ok(loopback && self.auth.oidc_issuer.is_none()),
            DevLogin::Off => Ok(false),
            DevLogin::On if loopback => Ok(true),
            DevLogin::On => Err(ConfigError {
                option: "--dev-login (TEPHRA_DEV_LOGIN)",
                message: format!(
                    "the development login lets anyone act as the local user, so it is only \
                     allowed on a loopback address; --addr is {}",
                    self.addr
                ),
            }),
        }
    }

    /// Checks what parsing cannot.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.dev_login_enabled()?;
        self.auth.public_url(self.addr)?;
        self.auth.oidc(self.addr)?;
        self.auth.check_sessions()?;
        self.project_access()?;
        self.limits.limits()?;
        self.limits.streams()?;
        self.keys.keyring()?;
        crate::db::Engine::from_url(&self.database_url()).map_err(|e| ConfigError {
            option: "--database-url (TEPHRA_DATABASE_URL)",
            message: e.to_string(),
        })?;
        let prefix_ok = !self.namespace_prefix.is_empty()
            && self.namespace_prefix.len() <= 40
            && self
                .namespace_prefix
                .starts_with(|c: char| c.is_ascii_lowercase())
            && self
                .namespace_prefix
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !prefix_ok {
            return Err(ConfigError {
                option: "--namespace-prefix (TEPHRA_NAMESPACE_PREFIX)",
                message: format!(
                    "{:?} cannot start a namespace name: use 1 to 40 lowercase letters, digits \
                     and '-', starting with a letter",
                    self.namespace_prefix
                ),
            });
        }
        if !(3..=300).contains(&self.lease_seconds) {
            return Err(ConfigError {
                option: "--lease-seconds (TEPHRA_LEASE_SECONDS)",
                message: format!(
                    "must be from 3 to 300 (got {}): how long a replica that stopped renewing \
                     keeps the controller",
                    self.lease_seconds
                ),
            });
        }
        if let Some(url) = &self.prometheus_url {
            crate::prometheus::Prometheus::new(url).map_err(|message| ConfigError {
                option: "--prometheus-url (TEPHRA_PROMETHEUS_URL)",
                message,
            })?;
        }
        if self.resync_seconds == 0 {
            return Err(ConfigError {
                option: "--resync-seconds (TEPHRA_RESYNC_SECONDS)",
                message: "must be at least 1".into(),
            });
        }
        if self.max_pods_per_workload == 0 {
            return Err(ConfigError {
                option: "--max-pods-per-workload (TEPHRA_MAX_PODS_PER_WORKLOAD)",
                message: "must be at least 1".into(),
            });
        }
        if tracing_subscriber::EnvFilter::try_new(&self.log).is_err() {
            return Err(ConfigError {
                option: "--log (TEPHRA_LOG)",
                message: format!(
                    "{:?} is not a log filter; use a level (error, warn, info, debug, trace) \
                     optionally followed by target=level pairs, e.g. info,server=debug",
                    self.log
                ),
            });
        }
        Ok(())
    }
}

/// A UUID, kept as text in its canonical (lower-case, hyphenated) form.
fn uuid_text(text: &str) -> Result<String, String> {
    uuid::Uuid::parse_str(text)
        .map(|id| id.to_string())
        .map_err(|_| {
            format!("must be a UUID, e.g. 71f69d83-ba66-4822-adf5-55ce55efd210 (got {text:?})")
        })
}

/// This replica's name in the leader election: the pod's (`POD_NAME`, stable over a container
/// restart, so a restarted leader takes its Lease back at once), or the host's with a random
/// suffix, so two processes on one machine differ.
pub fn replica_identity() -> String {
    if let Ok(pod) = std::env::var("POD_NAME")
        && !pod.is_empty()
    {
        return pod;
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "tephra".into());
    format!("{host}-{}", &uuid::Uuid::new_v4().simple().to_string()[..8])
}

#[cfg(test)]
mod tests;
