//! What a rendered Job needs to know about the cluster it runs in: label keys, priority classes,
//! images and drivers that differ between clusters. Nothing cluster-specific is a literal in the
//! translation.

use crate::model::training::request::ServiceType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
/// Fields left out of a profile file keep their defaults.
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ClusterProfile {
    /// The cluster's name, as `GET /api/v1/clusters` shows it.
    pub name: String,
    /// Node label whose value names a node's pool (`spec.nodePools`).
    pub node_pool_label: String,
    /// Node label whose value names a node's type (`spec.nodeType`).
    pub node_type_label: String,
    /// Run:ai priority class names (`spec.priorityClass`) to the cluster's PriorityClass objects.
    pub priority_classes: BTreeMap<String, String>,
    /// The priority class a training gets when the request names none (a key of
    /// `priority_classes`), if any.
    pub default_training_priority: Option<String>,
    /// Image of the init container that clones `storage.git` repositories; it needs `git` and `sh`.
    pub git_image: String,
    /// CSI driver that mounts `storage.s3` buckets: k8s-csi-s3 (`ru.yandex.s3.csi`) or a fork
    /// with its volume and secret spec (static volumes, keys `accessKeyID`, `secretAccessKey`,
    /// `endpoint`).
    pub s3_csi_driver: String,
    /// Data volumes an administrator registered: id to the PVC that holds the data.
    pub data_volumes: BTreeMap<String, String>,
    /// The home directory `createHomeDir` creates (an empty, writable directory; `HOME` points to it).
    pub home_dir: String,
    /// The port the PyTorch plugin announces as `MASTER_PORT`.
    pub pytorch_port: u16,
    /// IngressClass that serves `exposedUrls` outside the cluster; without one, an exposed URL
    /// is a ClusterIP Service only.
    pub ingress_class: Option<String>,
    /// The memory of one shared GPU in MiB (`volcano.sh/vgpu-memory` per card, as the nodes'
    /// `volcano.sh/node-vgpu-register` annotation says): a `gpuPortionRequest` is that share of
    /// it. 81920 is an 80 GB A100 or H100, and the testbed's cards.
    #[serde(rename = "gpuMemoryMiB")]
    pub gpu_memory_mib: u32,
    /// The wildcard domain of the exposed URLs: each gets a host of its own,
    /// `https://<job>-<port>-<hash>.<ingressHost>/` (`crate::domain::exposed`), so no two share
    /// an origin. Without one no Ingress is rendered: a hostless rule would put every training
    /// on one origin.
    pub ingress_host: Option<String>,
    /// Tephra's URLs for the ingress's forward auth of exposed URLs. With it, every request to
    /// an exposed URL is checked by Tephra (members of the project, and `authorizedUsers` /
    /// `authorizedGroups`); without it, an exposed URL served by an ingress is open to anyone
    /// who reaches it, and restricted URLs are refused.
    pub forward_auth: Option<ForwardAuth>,
    /// NFS exports a training may mount (`server` and a path prefix); none unless listed, so
    /// nobody mounts a server the platform team did not offer, as whatever uid they like.
    pub nfs_exports: Vec<NfsExport>,
    /// Service types a port may ask for besides ClusterIP (`NodePort`, `LoadBalancer`): none
    /// unless listed, since both open the port outside the cluster.
    pub service_types: Vec<ServiceType>,
    /// The namespace of the ingress controller that serves `exposedUrls`: each project
    /// namespace's NetworkPolicy admits traffic from its pods as well as from the namespace's
    /// own. Without one, only pods of the same namespace may connect.
    pub ingress_namespace: Option<String>,
    /// S3 endpoints a training's bucket may name in `url` (`https://s3.example.org`); a bucket
    /// without one uses the driver's default. None unless listed: the mount is made by the CSI
    /// driver on the node, so an arbitrary endpoint would make the node connect wherever a
    /// researcher says (an internal service, the cloud's metadata address).
    pub s3_endpoints: Vec<String>,
    /// How many workloads a project may have waiting to start at once. Tephra accepts a request
    /// that fits its project's limit on its own and lets it wait in the queue, and each waiting
    /// one is a Job and PodGroup in the cluster; without a bound one member could fill the API
    /// server and the scheduler's every cycle with held gangs.
    pub max_waiting_per_project: u32,
    /// How many of the last lines of each container's log Tephra keeps when a training fails
    /// (at most 1,000; 0 keeps none), so its page explains the failure after its pods are gone.
    pub kept_log_lines: u32,
    /// How many days the kept lines stay (those of a deleted workload go sooner).
    pub kept_logs_days: u32,
}

impl ClusterProfile {
    /// Whether exposed URLs are served through an Ingress: it needs a class and a host.
    pub fn serves_exposed_urls(&self) -> bool {
        self.ingress_class.is_some() && self.ingress_host.is_some()
    }

