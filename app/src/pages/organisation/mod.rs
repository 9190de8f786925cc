//! Organisation: departments and projects with their GPU quota and limit per node pool (as
//! Volcano queues enforce them), and the policies the new-training form and the API hold
//! requests to, with a preview of what a researcher will see.
//!
//! System administrators manage departments and every policy; a department's administrators
//! manage its projects and their policies. The server refuses the rest, naming the permission.
//!
//! The server renders the tables and forms; the browser carries only the policy editor and what
//! posts the forms in place ([`follow`]).

mod cluster;
mod follow;
mod form;
mod members;
mod policy;
mod units;

use crate::api::get_organisation;
use crate::components::loaded::loaded;
use crate::components::style::CARD_CLASS;
use crate::error::AppError;
use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use tephra_core::model::org::PoolResources;

#[component]
pub fn OrganisationPage() -> impl IntoView {
    let org = Resource::new(|| (), |_| get_organisation());
    view! {
        <Title text="Organisation" />
        <h1 class="mb-2 text-2xl font-semibold tracking-tight">"Organisation"</h1>
        <p class="mb-6 max-w-3xl text-sm text-slate-600 dark:text-slate-400">
            "Each department is a parent Volcano queue and each project a child queue. The quota is what a project is guaranteed; up to its limit it may borrow idle GPUs, and what it borrows is reclaimed when another project needs its own quota back. An empty quota or limit means none."
        </p>
        {loaded(org, |org| {
            let nodes = org.cluster.clone();
            let policy = org.system_policy.clone().unwrap_or_default();
            let scopes = policy::scopes(&org);
            view! {
                <units::Departments org=org.clone() />
                <units::Projects org=org.clone() />
                <members::Members org />
                <policy::PolicyEditor policy scopes />
                <section class=format!("my-6 {CARD_CLASS}") aria-labelledby="cluster-heading">
                    <h2 id="cluster-heading" class="mb-3 font-semibold">"Cluster"</h2>
                    <cluster::Cluster cluster=nodes />
                </section>
            }
        })}
    }
}

/// "default: 4 (limit 8, weight 2)" for each pool, or "no quota".
fn shares(resources: &[PoolResources]) -> String {
    let show = |n: Option<f64>| n.map_or_else(|| "none".to_owned(), |n| n.to_string());
    let parts: Vec<String> = resources
        .iter()
        .filter(|r| r.gpu.deserved.is_some() || r.gpu.limit.is_some())
        .map(|r| {
            let mut text = format!(
                "{}: {} (limit {}",
                r.node_pool.name,
                show(r.gpu.deserved),
                show(r.gpu.limit)
            );
            if let Some(weight) = r.gpu.over_quota_weight {
                text.push_str(&format!(", weight {weight}"));
            }
            text.push(')');
            text
        })
        .collect();
    if parts.is_empty() {
        "no quota".to_owned()
    } else {
        parts.join("; ")
    }
}

/// What the server refused, each problem by field.
#[component]
fn Refusal(error: AppError) -> impl IntoView {
    let fields = error.field_errors();
    view! {
        <div role="alert" class=form::REFUSAL data-testid="refusal">
            {if fields.is_empty() {
                Either::Left(view! { <p>{error.to_string()}</p> })
            } else {
                Either::Right(view! {
                    <ul class=form::REFUSAL_LIST>
                        {fields.into_iter().map(|e| view! { <li><code>{e.path}</code>": "{e.message}</li> }).collect_view()}
                    </ul>
                })
            }}
        </div>
    }
}
