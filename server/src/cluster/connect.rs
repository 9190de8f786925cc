//! Finding the Kubernetes API the standard way.

use anyhow::Context;
use std::path::Path;

/// The Kubernetes client for the configured cluster, found the standard way: `kubeconfig` when
/// given, else `KUBECONFIG`, `~/.kube/config`, or the in-cluster service account. `None` when
/// none of those exists; an existing but broken configuration is an error.
pub async fn connect(kubeconfig: Option<&Path>) -> anyhow::Result<Option<kube::Client>> {
    use kube::config::{KubeConfigOptions, Kubeconfig};
    let config = if let Some(path) = kubeconfig {
        let file = Kubeconfig::read_from(path)
            .with_context(|| format!("cannot read the kubeconfig {}", path.display()))?;
        kube::Config::from_custom_kubeconfig(file, &KubeConfigOptions::default())
            .await
            .with_context(|| format!("the kubeconfig {} is not usable", path.display()))?
    } else {
        let home_config = std::env::var_os("HOME")
            .map(|home| Path::new(&home).join(".kube/config"))
            .is_some_and(|p| p.exists());
        let in_cluster = std::env::var_os("KUBERNETES_SERVICE_HOST").is_some();
        if std::env::var_os("KUBECONFIG").is_none() && !home_config && !in_cluster {
            return Ok(None);
        }
        kube::Config::infer().await.context(
            "cannot load the Kubernetes configuration (KUBECONFIG, ~/.kube/config or in-cluster)",
        )?
    };
    Ok(Some(
        kube::Client::try_from(config).context("cannot build a Kubernetes client")?,
    ))
}
