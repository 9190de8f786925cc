//! Generic job (T9k's GenericJob): replica types that share the spec above, each with its own
//! name, replicas, restart policy and command; what is left when it finishes; and whether it
//! starts paused. Success and failure rules are the API's (a clone keeps them).

use super::{GRID_CLASS, Section};
use crate::components::form::{CheckboxField, RowList, SelectField, TextField, Toggle, use_form};
use crate::draft::fields::spec;
use crate::draft::posted::GENERIC;
use crate::draft::{Kind, Path, TYPE_KEY};
use crate::key;
use leptos::prelude::*;
use tephra_core::model::training::generic::{
    GenericSpec, PauseMode, ReplicaRestart, ReplicaSpec, RunMode,
};
use tephra_core::model::training::request::TrainingSpec;

#[component]
pub fn Generic() -> impl IntoView {
    let form = use_form();
    let draft = form.draft;
    let on = Signal::derive(move || draft.with(|d| d.is_generic()));
    let at = |key: String| spec().key(key);
    let paused = at(key!(GenericSpec.run_mode))
        .key(key!(RunMode.pause))
        .key(key!(PauseMode.enabled));
    view! {
        <Section title="Generic job">
            <div class=GRID_CLASS>
                <Toggle label="Generic job (replica types such as ps and worker, after T9k's GenericJob)"
                    id="f-generic".to_owned() name=GENERIC checked=on.get_untracked() />
            </div>
            <Show when=move || on.get()>
                <p class="mt-2 text-sm text-slate-600 dark:text-slate-300">
                    "Every replica type runs the spec above, with its own command if it sets one. \
                     Success and failure rules are set through the API."
                </p>
                <RowList title="Replica types" path=at(key!(GenericSpec.replica_specs))
                    add="Add a replica type" what="replica type"
                    template=|| serde_json::json!({ "replicas": 1 }) row=replica_fields />
                <div class=GRID_CLASS>
                    <SelectField label="When it finishes" path=at(key!(GenericSpec.clean_up_policy))
                        options=&[("", "Keep every pod (None)"), ("Unfinished", "Stop the unfinished pods"), ("All", "Delete every pod")] />
                    <CheckboxField label="Start paused" path=paused.clone() kind=Kind::Bool
                        hint="Stored suspended; it runs when resumed." />
                </div>
            </Show>
        </Section>
    }
}

fn replica_fields(row: Path) -> AnyView {
    let restart = row.key(key!(ReplicaSpec.restart_policy));
    view! {
        <TextField label="Type" path=row.key(TYPE_KEY) placeholder="worker" />
        <TextField label="Replicas" path=row.key(key!(ReplicaSpec.replicas)) kind=Kind::Number />
        <SelectField label="Restart" path=restart.key(key!(ReplicaRestart.policy))
            options=&[("", "On failure (default)"), ("Never", "Never"), ("Always", "Always")] />
        <TextField label="Restart limit" path=restart.key(key!(ReplicaRestart.limit)) kind=Kind::Number
            hint="Restarts of this type's pods before it has failed; 0: none." />
        <TextField label="Command (if not the shared one)"
            path=row.key(key!(ReplicaSpec.spec)).key(key!(TrainingSpec.command)) />
    }
    .into_any()
}