    /// Why `forwardAuth` does not fit Tephra's public URL (`scheme://host[:port]`, or none), if
    /// it does not: the browser must come back to the Tephra it is signed in to.
    pub fn forward_auth_refusal(&self, public_origin: Option<&str>) -> Option<String> {
        let auth = self.forward_auth.as_ref()?;
        let url = auth.url.trim_end_matches('/');
        match public_origin {
            Some(origin) if origin.eq_ignore_ascii_case(url) => None,
            Some(origin) => Some(format!(
                "forwardAuth.url {url:?} is not Tephra's public URL {origin:?}: browsers would \
                 be sent to sign in where their session is not"
            )),
            None => Some(format!(
                "forwardAuth.url {url:?} needs --public-url (TEPHRA_PUBLIC_URL) set to it"
            )),
        }
    }

    /// Why `ingressHost` may not serve exposed URLs beside Tephra at `public_host` (the public
    /// URL's `host[:port]`), if it may not: a training's page on Tephra's own host or under it
    /// would share cookies and origin with Tephra's pages.
    pub fn ingress_host_refusal(&self, public_host: &str) -> Option<String> {
        let ingress = self.ingress_host.as_deref()?.to_ascii_lowercase();
        let public = public_host
            .rsplit_once(':')
            .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
            .map_or(public_host, |(host, _)| host)
            .to_ascii_lowercase();
        (ingress == public || ingress.ends_with(&format!(".{public}"))).then(|| {
            format!(
                "the cluster profile's ingressHost {ingress:?} is Tephra's own host {public:?} or \
                 under it: exposed URLs would run beside Tephra's pages, with their cookies; \
                 give them a domain of their own"
            )
        })
    }
}

/// Where the ingress controller and the browser reach Tephra for forward auth.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForwardAuth {
    /// Tephra's public URL (`--public-url`, checked at start): the browser is sent to
    /// `<url>/auth/exposed` to be let through.
    pub url: String,
    /// Where the ingress controller asks about each request (`<internalUrl>/auth/exposed/check`),
    /// e.g. Tephra's Service inside the cluster; `url` when left out.
    pub internal_url: Option<String>,
}

impl ForwardAuth {
    /// The ingress-nginx `auth-url`: asked before every request.
    pub fn check_url(&self) -> String {
        let base = self.internal_url.as_deref().unwrap_or(&self.url);
        format!("{}/auth/exposed/check", base.trim_end_matches('/'))
    }

    /// The ingress-nginx `auth-signin`: where a browser without a pass is sent (`?rd=<url>`).
    pub fn sign_in_url(&self) -> String {
        format!("{}/auth/exposed", self.url.trim_end_matches('/'))
    }
}

/// One NFS export a profile offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NfsExport {
    pub server: String,
    /// Paths under it that may be mounted (`/exports/datasets`).
    pub path_prefix: String,
}

impl Default for ClusterProfile {
    fn default() -> Self {
        ClusterProfile {
            name: "default".into(),
            node_pool_label: "tephra.dev/node-pool".into(),
            node_type_label: "tephra.dev/node-type".into(),
            priority_classes: [
                ("train", "tephra-train"),
                ("build", "tephra-build"),
                ("interactive-preemptible", "tephra-interactive-preemptible"),
                ("inference", "tephra-inference"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
            default_training_priority: Some("train".into()),
            git_image: "alpine/git:2.47.2".into(),
            s3_csi_driver: "ru.yandex.s3.csi".into(),
            data_volumes: BTreeMap::new(),
            home_dir: "/home/tephra".into(),
            pytorch_port: 23456,
            gpu_memory_mib: 81920,
            ingress_class: None,
            ingress_host: None,
            forward_auth: None,
            nfs_exports: Vec::new(),
            service_types: Vec::new(),
            ingress_namespace: None,
            s3_endpoints: Vec::new(),
            max_waiting_per_project: 1000,
            kept_log_lines: 100,
            kept_logs_days: 30,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposed_urls_never_share_tephras_host() {
        let with = |host: &str| ClusterProfile {
            ingress_host: Some(host.into()),
            ..ClusterProfile::default()
        };
        assert!(
            with("tephra.example.org")
                .ingress_host_refusal("tephra.example.org")
                .is_some()
        );
        assert!(
            with("apps.tephra.example.org")
                .ingress_host_refusal("tephra.example.org:8443")
                .is_some()
        );
        assert_eq!(
            with("apps.example.net").ingress_host_refusal("tephra.example.org"),
            None
        );
        assert_eq!(
            with("notephra.example.org").ingress_host_refusal("tephra.example.org"),
            None
        );
        assert_eq!(
            ClusterProfile::default().ingress_host_refusal("tephra.example.org"),
            None
        );
    }
}
