//! The cluster's nodes by pool: what admission needs to refuse a pod no node can hold, and what
//! `GET /api/v1/node-pools` shows. Fed by a watch on Nodes; the pool of a node is the value of
//! the profile's pool label, and nodes without it form the `default` pool, as in Run:ai.

use super::Shared;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, ResourceExt};
use std::collections::BTreeMap;
use tephra_core::domain::quota::Amount;

/// The pool of nodes without the pool label.
pub const DEFAULT_POOL: &str = "default";

/// One node as quotas see it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSize {
    pub pool: String,
    /// Allocatable GPUs, CPU and memory.
    pub allocatable: Amount,
    /// Whether pods may be scheduled on it.
    pub schedulable: bool,
}

/// Every node by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeIndex {
    nodes: BTreeMap<String, NodeSize>,
    /// Whether the first full list arrived; until then nothing is refused for its size.
    listed: bool,
}

/// A pool's nodes together.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    pub name: String,
    pub nodes: usize,
    /// All its schedulable nodes' allocatable resources.
    pub capacity: Amount,
    /// Its largest schedulable node, resource by resource.
    pub largest: Amount,
}

impl NodeIndex {
    pub fn apply(&mut self, name: String, size: NodeSize) {
        self.nodes.insert(name, size);
    }

    pub fn delete(&mut self, name: &str) {
        self.nodes.remove(name);
    }

    /// Every node by name.
    pub fn nodes(&self) -> impl Iterator<Item = (&str, &NodeSize)> {
        self.nodes.iter().map(|(name, size)| (name.as_str(), size))
    }

    /// Every pool by name.
    pub fn pools(&self) -> Vec<Pool> {
        let mut pools: BTreeMap<&str, Pool> = BTreeMap::new();
        for size in self.nodes.values() {
            let pool = pools.entry(&size.pool).or_insert_with(|| Pool {
                name: size.pool.clone(),
                nodes: 0,
                capacity: Amount::default(),
                largest: Amount::default(),
            });
            pool.nodes += 1;
            if !size.schedulable {
                continue;
            }
            let a = size.allocatable;
            pool.capacity = pool.capacity.plus(a);
            pool.largest = Amount {
                gpus: pool.largest.gpus.max(a.gpus),
                cpu_millis: pool.largest.cpu_millis.max(a.cpu_millis),
                memory_mib: pool.largest.memory_mib.max(a.memory_mib),
            };
        }
        pools.into_values().collect()
    }

    /// Each pool's largest node, for admission; empty until the nodes were listed.
    pub fn largest(&self) -> Vec<(String, Amount)> {
        if !self.listed {
            return Vec::new();
        }
        self.pools()
            .into_iter()
            .map(|pool| (pool.name, pool.largest))
            .collect()
    }
}

/// Reads a node's pool and allocatable resources.
pub fn size_of(node: &Node, pool_label: &str) -> NodeSize {
    let pool = node
        .labels()
        .get(pool_label)
        .cloned()
        .unwrap_or_else(|| DEFAULT_POOL.to_owned());
    let allocatable = node.status.as_ref().and_then(|s| s.allocatable.as_ref());
    let get = |name: &str| allocatable.and_then(|a| a.get(name)).map(quantity);
    let schedulable = !node
        .spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false);
    NodeSize {
        pool,
        allocatable: Amount {
            gpus: get(tephra_core::domain::quota::GPU_RESOURCE).unwrap_or(0.0),
            cpu_millis: (get("cpu").unwrap_or(0.0) * 1000.0).round() as i64,
            memory_mib: (get("memory").unwrap_or(0.0) / (1024.0 * 1024.0)).floor() as i64,
        },
        schedulable,
    }
}

/// A Kubernetes quantity as a number of base units; an unreadable one counts as none.
fn quantity(q: &Quantity) -> f64 {
    tephra_core::model::training::values::Quantity::positive(&q.0)
        .map(|q| q.units())
        .unwrap_or(0.0)
}

/// Keeps [`Shared::nodes`] current until the process ends.
pub async fn watch(client: Client, shared: Shared, pool_label: String) {
    let mut events = watcher(Api::<Node>::all(client), watcher::Config::default())
        .default_backoff()
        .boxed();
    let mut relist: Option<NodeIndex> = None;
    while let Some(event) = events.next().await {
        let mut index = shared.nodes.write().unwrap_or_else(|e| e.into_inner());
        match event {
            Ok(watcher::Event::Init) => relist = Some(NodeIndex::default()),
            Ok(watcher::Event::InitApply(node)) => {
                if let Some(fresh) = relist.as_mut() {
                    fresh.apply(node.name_any(), size_of(&node, &pool_label));
                }
            }
            Ok(watcher::Event::InitDone) => {
                *index = relist.take().unwrap_or_default();
                index.listed = true;
            }
            Ok(watcher::Event::Apply(node)) => {
                index.apply(node.name_any(), size_of(&node, &pool_label));
            }
            Ok(watcher::Event::Delete(node)) => index.delete(&node.name_any()),
            Err(error) => tracing::debug!(%error, "node watch failed; retrying"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(name: &str, pool: Option<&str>, gpus: &str, cpu: &str, memory: &str) -> Node {
        let labels = pool
            .map(|p| json!({ "tephra.dev/node-pool": p }))
            .unwrap_or(json!({}));
        serde_json::from_value(json!({
            "metadata": { "name": name, "labels": labels },
            "status": { "allocatable": { "nvidia.com/gpu": gpus, "cpu": cpu, "memory": memory } }
        }))
        .unwrap()
    }

    #[test]
    fn nodes_without_the_label_form_the_default_pool() {
        let mut index = NodeIndex::default();
        for n in [
            node("a1", Some("a"), "8", "32", "256Gi"),
            node("a2", Some("a"), "4", "64", "128Gi"),
            node("x", None, "0", "4", "16Gi"),
        ] {
            index.apply(n.name_any(), size_of(&n, "tephra.dev/node-pool"));
        }
        let pools = index.pools();
        assert_eq!(pools.len(), 2);
        assert_eq!(pools[0].name, "a");
        assert_eq!(pools[0].nodes, 2);
        assert_eq!(pools[0].capacity.gpus, 12.0);
        assert_eq!(pools[0].largest.gpus, 8.0);
        assert_eq!(pools[0].largest.cpu_millis, 64_000);
        assert_eq!(pools[0].largest.memory_mib, 256 * 1024);
        assert_eq!(pools[1].name, DEFAULT_POOL);
        assert!(
            index.largest().is_empty(),
            "nothing is refused before the first list"
        );
        index.listed = true;
        assert_eq!(index.largest()[0], ("a".to_owned(), pools[0].largest));
    }
}
