//! Scheduling: where the pods may run, together or apart, and which taints they tolerate.

use super::{GRID_CLASS, Section};
use crate::components::form::{RowList, SelectField, TextField};
use crate::draft::fields::{pod_affinity_type_key, spec};
use crate::draft::{Kind, Path};
use crate::key;
use leptos::prelude::*;
use tephra_core::model::training::request::{PodAffinity, Toleration, TrainingSpec};

#[component]
pub fn Scheduling() -> impl IntoView {
    let at = |key: String| spec().key(key);
    let affinity = at(key!(TrainingSpec.pod_affinity));
    view! {
        <Section title="Scheduling">
            <div class=GRID_CLASS>
                <TextField label="Node pools" path=at(key!(TrainingSpec.node_pools)) kind=Kind::List
                    hint="Comma-separated, in order of preference." />
                <TextField label="Node type" path=at(key!(TrainingSpec.node_type)) />
                <SelectField label="Pod affinity" path=affinity.key(pod_affinity_type_key())
                    options=&[("", "None"), ("Required", "Required"), ("Preferred", "Preferred")] />
                <TextField label="Pod affinity topology key" path=affinity.key(key!(PodAffinity.key))
                    placeholder="kubernetes.io/hostname" />
                <TextField label="Priority class" path=at(key!(TrainingSpec.priority_class)) />
            </div>
            <RowList title="Tolerations" path=at(key!(TrainingSpec.tolerations))
                add="Add a toleration" what="toleration" template=|| serde_json::json!({}) row=toleration_fields />
        </Section>
    }
}

fn toleration_fields(row: Path) -> AnyView {
    view! {
        <TextField label="Taint key" path=row.key(key!(Toleration.key)) />
        <SelectField label="Operator" path=row.key(key!(Toleration.operator))
            options=&[("", "Equal (default)"), ("Equal", "Equal"), ("Exists", "Exists")] />
        <TextField label="Value" path=row.key(key!(Toleration.value)) />
        <SelectField label="Effect" path=row.key(key!(Toleration.effect))
            options=&[("", "Any"), ("NoSchedule", "NoSchedule"), ("PreferNoSchedule", "PreferNoSchedule"), ("NoExecute", "NoExecute")] />
        <TextField label="Seconds (NoExecute)" path=row.key(key!(Toleration.seconds)) kind=Kind::Number />
    }
    .into_any()
}
