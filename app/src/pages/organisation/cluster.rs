//! The cluster view: each node pool and node with its GPUs, what Tephra's workloads hold, and
//! what is free, so an administrator sets quotas against what the cluster has.

use crate::components::table::{Column, Table};
use crate::components::usage::{Usage, figure};
use leptos::prelude::*;
use tephra_core::model::cluster::ClusterView;

const POOL_COLUMNS: [Column; 4] = [
    Column::text("Node pool"),
    Column::number("Nodes"),
    Column::text("GPUs in use / total"),
    Column::number("Free GPUs"),
];

const NODE_COLUMNS: [Column; 4] = [
    Column::text("Node"),
    Column::text("Pool"),
    Column::text("GPUs in use / total"),
    Column::text("Schedulable"),
];

#[component]
pub(super) fn Cluster(cluster: ClusterView) -> impl IntoView {
    if cluster.nodes.is_empty() {
        return view! {
            <p class="text-sm text-slate-600 dark:text-slate-400" data-testid="cluster-empty">
                "No nodes seen: Tephra is not connected to a cluster, or it has not listed the nodes yet."
            </p>
        }
        .into_any();
    }
    view! {
        <p class="mb-3 max-w-3xl text-sm text-slate-600 dark:text-slate-400">
            "In use counts the GPUs of Tephra's pods bound to each node; pods Tephra did not create are not counted."
        </p>
        <Table testid="cluster-pools" columns=&POOL_COLUMNS>
            {cluster.pools.into_iter().map(|p| {
                let free = figure(p.free_gpus());
                view! {
                    <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                        <td class="px-4 py-2 font-medium">{p.name}</td>
                        <td class="px-4 py-2 text-right tabular-nums">{p.nodes}</td>
                        <td class="px-4 py-2"><Usage in_use=p.used_gpus quota=None limit=Some(p.gpus) total=true /></td>
                        <td class="px-4 py-2 text-right tabular-nums">{free}</td>
                    </tr>
                }
            }).collect_view()}
        </Table>
        <div class="mt-4">
            <Table testid="cluster-nodes" columns=&NODE_COLUMNS>
                {cluster.nodes.into_iter().map(|n| view! {
                    <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800">
                        <td class="px-4 py-2 font-mono text-xs">{n.name}</td>
                        <td class="px-4 py-2">{n.pool}</td>
                        <td class="px-4 py-2"><Usage in_use=n.used_gpus quota=None limit=Some(n.gpus) total=true /></td>
                        <td class="px-4 py-2">{if n.schedulable { "yes" } else { "no (cordoned or not ready)" }}</td>
                    </tr>
                }).collect_view()}
            </Table>
        </div>
    }
    .into_any()
}
