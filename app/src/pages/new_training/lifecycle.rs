//! Lifecycle: how many pods must succeed, retries, clean-up and preemption.

use super::{GRID_CLASS, Section};
use crate::components::form::{CheckboxField, TextField, use_form};
use crate::draft::Kind;
use crate::draft::fields::spec;
use crate::key;
use leptos::prelude::*;
use tephra_core::model::training::request::TrainingSpec;

#[component]
pub fn Lifecycle() -> impl IntoView {
    let form = use_form();
    let single = Signal::derive(move || {
        form.draft
            .with(|d| d.kind() == tephra_core::model::kind::WorkloadKind::Training)
    });
    let at = |key: String| spec().key(key);
    view! {
        <Section title="Lifecycle">
            <div class=GRID_CLASS>
                // A distributed training's pod count is its workers and master; a generic job's,
                // its replica types'.
                <Show when=move || single.get()>
                    <TextField label="Completions" path=at(key!(TrainingSpec.completions)) kind=Kind::Number
                        hint="How many pods must succeed." />
                    <TextField label="Parallelism" path=at(key!(TrainingSpec.parallelism)) kind=Kind::Number
                        hint="How many pods run at once." />
                </Show>
                <TextField label="Backoff limit" path=at(key!(TrainingSpec.backoff_limit)) kind=Kind::Number
                    hint="How often a failed training is restarted." />
                <TextField label="Delete after completion (seconds)" path=at(key!(TrainingSpec.auto_deletion_time_after_completion_seconds)) kind=Kind::Number />
                <CheckboxField label="Terminate after preemption" path=at(key!(TrainingSpec.terminate_after_preemption))
                    hint="Otherwise a preempted training waits to be scheduled again." />
            </div>
        </Section>
    }
}
