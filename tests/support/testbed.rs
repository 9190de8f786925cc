//! The testbed cluster (testbed/run): real kube-apiserver, etcd, Volcano and KWOK fake GPU nodes.
//! One per test run, started before the tests and stopped after them; or, when
//! `TEPHRA_TESTBED_DIR` names a running testbed, that one is reused and left running.

use anyhow::{Context, bail};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Testbed {
    pub dir: PathBuf,
    pub kubeconfig: PathBuf,
    /// Started by this run (and so stopped by it).
    owned: bool,
    _tmp: Option<tempfile::TempDir>,
}

fn run_script() -> PathBuf {
    crate::workspace::root().join("testbed/run")
}

impl Testbed {
    pub fn start() -> anyhow::Result<Self> {
        Self::start_with(&[])
    }

    /// A testbed with `testbed/run up` flags (e.g. `--nodes 10 --pods 1100`); a reused one
    /// (`TEPHRA_TESTBED_DIR`) keeps the shape it was started with.
    pub fn start_with(flags: &[&str]) -> anyhow::Result<Self> {
        if let Some(dir) = std::env::var_os("TEPHRA_TESTBED_DIR") {
            let dir = PathBuf::from(dir);
            let kubeconfig = up(&dir, &[])?;
            return Ok(Testbed {
                dir,
                kubeconfig,
                owned: false,
                _tmp: None,
            });
        }
        let tmp = tempfile::Builder::new()
            .prefix("tephra-testbed-")
            .tempdir()?;
        let dir = tmp.path().to_path_buf();
        let kubeconfig = up(&dir, flags)?;
        Ok(Testbed {
            dir,
            kubeconfig,
            owned: true,
            _tmp: Some(tmp),
        })
    }

    pub async fn client(&self) -> anyhow::Result<kube::Client> {
        let kubeconfig = Kubeconfig::read_from(&self.kubeconfig)?;
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
        Ok(kube::Client::try_from(config)?)
    }

    /// A namespace of its own for one test; the namespace controller removes its contents when the
    /// test deletes it (or when the testbed goes away).
    pub async fn namespace(&self, client: &kube::Client, test: &str) -> anyhow::Result<String> {
        let suffix: String = uuid::Uuid::new_v4().simple().to_string()[..6].to_owned();
        // Short enough that names derived from it stay within 63: Volcano copies the queue name
        // into a pod label, and a queue named after a 63-character namespace left every pod of
        // its jobs uncreated (the Job stayed Pending with no error on it).
        let stem: String = test.replace('_', "-").chars().take(40).collect();
        let name = format!("t-{}-{suffix}", stem.trim_end_matches('-'));
        let ns: Namespace =
            serde_json::from_value(serde_json::json!({ "metadata": { "name": name } }))?;
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &ns)
            .await?;
        Ok(name)
    }

    pub fn stop(&mut self) {
        if self.owned {
            let _ = Command::new(run_script())
                .args(["down"])
                .arg(&self.dir)
                .status();
            self.owned = false;
        }
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        self.stop();
    }
}

fn up(dir: &Path, flags: &[&str]) -> anyhow::Result<PathBuf> {
    let out = Command::new(run_script())
        .arg("up")
        .arg(dir)
        .args(flags)
        .output()
        .context("cannot run testbed/run")?;
    if !out.status.success() {
        bail!(
            "testbed/run up failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let kubeconfig = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_owned();
    if kubeconfig.is_empty() {
        bail!("testbed/run up printed no kubeconfig path");
    }
    Ok(PathBuf::from(kubeconfig))
}

/// A Volcano (or any) resource by group, version, kind and plural, for dynamic access.
pub fn resource(
    group: &str,
    version: &str,
    kind: &str,
    plural: &str,
) -> kube::discovery::ApiResource {
    kube::discovery::ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: format!("{group}/{version}"),
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// Volcano's `batch.volcano.sh/v1alpha1` Job.
pub fn job_resource() -> kube::discovery::ApiResource {
    resource("batch.volcano.sh", "v1alpha1", "Job", "jobs")
}

/// Volcano's cluster-scoped Queue.
pub fn queue_resource() -> kube::discovery::ApiResource {
    resource("scheduling.volcano.sh", "v1beta1", "Queue", "queues")
}
