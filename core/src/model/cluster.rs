//! The cluster as an administrator sees it: node pools and their nodes, with the GPUs each has
//! and what Tephra's workloads hold on it.

use serde::{Deserialize, Serialize};

/// One node: its pool, its allocatable GPUs, and what Tephra's bound pods ask of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    pub name: String,
    pub pool: String,
    pub gpus: f64,
    /// GPUs of Tephra's pods bound to it that have not finished. Other pods are not counted.
    pub used_gpus: f64,
    /// False when it is cordoned or not ready: its GPUs count for nothing.
    pub schedulable: bool,
}

/// A node pool: its nodes together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolView {
    pub name: String,
    pub nodes: usize,
    /// Allocatable GPUs of its schedulable nodes.
    pub gpus: f64,
    pub used_gpus: f64,
}

impl PoolView {
    pub fn free_gpus(&self) -> f64 {
        (self.gpus - self.used_gpus).max(0.0)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterView {
    pub pools: Vec<PoolView>,
    pub nodes: Vec<NodeView>,
}

impl ClusterView {
    /// Pools from their nodes, by name.
    pub fn of(nodes: Vec<NodeView>) -> ClusterView {
        let mut pools: Vec<PoolView> = Vec::new();
        for node in &nodes {
            let at = match pools.iter().position(|p| p.name == node.pool) {
                Some(at) => at,
                None => {
                    pools.push(PoolView {
                        name: node.pool.clone(),
                        nodes: 0,
                        gpus: 0.0,
                        used_gpus: 0.0,
                    });
                    pools.len() - 1
                }
            };
            let pool = &mut pools[at];
            pool.nodes += 1;
            pool.used_gpus += node.used_gpus;
            if node.schedulable {
                pool.gpus += node.gpus;
            }
        }
        pools.sort_by(|a, b| a.name.cmp(&b.name));
        ClusterView { pools, nodes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, pool: &str, gpus: f64, used: f64, schedulable: bool) -> NodeView {
        NodeView {
            name: name.into(),
            pool: pool.into(),
            gpus,
            used_gpus: used,
            schedulable,
        }
    }

    #[test]
    fn pools_sum_their_nodes_and_a_cordoned_node_adds_no_gpus() {
        let view = ClusterView::of(vec![
            node("n1", "a100", 8.0, 8.0, true),
            node("n2", "a100", 8.0, 2.0, true),
            node("n3", "default", 4.0, 0.0, true),
            node("n4", "a100", 8.0, 0.0, false),
        ]);
        let a100 = &view.pools[0];
        assert_eq!(
            (a100.name.as_str(), a100.nodes, a100.gpus),
            ("a100", 3, 16.0)
        );
        assert_eq!((a100.used_gpus, a100.free_gpus()), (10.0, 6.0));
        assert_eq!(view.pools[1].name, "default");
    }
}
